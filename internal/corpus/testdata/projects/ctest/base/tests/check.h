#include <stdio.h>

static int failures;

#define CHECK_EQ(got, want)                                                              \
	do {                                                                                 \
		long g_ = (got), w_ = (want);                                                    \
		if (g_ != w_) {                                                                  \
			fprintf(stderr, "%s:%d: CHECK_EQ(%s, %s) failed: got %ld, want %ld\n",       \
				__FILE__, __LINE__, #got, #want, g_, w_);                                \
			failures++;                                                                  \
		}                                                                                \
	} while (0)
