#include <stdio.h>

#include "shop.h"

long round_cents(long cents);
void audit_log(const char *what);

void print_total(long cents) {
	printf("total: %ld.%02ld\n", cents / 100, round_cents(cents) % 100);
}

void report_total(long cents) {
	audit_log("report_total");
	print_total(cents);
	audit_log("done");
}
