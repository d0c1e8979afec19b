#include "shop.h"

#include <ctype.h>
#include <stdlib.h>

long parse_price(const char *s) {
	char *end;
	while (isspace((unsigned char)*s))
		s++;
	long whole = strtol(s, &end, 10);
	if (end == s)
		return -1;
	long cents = 0;
	if (*end == '.') {
		const char *c = end + 1;
		cents = isdigit((unsigned char)c[0]) ? (c[0] - '0') * 10 : 0;
		if (isdigit((unsigned char)c[0]) && isdigit((unsigned char)c[1]))
			cents += c[1] - '0';
	}
	return whole * 100 + cents;
}

long cart_total(const int *n, const long *price, int len) {
	long sum = 0;
	for (int i = 0; i < len; i++)
		sum += n[i] * price[i];
	return sum;
}
