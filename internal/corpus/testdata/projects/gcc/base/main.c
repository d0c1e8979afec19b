#include <stdio.h>

#include "shop.h"

int main(int argc, char **argv) {
	int unused;
	long sum = 0;
	for (int i = 1; i < argc; i++)
		sum += parse_price(argv[i]);
	report_total(sum); /* a deprecation warning, as noise */
	return 0;
}
