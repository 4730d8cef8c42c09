/*
 * boxf.cuh - a periodic cell in single precision and its minimum image
 * (lib/pmd/pmd_eval.h's fek_box and fek_box_minimage, in float), for the
 * pair lists' distance tests (kernels/pmd/run.cu, kernels/mm/nblist.cu) and the
 * mixed-precision pairs (kernels/mm/nonbonded.cu).  The lists allow for the
 * rounding in their thresholds.
 */
#ifndef FEK_BOXF_CUH
#define FEK_BOXF_CUH

#include <math.h>

#include <cuda_runtime.h>

#include "particles/box_eval.h"

struct fek_boxf {
	float lx, ly, lz, xy, xz, yz, ilx, ily, ilz;
};

/* b rounded to single precision. */
static __host__ __device__ __forceinline__ struct fek_boxf
fek_box_single(const struct fek_box *b)
{
	struct fek_boxf f = { (float)b->lx, (float)b->ly, (float)b->lz,
	    (float)b->xy, (float)b->xz, (float)b->yz, (float)b->ilx,
	    (float)b->ily, (float)b->ilz };

	return f;
}

/* d replaced by its minimum image in the lower-triangular cell b, in
 * single precision (fek_box_minimage's order). */
static __device__ __forceinline__ void
fek_minimagef(const struct fek_boxf *b, float *d)
{
	float n;

	n = rintf(d[2] * b->ilz);
	d[2] -= n * b->lz;
	d[1] -= n * b->yz;
	d[0] -= n * b->xz;
	n = rintf(d[1] * b->ily);
	d[1] -= n * b->ly;
	d[0] -= n * b->xy;
	n = rintf(d[0] * b->ilx);
	d[0] -= n * b->lx;
}

#endif
