/*
 * bd-check - checks of bd-step's numerics that need the library inside:
 *
 *   bd-check fd  A.pqr A.dx|- B.pqr B.dx|- contacts ionic n seed
 *       at n random configurations (B's centre within the grids, random
 *       orientations, overlapping or not), the force on B and the torques
 *       on A and B against central differences of the energy (the
 *       derivatives of bd_eval.h's U, which the step uses).  Prints the
 *       largest error relative to the term's size; exit 1 above 1e-6.
 *   bd-check gpu A.pqr A.dx|- B.pqr B.dx|- contacts ionic n seed
 *       the same configurations on the CPU and the GPU: U, F and torques
 *       (fek_bd_eval against fek_bd_gpu_eval; sums of thousands of terms
 *       that cancel, in the same order but with the GPU's fused
 *       multiply-adds: 1e-10 of the term's size) and each grid's
 *       trilinear potential and gradient at n random points (1e-12).
 *   bd-check phi file.dx x y z ...
 *       the trilinear potential of a grid (its own frame) at points.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "core/fek.h"
#include "bd/bd.h"
#include "bd/bd_gpu.h"

static void
random_config(gsl_rng *g, const struct fek_bd_system *x, double *c)
{
	double u[6];
	double R = x->s[0].reach + x->s[1].reach;

	/* B's centre anywhere up to the solutes' reach plus 5 A, so that
	 * some atoms sit in the grids and some beyond */
	for (int d = 0; d < 3; d++)
		c[d] = (2.0 * gsl_rng_uniform(g) - 1.0) * (R + 5.0);
	for (int k = 0; k < 6; k++)
		u[k] = gsl_rng_uniform(g);
	fek_bd_quat_random(u, c + 3);
	fek_bd_quat_random(u + 3, c + 7);
}

static double
energy(const struct fek_bd_system *x, const double *r, const double *qa,
    const double *qb)
{
	double sum[FEK_BD_NSUM];

	fek_bd_eval(&x->sys, r, qa, qb, sum);
	return fek_bd_scale(&x->sys) * sum[0];
}

/* Minus the derivative of the energy at configuration c as solute
 * `which` (0: A, 1: B) turns about lab axis k through its centre. */
static double
turn_torque(const struct fek_bd_system *x, const double *c, int which, int k,
    double ha)
{
	double q[2][11], w[3] = { 0, 0, 0 };

	for (int sgn = 0; sgn < 2; sgn++) {
		memcpy(q[sgn], c, sizeof q[sgn]);
		w[k] = sgn ? -ha : ha;
		fek_bd_quat_rotate(q[sgn] + (which ? 7 : 3), w);
	}
	return -(energy(x, q[0], q[0] + 3, q[0] + 7) -
	    energy(x, q[1], q[1] + 3, q[1] + 7)) / (2 * ha);
}

static int
check_fd(const struct fek_bd_system *x, long n, gsl_rng *g)
{
	const double h = 1e-5, ha = 1e-6;
	double worst = 0.0;

	for (long i = 0; i < n; i++) {
		double c[11], sum[FEK_BD_NSUM], f = fek_bd_scale(&x->sys);
		double fd[9], an[9], scale[3] = { 0, 0, 0 };

		random_config(g, x, c);
		fek_bd_eval(&x->sys, c, c + 3, c + 7, sum);
		for (int k = 0; k < 9; k++)
			an[k] = f * sum[1 + k];
		for (int k = 0; k < 3; k++) {
			double rp[3], rm[3];

			memcpy(rp, c, sizeof rp);
			memcpy(rm, c, sizeof rm);
			rp[k] += h;
			rm[k] -= h;
			fd[k] = -(energy(x, rp, c + 3, c + 7) -
			    energy(x, rm, c + 3, c + 7)) / (2 * h);
			fd[3 + k] = turn_torque(x, c, 0, k, ha);
			fd[6 + k] = turn_torque(x, c, 1, k, ha);
		}
		for (int t = 0; t < 3; t++)
			for (int k = 0; k < 3; k++)
				scale[t] = fmax(scale[t], fabs(an[3 * t + k]));
		for (int k = 0; k < 9; k++) {
			double e = fabs(fd[k] - an[k]) / fmax(scale[k / 3],
			    1e-300);

			if (scale[k / 3] > 1e-8 && e > worst)
				worst = e;
		}
	}
	printf("fd: %ld configurations, largest relative error %.3g\n", n,
	    worst);
	return worst < 1e-6 ? 0 : 1;
}

/* |a - b| relative to scale, differences below 1e-15 (absolute: terms
 * that vanish on the CPU, as a central force's torque does, are 1e-18 on
 * the GPU) counted as none */
static double
rel(double a, double b, double scale)
{
	double d = fabs(a - b);

	return d <= 1e-15 ? 0.0 : d / fmax(scale, 1e-300);
}

static int
check_gpu(const struct fek_bd_system *x, long n, gsl_rng *g)
{
	struct fek_bd_gpu *gpu = fek_bd_gpu_new(&x->sys);
	double *cfg, *sc, *sg, *y, *vc, *vg, *gc, *gg, worst = 0, wphi = 0;
	int *oc, *og, bad = 0, wi = -1;

	if (gpu == NULL)
		fek_die();
	cfg = fek_alloc(11 * n, sizeof *cfg);
	sc = fek_alloc(FEK_BD_NSUM * n, sizeof *sc);
	sg = fek_alloc(FEK_BD_NSUM * n, sizeof *sg);
	oc = fek_alloc(n, sizeof *oc);
	og = fek_alloc(n, sizeof *og);
	for (long i = 0; i < n; i++) {
		random_config(g, x, cfg + 11 * i);
		oc[i] = fek_bd_eval(&x->sys, cfg + 11 * i, cfg + 11 * i + 3,
		    cfg + 11 * i + 7, sc + FEK_BD_NSUM * i);
	}
	if (fek_bd_gpu_eval(gpu, n, cfg, sg, og) != 0)
		fek_die();
	for (long i = 0; i < n; i++) {
		const double *a = sc + FEK_BD_NSUM * i, *b = sg + FEK_BD_NSUM * i;
		double s[4] = { fabs(a[0]), 0, 0, 0 };

		for (int k = 1; k < FEK_BD_NSUM; k++)
			s[1 + (k - 1) / 3] = fmax(s[1 + (k - 1) / 3],
			    fabs(a[k]));
		for (int k = 0; k < FEK_BD_NSUM; k++) {
			double e = rel(a[k], b[k], s[k == 0 ? 0 :
			    1 + (k - 1) / 3]);

			if (e > worst) {
				worst = e;
				wi = (int)i;
			}
		}
		if (oc[i] != og[i])
			bad++;
	}
	if (worst > 1e-10 && wi >= 0)
		for (int k = 0; k < FEK_BD_NSUM; k++)
			fprintf(stderr, "configuration %d term %d: cpu %.17g "
			    "gpu %.17g\n", wi, k, sc[FEK_BD_NSUM * wi + k],
			    sg[FEK_BD_NSUM * wi + k]);
	printf("gpu: %ld configurations: sums differ by %.3g relative at "
	    "most; overlap verdicts differ at %d\n", n, worst, bad);
	/* each grid at random points of its box and a little beyond */
	y = fek_alloc(3 * n, sizeof *y);
	vc = fek_alloc(n, sizeof *vc);
	vg = fek_alloc(n, sizeof *vg);
	gc = fek_alloc(3 * n, sizeof *gc);
	gg = fek_alloc(3 * n, sizeof *gg);
	for (int w = 0; w < 2; w++) {
		const struct fek_bd_body *m = w ? &x->sys.B : &x->sys.A;

		if (!m->has_pot)
			continue;
		for (long i = 0; i < n; i++)
			for (int d = 0; d < 3; d++) {
				double len = (m->pot.n[d] - 1) * m->pot.h[d];

				y[3 * i + d] = m->pot.o[d] + len *
				    (1.1 * gsl_rng_uniform(g) - 0.05);
			}
		for (long i = 0; i < n; i++)
			vc[i] = fek_bd_phi(m, x->sys.kappa, y + 3 * i,
			    gc + 3 * i);
		if (fek_bd_gpu_phi(gpu, w, n, y, vg, gg) != 0)
			fek_die();
		for (long i = 0; i < n; i++) {
			double gs = fmax(fmax(fabs(gc[3 * i]),
			    fabs(gc[3 * i + 1])), fabs(gc[3 * i + 2]));

			wphi = fmax(wphi, rel(vc[i], vg[i], fabs(vc[i])));
			for (int d = 0; d < 3; d++)
				wphi = fmax(wphi, rel(gc[3 * i + d],
				    gg[3 * i + d], gs));
		}
	}
	printf("gpu: potentials and gradients at %ld points a grid differ by "
	    "%.3g relative at most\n", n, wphi);
	fek_bd_gpu_free(gpu);
	return worst <= 1e-10 && wphi <= 1e-12 && bad == 0 ? 0 : 1;
}

static int
phi_points(int argc, char **argv)
{
	struct fek_bd_grid gr;
	struct fek_bd_body b;

	if (fek_bd_dx_read(argv[0], &gr) != 0)
		fek_die();
	memset(&b, 0, sizeof b);
	b.has_pot = 1;
	memcpy(b.pot.n, gr.n, sizeof gr.n);
	memcpy(b.pot.o, gr.o, sizeof gr.o);
	memcpy(b.pot.h, gr.h, sizeof gr.h);
	b.pot.v = gr.v;
	for (int i = 1; i + 2 < argc; i += 3) {
		double y[3] = { atof(argv[i]), atof(argv[i + 1]),
		    atof(argv[i + 2]) }, g[3], v;

		if (!fek_bd_trilinear(&b.pot, y, &v, g))
			printf("outside\n");
		else
			printf("%.17g %.17g %.17g %.17g\n", v, g[0], g[1], g[2]);
	}
	fek_bd_grid_free(&gr);
	return 0;
}

int
main(int argc, char **argv)
{
	struct fek_bd_opts o;
	struct fek_bd_system x;
	gsl_rng *g;
	int rc;

	fek_setprogname("bd-check");
	if (argc >= 3 && strcmp(argv[1], "phi") == 0)
		return phi_points(argc - 2, argv + 2);
	if (argc != 10 || (strcmp(argv[1], "fd") && strcmp(argv[1], "gpu"))) {
		fprintf(stderr, "usage: bd-check fd|gpu A.pqr A.dx|- B.pqr "
		    "B.dx|- contacts ionic n seed\n"
		    "       bd-check phi file.dx x y z ...\n");
		return 64;
	}
	fek_bd_opts_default(&o);
	o.pqr[0] = argv[2];
	o.dx[0] = strcmp(argv[3], "-") ? argv[3] : NULL;
	o.pqr[1] = argv[4];
	o.dx[1] = strcmp(argv[5], "-") ? argv[5] : NULL;
	o.rxn = argv[6];
	o.ionic = atof(argv[7]);
	o.have_ionic = 1;
	o.have_D = o.have_Dr = 1;
	o.D[0] = o.D[1] = 0.01;
	o.Dr[0] = o.Dr[1] = 1e-4;
	o.dtmin = o.dtmax = 1.0;
	o.rxn_dist = 5.0;
	o.need = 1;
	o.maxsteps = 1;
	if (fek_bd_system_build(&x, &o) != 0)
		fek_die();
	g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, strtoul(argv[9], NULL, 10));
	rc = strcmp(argv[1], "fd") == 0 ? check_fd(&x, atol(argv[8]), g) :
	    check_gpu(&x, atol(argv[8]), g);
	gsl_rng_free(g);
	fek_bd_system_free(&x);
	return rc;
}
