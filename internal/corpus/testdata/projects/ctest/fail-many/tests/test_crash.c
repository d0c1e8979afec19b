#include <stddef.h>

#include "shop.h"

int main(void) {
	const char *s = NULL;
	return parse_price(s) == 0;
}
