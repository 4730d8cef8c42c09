/*
 * fpt-exact.c - the exact mean first passage times of 1-D overdamped
 * diffusion in U(x) = Eb (x^2 - 1)^2 between two points, by quadrature,
 * for tests/fpt-count.sh: the known answer for fpt-count's counts on
 * md-gpu's Brownian dynamics.  Nothing here comes from fek.
 *
 *   fpt-exact EB D LO HI A B
 *
 * With beta = 1 (md-gpu -E kT), diffusion coefficient D and reflecting
 * walls at LO and HI (an open md-gpu axis), the MFPT from a to b > a
 * (Szabo, Schulten and Schulten 1980; Gardiner, Eq. 5.2.160)
 *
 *   T(a -> b) = (1/D) int_a^b e^U(y) int_LO^y e^-U(z) dz dy
 *
 * and back, from b to a,
 *
 *   T(b -> a) = (1/D) int_a^b e^U(y) int_y^HI e^-U(z) dz dy.
 *
 * Prints the two on one line, "%.10g %.10g".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_integration.h>

static double eb, lo, hi;
static gsl_integration_workspace *wo, *wi;

static double
boltzmann(double x, void *sign)
{
	double u = eb * (x * x - 1) * (x * x - 1);

	return exp(*(double *)sign * u);
}

static double
integral(gsl_integration_workspace *w, double (*f)(double, void *),
    void *par, double a, double b)
{
	gsl_function F = { f, par };
	double r, err;

	gsl_integration_qags(&F, a, b, 0, 1e-12, 1000, w, &r, &err);
	return r;
}

/* e^U(y) times the integral of e^-U from LO to y (upper 0) or from y to
 * HI (upper 1). */
static double
nested(double y, void *upper)
{
	double minus = -1, plus = 1, in;

	in = *(int *)upper ? integral(wi, boltzmann, &minus, y, hi) :
	    integral(wi, boltzmann, &minus, lo, y);
	return boltzmann(y, &plus) * in;
}

int
main(int argc, char **argv)
{
	double D, a, b;
	int up = 0, down = 1;

	if (argc != 7) {
		fprintf(stderr, "usage: fpt-exact EB D LO HI A B\n");
		return 2;
	}
	eb = atof(argv[1]);
	D = atof(argv[2]);
	lo = atof(argv[3]);
	hi = atof(argv[4]);
	a = atof(argv[5]);
	b = atof(argv[6]);
	if (!(D > 0 && lo < a && a < b && b < hi))
		return 2;
	wo = gsl_integration_workspace_alloc(1000);
	wi = gsl_integration_workspace_alloc(1000);
	printf("%.10g %.10g\n", integral(wo, nested, &up, a, b) / D,
	    integral(wo, nested, &down, a, b) / D);
	gsl_integration_workspace_free(wo);
	gsl_integration_workspace_free(wi);
	return 0;
}
