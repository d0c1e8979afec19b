#include "check.h"
#include "shop.h"

int main(void) {
	int n[] = {4};
	long price[] = {50};
	/* Four apples at 50 with 10% off. */
	CHECK_EQ(cart_total(n, price, 1), 180);
	return failures != 0;
}
