/*
 * mm_int.cuh - internal to kernels/mm*.cu: the molecular system on the
 * device and the fixed-point accumulators that the parts (kernels/mm/bonded.cu,
 * kernels/mm/nonbonded.cu with kernels/mm/nblist.cu's pair list,
 * kernels/mm/pme.cu) add their forces, energies and virial to.
 *
 * Fixed point: a quantity v is added as the 64-bit integer llrint(v
 * 2^32) with an integer atomicAdd, exact and so independent of the order
 * of the additions; read back as (signed) sum / 2^32.  Forces then carry
 * 2.3e-10 kJ/mol/nm per term, energies and virial 2.3e-10 kJ/mol, and
 * overflow beyond 2^31 (2.1e9) in magnitude.
 */
#ifndef FEK_MM_INT_CUH
#define FEK_MM_INT_CUH

#include <cuda_runtime.h>

#include "mm/mm.h"

#define MM_FIX 4294967296.0		/* 2^32 */
#define MM_ACC_E 0			/* the energy terms: FEK_MM_NTERM */
#define MM_ACC_VIR FEK_MM_NTERM		/* then the 3 x 3 virial */
#define MM_NACC (FEK_MM_NTERM + 9)

/* Add v to the fixed-point accumulator a. */
static __device__ __forceinline__ void
mm_acc(unsigned long long *a, double v)
{
	atomicAdd(a, (unsigned long long)__double2ll_rn(v * MM_FIX));
}

/* An accumulator's value. */
static __host__ __device__ __forceinline__ double
mm_acc_value(unsigned long long a)
{
	return (double)(long long)a / MM_FIX;
}

/* The sum of a warp's v, the same tree every time. */
static __device__ __forceinline__ double
mm_wsum(double v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

/* The system on the device (device pointers; sizes on the host too). */
struct mm_dev {
	long n;
	int ntype;
	double eps_r;
	double *q, *c6, *c12;		/* n; ntype x ntype */
	int *type;			/* n */
	int *atoms[FEK_MM_NKIND];	/* fek_mm_nat[k] per interaction */
	double *par[FEK_MM_NKIND];	/* fek_mm_npar[k] per interaction */
	long nil[FEK_MM_NKIND];
	long *xstart;			/* n + 1: exclusions as mm.h */
	int *xlist;
	double *x;			/* n x 3, nm */
	unsigned long long *f;		/* n x 3 force accumulators */
	unsigned long long *acc;	/* MM_NACC: terms, then the virial */
	int vsite_serial;		/* mm_vsite_serial(t): the sites are
					   placed and spread by one thread in
					   list order (0: a thread a site) */
};

/* The parts: each launches its kernels on the default stream, adding to
 * d->f and d->acc; 0, or -1 with fek_seterr(70).  The default stream of
 * kernels/mm*.cu is the host thread's own (nvcc --default-stream
 * per-thread, the Makefile), which kernels/mm/run.cu captures as a graph. */

/* kernels/mm/bonded.cu: bonds .. pairs (fek_mm_bonded's terms), eps_r of d. */
int	mm_bonded_launch(const struct mm_dev *d, const struct fek_box *b);
/* kernels/mm/bonded.cu: the virtual sites placed (d->x) / their forces spread
 * (d->f, d->acc's virial) as fek_mm_vsite_place and _spread. */
int	mm_vsite_place_launch(const struct mm_dev *d, const struct fek_box *b);
int	mm_vsite_spread_launch(const struct mm_dev *d, const struct fek_box *b);
/* kernels/mm/bonded.cu, host: 1 when t's sites need the serial path (a site
 * built from a site, or one site listed twice), else 0; for vsite_serial. */
int	mm_vsite_serial(const struct fek_mm_top *t);

/* kernels/mm/nonbonded.cu: fek_mm_nonbonded's terms over the pair list *l
 * (kernels/mm/nblist.cu: made at the first call, rebuilt on the device when an
 * atom has moved skin / 2 or the box has changed); with ev the energies
 * and virial too, else the forces only. */
struct mm_nblist;
int	mm_nonbonded_launch(struct mm_nblist **l, const struct mm_dev *d,
	    const struct fek_mm_opt *o, double skin, const struct fek_box *b,
	    int ev);
/* kernels/mm/nblist.cu: a look at the list's longest row since the last (a
 * sync): rows grown, and a rebuild asked for, when one outgrew its room
 * (its atom was then searched against all atoms: slower, as exact):
 * 0, 1 when the rows moved (new device pointers), or -1. */
int	mm_nonbonded_check(struct mm_nblist *l, const struct fek_box *b);
/* kernels/mm/nblist.cu: the list's outer radius (nm), builds so far and the
 * rows' room (zeros before the first use); the list freed. */
int	mm_nonbonded_stats(const struct mm_nblist *l, double *rlist,
	    long *builds, int *room);
void	mm_nblist_free(struct mm_nblist *l);

/* kernels/mm/pme.cu: the reciprocal part of smooth PME on a grid of n points
 * with B-splines of order and splitting beta, as fek_mm_pme_energy (the self
 * and background terms included; forces and virial to d); with single,
 * the transforms and the grid the forces are gathered from in single
 * precision (md-gpu --precision mixed). */
struct mm_pme_gpu;
struct mm_pme_gpu *mm_pme_gpu_new(const int *n, int order, double beta,
	    long natoms, int single);
/* The forces to d->f; with ev the energy to d->acc[MM_ACC_E +
 * FEK_MM_E_COULRECIP] (all of fek_mm_pme_energy's energy: energy.c's
 * caller moves the self term) and the virial. */
int	mm_pme_gpu_eval(struct mm_pme_gpu *p, const struct mm_dev *d,
	    const struct fek_box *b, int ev);
void	mm_pme_gpu_free(struct mm_pme_gpu *p);

/* kernels/mm/energy.cu's context (lib/mm/mm_gpu.h's struct fek_mm_gpu). */
struct fek_mm_gpu {
	const struct fek_mm_top *t;
	struct fek_mm_opt o;
	struct mm_dev d;
	struct mm_pme_gpu *pme;
	struct mm_nblist *nbl;		/* the non-bonded pair list */
	double self;			/* PME: the Ewald self energy */
	unsigned long long *fh;		/* host copy of the force
					   accumulators */
};
/* kernels/mm/energy.cu: the forces of d->x (with place, the sites placed first)
 * into d->f and, with ev, the terms and virial into d->acc, on the device
 * only (without ev d->acc's short-range terms and virial are left out). */
int	mm_gpu_forces(struct fek_mm_gpu *g, const struct fek_box *b, int place,
	    int ev);
/* kernels/mm/energy.cu: the terms of the last mm_gpu_forces into e, booked as
 * energy.c books them (e->pot their sum). */
int	mm_gpu_energy(struct fek_mm_gpu *g, const struct fek_box *b,
	    struct fek_mm_energy *e);

#endif
