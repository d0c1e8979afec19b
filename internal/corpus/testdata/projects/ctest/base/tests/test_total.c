#include "check.h"
#include "shop.h"

int main(void) {
	int n[] = {2, 1};
	long price[] = {50, 70};
	CHECK_EQ(cart_total(n, price, 2), 170);
	CHECK_EQ(cart_total(n, price, 0), 0);
	puts("total: warning: deprecated API cart_total(), FAIL-safe mode");
	return failures != 0;
}
