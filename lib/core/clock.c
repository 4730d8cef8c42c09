/*
 * clock.c - seconds on the monotonic clock, for the stage times tools
 * print with -v.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fek.h"

double
fek_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* FEK_TRACE=1: "tool: trace WHAT at T s" on stderr, T on the realtime
 * clock, so that the stages of the tools of one pipeline line up (bench
 * runs; see bench/RESULTS.md). */
void
fek_trace(const char *what)
{
	static int on = -1;
	struct timespec t;
	const char *e;

	if (on < 0)
		on = (e = getenv("FEK_TRACE")) != NULL && *e != '\0' &&
		    strcmp(e, "0") != 0;
	if (!on)
		return;
	clock_gettime(CLOCK_REALTIME, &t);
	fprintf(stderr, "%s: trace %s at %.6f s\n", fek_getprogname(),
	    what, t.tv_sec + 1e-9 * t.tv_nsec);
}
