/*
 * nblist.cuh - internal to kernels/mm/nblist.cu and kernels/mm/nonbonded.cu:
 * the pair list that kernels/mm/nblist.cu keeps on the device and the pair
 * kernels of kernels/mm/nonbonded.cu read, the exclusion test that both use
 * (their single-precision minimum image is kernels/particles/boxf.cuh's), and
 * the list's update before the pairs.
 */
#ifndef FEK_MM_NBLIST_CUH
#define FEK_MM_NBLIST_CUH

#include <math.h>

#include <cuda_runtime.h>

#include "particles/boxf.cuh"
#include "mm/mm_int.cuh"

#define NB_BLOCK 128
/* A launch of a warp a sorted slot, m slots. */
#define WGRID(m) ((unsigned)((32 * (m) + NB_BLOCK - 1) / NB_BLOCK)), NB_BLOCK

/* The cell grid of the last build: cells along a, b, c and the stencil's
 * reach (0: one cell, all pairs). */
struct nb_grid {
	int nc[3];
	int reach;
};

/* A context's pair list (kernels/mm/mm_int.cuh's struct mm_nblist). */
struct mm_nblist {
	long n;
	double rlist;			/* max(rc, rvdw) + skin */
	double half2;			/* (skin / 2)^2 */
	struct nb_grid g;
	struct fek_box bref;		/* the box the grid was cut for */
	int have_grid;
	long ncell, capcell;
	int *key;			/* n: each atom's cell */
	int *count, *off;		/* ncell, ncell + 1 */
	int *tmp, *val_s;		/* n: atoms as dealt, then sorted */
	double *xs, *qs;		/* 3n, n: by sorted slot */
	int *ts;
	double *xref;			/* 3n: the positions at the build */
	int *list;			/* n x room: partners' sorted slots */
	int *nrow;			/* n: a row's length, or -1: outgrown */
	int room;			/* a row's room */
	float4 *pf;			/* n: by sorted slot, the position
					   wrapped into the box and the
					   charge, in single precision */
	float *c6f, *c12f;		/* ntype x ntype, single */
	unsigned long long *xmask;	/* n: atom i's exclusions among atoms
					   i - 32 .. i + 31, bit j - i + 32 */
	int *xfar;			/* n: 1 if it has others */
	int *flag;			/* 1: rebuild before the next use */
	int *longest;			/* the longest row built */
	unsigned long long *builds;	/* builds so far */
};

/* Is j among i's exclusions (sorted)? */
static __device__ __forceinline__ int
mm_excluded(const long *xstart, const int *xlist, long i, int j)
{
	long lo = xstart[i], hi = xstart[i + 1];

	while (lo < hi) {
		long m = (lo + hi) / 2;
		int v = xlist[m];

		if (v == j)
			return 1;
		if (v < j)
			lo = m + 1;
		else
			hi = m;
	}
	return 0;
}

/* kernels/mm/nblist.cu: the pair list *lp of d (made at the first call, with
 * rlist = rmax + skin) brought up to d->x in box b, on the default
 * stream: the positions copied to the sorted slots (xs, or pf with
 * mixed), and the list rebuilt on the device when an atom has moved
 * skin / 2 or the box has changed (bf: b in single precision); the pair
 * kernels clear the rebuild flag after a build.  The launches' errors
 * are the caller's to check (fek_cuda_launched).  d->n > 0; 0, or -1
 * with fek_seterr(70). */
int	mm_nblist_update(struct mm_nblist **lp, const struct mm_dev *d,
	    double rmax, double skin, const struct fek_box *b, int mixed,
	    const struct fek_boxf *bf);

#endif
