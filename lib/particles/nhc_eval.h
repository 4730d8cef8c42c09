/*
 * nhc_eval.h - the Nose-Hoover chain thermostat of the particle engines
 * (lib/pmd, lib/mm), one text for the CPU and the GPU (FEK_HD): the
 * Trotter half step of Martyna, Tuckerman, Tobias and Klein 1996, Mol.
 * Phys. 87, 1117, Eqs. 29-35, with Suzuki-Yoshida weights, and the
 * chain's part of the conserved energy.
 */
#ifndef FEK_NHC_EVAL_H
#define FEK_NHC_EVAL_H

#include <math.h>

#include "core/hd.h"

#define FEK_NHC_MAX 10		/* thermostats in a chain */

/* ---- the Nose-Hoover chain (MTTK 1996) --------------------------------- */

struct fek_nhc_par {
	int m;				/* thermostats in the chain */
	int nc, nys;			/* Trotter steps, Suzuki-Yoshida order */
	double kT, nf;			/* target kT, degrees of freedom */
	double q[FEK_NHC_MAX];		/* masses: nf kT tau^2, kT tau^2 ... */
	double w[7];			/* Suzuki-Yoshida weights */
};

struct fek_nhc {
	double xi[FEK_NHC_MAX], vxi[FEK_NHC_MAX];
};

/* exp(iL_NHC dt/2) on the chain s, for particles whose kinetic energy
 * times two is twoK: updates s, returns the factor that scales every
 * velocity, and sets *twoK_out to the scaled particles' 2K. */
FEK_HD double
fek_nhc_half(const struct fek_nhc_par *p, struct fek_nhc *s, double twoK,
    double hdt, double *twoK_out)
{
	double scale = 1.0, g, a;
	int M = p->m, k;

	for (int ic = 0; ic < p->nc; ic++)
		for (int iy = 0; iy < p->nys; iy++) {
			double d = p->w[iy] * hdt / p->nc;

			/* the chain's velocities, from the top down */
			g = (M > 1 ? p->q[M - 2] * s->vxi[M - 2] * s->vxi[M -
			    2] - p->kT : twoK * scale * scale - p->nf *
			    p->kT) / p->q[M - 1];
			s->vxi[M - 1] += 0.5 * d * g;
			for (k = M - 2; k >= 0; k--) {
				a = exp(-0.25 * d * s->vxi[k + 1]);
				g = (k > 0 ? p->q[k - 1] * s->vxi[k - 1] *
				    s->vxi[k - 1] - p->kT : twoK * scale *
				    scale - p->nf * p->kT) / p->q[k];
				s->vxi[k] = (s->vxi[k] * a + 0.5 * d * g) * a;
			}
			/* the particles */
			scale *= exp(-d * s->vxi[0]);
			for (k = 0; k < M; k++)
				s->xi[k] += d * s->vxi[k];
			/* and the chain again, from the bottom up */
			for (k = 0; k < M - 1; k++) {
				a = exp(-0.25 * d * s->vxi[k + 1]);
				g = (k > 0 ? p->q[k - 1] * s->vxi[k - 1] *
				    s->vxi[k - 1] - p->kT : twoK * scale *
				    scale - p->nf * p->kT) / p->q[k];
				s->vxi[k] = (s->vxi[k] * a + 0.5 * d * g) * a;
			}
			g = (M > 1 ? p->q[M - 2] * s->vxi[M - 2] * s->vxi[M -
			    2] - p->kT : twoK * scale * scale - p->nf *
			    p->kT) / p->q[M - 1];
			s->vxi[M - 1] += 0.5 * d * g;
		}
	*twoK_out = twoK * scale * scale;
	return scale;
}

/* The chain's part of the conserved energy: sum Q vxi^2 / 2 + nf kT xi_1
 * + kT sum_(k>1) xi_k. */
FEK_HD double
fek_nhc_energy(const struct fek_nhc_par *p, const struct fek_nhc *s)
{
	double e = p->nf * p->kT * s->xi[0];

	for (int k = 0; k < p->m; k++) {
		e += 0.5 * p->q[k] * s->vxi[k] * s->vxi[k];
		if (k > 0)
			e += p->kT * s->xi[k];
	}
	return e;
}

#endif
