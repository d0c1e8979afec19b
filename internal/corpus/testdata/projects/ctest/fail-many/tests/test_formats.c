#include "check.h"
#include "shop.h"

int main(void) {
	CHECK_EQ(parse_price("1.5"), 150);
	CHECK_EQ(parse_price("1,50"), 150);
	CHECK_EQ(parse_price("-2.25"), -225);
	return failures != 0;
}
