/*
 * replica_pot.c - md-gpu's -p argument: the built-in model potentials (their
 * forces are analytic, in lib/md/replica_eval.h) or a user formula, and the
 * libmatheval text of each built-in, which goes into the PMF key of the
 * samples md-gpu writes (so rmsd(1) and pmf(1) compare against it).
 *   dw[:Eb]              sum_d Eb (x_d^2 - 1)^2 (the double well of seed
 *                        003's Milestoning tests, section 6 Test C)
 *   mb[:scale]           Mueller and Brown 1979 (seed 003, Eq. A.1)
 *   torsion[:a1,...,a6]  sum_d sum_n a_n (1 + cos(n x_d)), x in degrees
 *                        (the butane-like W of Potgieter 2014's 1-D
 *                        illustration: a = 0.6, 0, 1.4)
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md/replica.h"

/* A growing string, printf-style. */
static void
cat(char **s, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
cat(char **s, size_t *len, const char *fmt, ...)
{
	va_list ap;
	char buf[512];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	*s = realloc(*s, *len + n + 1);
	if (*s == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory");
	memcpy(*s + *len, buf, n + 1);
	*len += n;
}

static const char *
axis_name(int d, int ndim, char *buf)
{
	static const char *xyz[] = { "x", "y", "z" };

	if (ndim <= 3)
		return xyz[d];
	sprintf(buf, "x%d", d + 1);
	return buf;
}

/* Up to max numbers separated by commas after "name:"; -1 if malformed. */
static int
numbers(const char *arg, const char *p, double *v, int max)
{
	int n = 0;
	char *end;

	if (*p == '\0')
		return 0;
	if (*p++ != ':')
		return -1;
	for (;;) {
		if (n == max)
			return fek_seterr(FEK_EX_USAGE, "-p %s: at most %d "
			    "parameters", arg, max);
		v[n] = strtod(p, &end);
		if (end == p || !isfinite(v[n]))
			return fek_seterr(FEK_EX_USAGE, "-p %s: '%s' is not a "
			    "list of numbers", arg, p);
		n++;
		if (*end == '\0')
			return n;
		if (*end != ',')
			return fek_seterr(FEK_EX_USAGE, "-p %s: '%s' is not a "
			    "list of numbers", arg, p);
		p = end + 1;
	}
}

int
fek_md_potential_parse(const char *arg, int ndim, struct fek_md_sys *s,
    char **formula)
{
	char *f = NULL, nb[16];
	size_t len = 0;
	double v[FEK_MD_NPAR];
	int n, d, k;

	memset(s->par, 0, sizeof s->par);
	*formula = NULL;
	if (strncmp(arg, "dw", 2) == 0 && (arg[2] == '\0' || arg[2] == ':')) {
		if ((n = numbers(arg, arg + 2, v, 1)) < 0)
			return -1;
		s->pot = FEK_POT_DW;
		s->par[0] = n ? v[0] : 1;
		for (d = 0; d < ndim; d++)
			cat(&f, &len, "%s%.17g*(%s^2-1)^2", d ? "+" : "",
			    s->par[0], axis_name(d, ndim, nb));
	} else if (strncmp(arg, "mb", 2) == 0 && (arg[2] == '\0' ||
	    arg[2] == ':')) {
		static const double A[4] = { -200, -100, -170, 15 };
		static const double a[4] = { -1, -1, -6.5, 0.7 };
		static const double b[4] = { 0, 0, 11, 0.6 };
		static const double c[4] = { -10, -10, -6.5, 0.7 };
		static const double X[4] = { 1, 0, -0.5, -1 };
		static const double Y[4] = { 0, 0.5, 1.5, 1 };

		if ((n = numbers(arg, arg + 2, v, 1)) < 0)
			return -1;
		if (ndim != 2)
			return fek_seterr(FEK_EX_USAGE, "-p mb: the "
			    "Mueller-Brown potential is 2-D, but -r gives %d "
			    "axis%s", ndim, ndim == 1 ? "" : "es");
		s->pot = FEK_POT_MB;
		s->par[0] = n ? v[0] : 1;
		cat(&f, &len, "%.17g*(", s->par[0]);
		for (k = 0; k < 4; k++)
			cat(&f, &len, "%s%g*exp(%g*(x-%g)^2+%g*(x-%g)*(y-%g)"
			    "+%g*(y-%g)^2)", k ? "+" : "", A[k], a[k], X[k],
			    b[k], X[k], Y[k], c[k], Y[k]);
		cat(&f, &len, ")");
	} else if (strncmp(arg, "torsion", 7) == 0 && (arg[7] == '\0' ||
	    arg[7] == ':')) {
		if ((n = numbers(arg, arg + 7, v, 6)) < 0)
			return -1;
		s->pot = FEK_POT_TORSION;
		if (n == 0) {
			s->par[0] = 0.6;
			s->par[2] = 1.4;
		} else
			for (k = 0; k < n; k++)
				s->par[k] = v[k];
		for (d = 0; d < ndim; d++)
			for (k = 0; k < 6; k++)
				if (s->par[k] != 0)
					cat(&f, &len, "%s%.17g*(1+cos(%d*%s*"
					    "pi/180))", len ? "+" : "",
					    s->par[k], k + 1,
					    axis_name(d, ndim, nb));
		if (f == NULL)
			cat(&f, &len, "0*x");
	} else {
		fek_expr *e = fek_expr_parse(arg, ndim);
		char msg[512];

		if (e == NULL) {
			snprintf(msg, sizeof msg, "%s", fek_errmsg());
			return fek_seterr(FEK_EX_USAGE, "-p: %s", msg);
		}
		fek_expr_free(e);
		s->pot = FEK_POT_EXPR;
		cat(&f, &len, "%s", arg);
	}
	*formula = f;
	return 0;
}
