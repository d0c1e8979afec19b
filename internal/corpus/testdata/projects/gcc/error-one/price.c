#include <stdlib.h>

#include "shop.h"

long parse_price(const char *s) {
	char *end;
	long whole = strtol(s, &end, 10);
	long cents = 0;
	if (*end == '.')
		cents = strtol(end + 1, NULL, 10)
	return whole * 100 + cents;
}
