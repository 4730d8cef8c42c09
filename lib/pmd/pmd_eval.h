/*
 * pmd_eval.h - the arithmetic of md-gpu's particle engine that the CPU
 * reference (the C files of lib/pmd) and the GPU (kernels/pmd/run.cu)
 * share, one text compiled by both (FEK_HD, lib/core/hd.h): the per-particle
 * integrator updates, over the cell, pair potentials, random numbers and
 * Nose-Hoover chain of lib/particles (box_eval.h, pair_eval.h, rng_eval.h,
 * nhc_eval.h).
 *
 * Integrators (Leimkuhler and Matthews 2013 for BAOAB; Swope et al. 1982
 * for velocity Verlet).
 */
#ifndef FEK_PMD_EVAL_H
#define FEK_PMD_EVAL_H

#include "core/hd.h"
#include "particles/box_eval.h"
#include "particles/nhc_eval.h"
#include "particles/pair_eval.h"
#include "particles/rng_eval.h"

/* ---- integrators: one particle ----------------------------------------- */

/* Velocity Verlet's first half: v += dt/2 f/m; x += dt v. */
FEK_HD void
fek_pmd_verlet_first(double *x, double *v, const double *f, double hdtm,
    double dt)
{
	for (int d = 0; d < 3; d++) {
		v[d] += hdtm * f[d];
		x[d] += dt * v[d];
	}
}

/* BAOAB's B, A, O, A: v += dt/2 f/m; x += dt/2 v; v = c1 v + c2 z
 * (c2 = sqrt((1 - c1^2) kT / m)); x += dt/2 v. */
FEK_HD void
fek_pmd_baoab_first(double *x, double *v, const double *f, double hdtm,
    double hdt, double c1, double c2, const double *z)
{
	for (int d = 0; d < 3; d++) {
		v[d] += hdtm * f[d];
		x[d] += hdt * v[d];
		v[d] = c1 * v[d] + c2 * z[d];
		x[d] += hdt * v[d];
	}
}

/* The last half kick of both: v += dt/2 f/m. */
FEK_HD void
fek_pmd_kick(double *v, const double *f, double hdtm)
{
	for (int d = 0; d < 3; d++)
		v[d] += hdtm * f[d];
}

#endif
