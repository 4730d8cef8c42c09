/*
 * constr.cuh - internal to kernels/mm/run.cu and kernels/mm/replicas.cu: SHAKE
 * (Ryckaert, Ciccotti and Berendsen, J. Comput. Phys. 23, 327 (1977)) and
 * RATTLE's velocity half (Andersen, J. Comput. Phys. 52, 24 (1983)) of
 * one connected cluster of bond constraints (constr.c's
 * fek_mm_constr_clusters: a heavy atom and its hydrogens under h-bonds),
 * iterated by one thread over the cluster's bonds in constr.c's order and
 * with its arithmetic, until each bond is within the tolerance.
 *
 * The bonds are pairs of indices into x (and v, im): the callers pass the
 * whole system's arrays, or a compact copy of the cluster's atoms in
 * registers and local memory (kernels/mm/run.cu), where each sweep costs no
 * global-memory round trip.
 */
#ifndef FEK_MM_CONSTR_CUH
#define FEK_MM_CONSTR_CUH

#include "mm/vec3.h"

#define MM_SHAKE_MAXIT 1000		/* sweeps at most, as constr.c */

/* SHAKE of bonds ij[0 .. nb - 1] of lengths cd: x moved from the
 * reference positions xref until every |r|^2 is within 2 tol d^2 of d^2.
 * 0, or -1 when a bond turned past 90 degrees from its reference or the
 * sweeps ran out. */
static __device__ __forceinline__ int
mm_shake_cluster(int nb, const int2 *ij, const double *cd, const double *im,
    const struct fek_box *b, double tol, const double *xref, double *x)
{
	for (int it = 0; it < MM_SHAKE_MAXIT; it++) {
		int done = 1;

		for (int k = 0; k < nb; k++) {
			int i = ij[k].x, j = ij[k].y;
			double r[3], rref[3], d2 = cd[k] * cd[k], diff, rr, g;

			fek_vimage(b, xref, i, j, rref);
			fek_vimage(b, x, i, j, r);
			diff = d2 - fek_vdot(r, r);
			if (fabs(diff) <= 2 * tol * d2)
				continue;
			done = 0;
			rr = fek_vdot(r, rref);
			if (!(rr > 1e-6 * d2))
				return -1;
			g = diff / (2 * (im[i] + im[j]) * rr);
			for (int e = 0; e < 3; e++) {
				x[3 * i + e] += g * im[i] * rref[e];
				x[3 * j + e] -= g * im[j] * rref[e];
			}
		}
		if (done)
			return 0;
	}
	return -1;
}

/* RATTLE of bonds ij[0 .. nb - 1] at positions x: v corrected until each
 * bond's |r . v_ij| is within vtol |r|.  0, or -1 when the sweeps ran
 * out. */
static __device__ __forceinline__ int
mm_rattle_cluster(int nb, const int2 *ij, const double *im,
    const struct fek_box *b, double vtol, const double *x, double *v)
{
	for (int it = 0; it < MM_SHAKE_MAXIT; it++) {
		int done = 1;

		for (int k = 0; k < nb; k++) {
			int i = ij[k].x, j = ij[k].y;
			double r[3], vij[3], rv, r2, h;

			fek_vimage(b, x, i, j, r);
			for (int e = 0; e < 3; e++)
				vij[e] = v[3 * i + e] - v[3 * j + e];
			rv = fek_vdot(r, vij);
			r2 = fek_vdot(r, r);
			if (fabs(rv) <= vtol * sqrt(r2))
				continue;
			done = 0;
			h = -rv / ((im[i] + im[j]) * r2);
			for (int e = 0; e < 3; e++) {
				v[3 * i + e] += h * im[i] * r[e];
				v[3 * j + e] -= h * im[j] * r[e];
			}
		}
		if (done)
			return 0;
	}
	return -1;
}

#endif
