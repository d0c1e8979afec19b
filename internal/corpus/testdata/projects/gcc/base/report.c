#include <stdio.h>

#include "shop.h"

void print_total(long cents) {
	printf("total: %ld.%02ld\n", cents / 100, cents % 100);
}

void report_total(long cents) {
	const char *label = "error: none"; /* a string that looks like a diagnostic */
	(void)label;
	print_total(cents);
}
