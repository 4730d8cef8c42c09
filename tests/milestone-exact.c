/*
 * milestone-exact.c - exact Milestoning of 1-D overdamped diffusion in
 * U(x) = Eb (x^2 - 1)^2 (beta = D = 1), by quadrature, for
 * tests/milestone.sh.  Point milestones make Milestoning exact in 1-D
 * (seed 003 extraction, section 6, tests C and D), so everything here is
 * a reference that qstat-mfpt must reproduce; nothing comes from fek.
 *
 *   milestone-exact EB X0 H N MODEL EXPECT
 *
 * Milestones x_i = X0 + i H, i = 0..N, reflecting at x_0 and x_N.  With
 * I(a,b) = int_a^b e^U, G(a,b) = int_a^b e^U(y) int_a^y e^-U and
 * H(a,b) = int_a^b e^U(y) int_y^b e^-U (Szabo, Schulten & Schulten 1980):
 *   K_i,i+1 = I(x_i-1, x_i) / I(x_i-1, x_i+1)       (splitting probability)
 *   tau_i   = P(x_i) G(a,b) - G(a,x_i), a = x_i-1, b = x_i+1, P = I(a,x)/I(a,b)
 *             (exit time from (a, b); Gardiner 5.2.7), tau_0 = G(x_0, x_1),
 *             tau_N = H(x_N-1, x_N) (a reflecting end)
 *   MFPT 0 -> N = G(x_0, x_N), N -> 0 = H(x_0, x_N), 0 -> m = G(x_0, x_m)
 *   committor c_i = I(x_0, x_i) / I(x_0, x_N)
 *   p_i = int rho_eq(x) P(last milestone crossed = i | x) dx: from each
 *         interval (x_k, x_k+1), G(x_k, x_k+1) / (Z I_k) to milestone k and
 *         H(x_k, x_k+1) / (Z I_k) to k+1, Z = int e^-U over [x_0, x_N].
 * MODEL gets "K i j value" and "tau i value" lines; EXPECT the lines
 * "mfpt F", "reverse R" and "i p_i c_i mfpt_from_i".
 *
 *   milestone-exact -p EB D LO HI A B
 *
 * The direct MFPTs between two points for tests/fpt-count.sh: with
 * diffusion coefficient D and reflecting walls at LO and HI (an open
 * md-gpu axis), from a to b > a (Gardiner, Eq. 5.2.160)
 *   T(a -> b) = (1/D) int_a^b e^U(y) int_LO^y e^-U(z) dz dy
 * and back, T(b -> a) = (1/D) int_a^b e^U(y) int_y^HI e^-U(z) dz dy,
 * printed on one line, "%.10g %.10g".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_integration.h>

static double eb;
static gsl_integration_workspace *wo, *wi;

static double
expu(double x, void *sign)
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

	if (a == b)
		return 0;
	gsl_integration_qags(&F, a, b, 0, 1e-12, 1000, w, &r, &err);
	return r;
}

static double I_(double a, double b)
{
	double s = 1;

	return integral(wo, expu, &s, a, b);
}

/* e^U(y) times the inner integral of e^-U from lo to y (lower) or from y
 * to hi (upper). */
struct nest { double lo, hi; int upper; };

static double
nested(double y, void *p)
{
	struct nest *n = p;
	double s = -1, in;

	in = n->upper ? integral(wi, expu, &s, y, n->hi) :
	    integral(wi, expu, &s, n->lo, y);
	s = 1;
	return expu(y, &s) * in;
}

static double G_(double a, double b)
{
	struct nest n = { a, b, 0 };

	return integral(wo, nested, &n, a, b);
}

static double H_(double a, double b)
{
	struct nest n = { a, b, 1 };

	return integral(wo, nested, &n, a, b);
}

/* milestone-exact -p: the two direct MFPTs */
static int
passage(char **argv)
{
	double D = atof(argv[1]), a = atof(argv[4]), b = atof(argv[5]);
	struct nest up = { atof(argv[2]), atof(argv[3]), 0 }, down = up;

	down.upper = 1;
	if (!(D > 0 && up.lo < a && a < b && b < up.hi))
		return 2;
	printf("%.10g %.10g\n", integral(wo, nested, &up, a, b) / D,
	    integral(wo, nested, &down, a, b) / D);
	return 0;
}

int
main(int argc, char **argv)
{
	double x0, h, *x, *p, z, m1 = -1;
	long N, i;
	FILE *model, *expect;

	if (argc == 8 && strcmp(argv[1], "-p") == 0) {
		eb = atof(argv[2]);
		wo = gsl_integration_workspace_alloc(1000);
		wi = gsl_integration_workspace_alloc(1000);
		return passage(argv + 2);
	}
	if (argc != 7) {
		fprintf(stderr, "usage: milestone-exact EB X0 H N MODEL "
		    "EXPECT\n       milestone-exact -p EB D LO HI A B\n");
		return 2;
	}
	eb = atof(argv[1]);
	x0 = atof(argv[2]);
	h = atof(argv[3]);
	N = atol(argv[4]);
	model = fopen(argv[5], "w");
	expect = fopen(argv[6], "w");
	if (!model || !expect || N < 2)
		return 2;
	wo = gsl_integration_workspace_alloc(1000);
	wi = gsl_integration_workspace_alloc(1000);
	x = malloc((N + 1) * sizeof *x);
	p = calloc(N + 1, sizeof *p);
	for (i = 0; i <= N; i++)
		x[i] = x0 + i * h;
	fprintf(model, "# exact Milestoning of U = %g (x^2-1)^2, beta = D = 1, "
	    "milestones %g + %g i, i = 0..%ld\n", eb, x0, h, N);
	fprintf(model, "K 0 1 1\ntau 0 %.17g\n", G_(x[0], x[1]));
	for (i = 1; i < N; i++) {
		double a = x[i - 1], b = x[i + 1], kp, P;

		kp = I_(a, x[i]) / I_(a, b);
		P = kp;
		fprintf(model, "K %ld %ld %.17g\nK %ld %ld %.17g\n", i, i - 1,
		    1 - kp, i, i + 1, kp);
		fprintf(model, "tau %ld %.17g\n", i, P * G_(a, b) - G_(a, x[i]));
	}
	fprintf(model, "K %ld %ld 1\ntau %ld %.17g\n", N, N - 1, N,
	    H_(x[N - 1], x[N]));
	{
		double s = -1;

		z = integral(wo, expu, &s, x[0], x[N]);
	}
	for (i = 0; i < N; i++) {
		double ik = I_(x[i], x[i + 1]);

		p[i] += G_(x[i], x[i + 1]) / (z * ik);
		p[i + 1] += H_(x[i], x[i + 1]) / (z * ik);
	}
	fprintf(expect, "mfpt %.17g\nreverse %.17g\n", G_(x[0], x[N]),
	    H_(x[0], x[N]));
	m1 = I_(x[0], x[N]);
	for (i = 0; i <= N; i++)
		fprintf(expect, "%ld %.17g %.17g %.17g\n", i, p[i],
		    I_(x[0], x[i]) / m1, G_(x[0], x[i]));
	fclose(model);
	fclose(expect);
	gsl_integration_workspace_free(wo);
	gsl_integration_workspace_free(wi);
	free(x);
	free(p);
	return 0;
}
