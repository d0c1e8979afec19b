#include <stdio.h>

#include "shop.h"

void print_total(long cents) {
	struct money m = {cents / 100, cents % 100};
	printf("total: %ld.%02ld\n", m.units, m.cents);
}

void report_total(long cents) {
	print_total(cents, "EUR");
}
