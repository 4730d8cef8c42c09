/*
 * tests/check.c - the verdicts of the C check programs (tests/check.h):
 * "ok NAME" / "FAIL NAME: why" lines and the count of failures.
 */
#include <math.h>
#include <stdio.h>

#include "core/fek.h"
#include "check.h"

int check_verbose, check_nfail;

void
check_begin(struct check *c, const char *name, double tol)
{
	snprintf(c->name, sizeof c->name, "%s", name);
	c->tol = tol;
	c->worst = 0;
	c->got = c->want = 0;
}

void
check_value(struct check *c, double got, double want, double scale)
{
	double err = fabs(got - want) / (scale > 0 ? scale : 1);

	if (!(err <= c->worst) || !isfinite(got)) {	/* NaN: worst */
		c->worst = isfinite(err) ? err : INFINITY;
		c->got = got;
		c->want = want;
	}
}

void
check_error(struct check *c, double err)
{
	check_value(c, err, 0, 0);
}

void
check_end(struct check *c)
{
	if (check_verbose)
		printf("# %s: worst %.3g (limit %.3g)\n", c->name, c->worst,
		    c->tol);
	if (c->worst <= c->tol) {
		printf("ok %s\n", c->name);
	} else {
		printf("FAIL %s: got %.17g want %.17g (error %.3g, limit "
		    "%.3g)\n", c->name, c->got, c->want, c->worst, c->tol);
		check_nfail++;
	}
}

void
check_le(const char *name, double got, double limit)
{
	if (got <= limit) {
		printf("ok %s\n", name);
	} else {
		printf("FAIL %s: got %.6g want <= %.6g\n", name, got, limit);
		check_nfail++;
	}
}

void
check_near(const char *name, double got, double want, double tol)
{
	if (fabs(got - want) <= tol) {
		printf("ok %s\n", name);
	} else {
		printf("FAIL %s: got %.17g want %.17g within %.3g\n", name,
		    got, want, tol);
		check_nfail++;
	}
}

void
check_true(const char *name, int good, const char *why)
{
	if (good) {
		printf("ok %s\n", name);
	} else {
		printf("FAIL %s: %s\n", name, why);
		check_nfail++;
	}
}

int
check_status(void)
{
	if (fflush(stdout) != 0)
		return FEK_EX_IOERR;
	return check_nfail ? 1 : 0;
}
