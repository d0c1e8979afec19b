#include "check.h"
#include "shop.h"

int main(void) {
	CHECK_EQ(parse_price("3.50"), 350);
	CHECK_EQ(parse_price("3"), 300);
	CHECK_EQ(parse_price(" 0.05 "), 5);
	/* Noise: an expected error, reported as the program would. */
	if (parse_price("abc") == -1)
		fprintf(stderr, "error: not a price: \"abc\" (expected: this test checks it)\n");
	printf("parse: %s\n", failures ? "FAILED" : "all checks passed");
	return failures != 0;
}
