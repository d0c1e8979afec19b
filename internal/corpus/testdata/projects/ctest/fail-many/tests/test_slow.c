#include <stdio.h>
#include <unistd.h>

int main(void) {
	puts("waiting for the warehouse...");
	fflush(stdout);
	sleep(5);
	return 0;
}
