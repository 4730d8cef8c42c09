/*
 * clock.c - seconds on the monotonic clock, for the stage times tools
 * print with -v.
 */
#include <time.h>

#include "fek.h"

double
fek_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}
