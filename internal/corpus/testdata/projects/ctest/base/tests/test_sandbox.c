#include <stdio.h>

int main(void) {
	puts("the payment sandbox is not configured: skipping");
	return 77;
}
