/*
 * bonded.cu - md-gpu --top's bonded interactions, 1-4 pairs and
 * virtual sites on the GPU (kernels/mm/mm_int.cuh's mm_bonded_launch,
 * mm_vsite_place_launch, mm_vsite_spread_launch): lib/mm/bonded.c and
 * lib/mm/vsite.c with the arithmetic of lib/mm/bonded_eval.h and
 * lib/mm/vsite_eval.h (GROMACS 2022 reference manual, "Bonded
 * interactions", "Exclusions and 1-4 interactions" and "Virtual
 * interaction sites"; dihedral forces after Bekker, and Blondel and
 * Karplus, J. Comput. Chem. 17, 1132 (1996): see bonded_eval.h), in
 * double precision.
 *
 * k_bonded: one launch for every kind BOND .. PAIR, a thread an
 * interaction.  The kinds that have interactions are laid out one after
 * the other, each starting at a multiple of 32 threads, so that a warp
 * is of one kind and takes one branch.  A thread takes its atoms' minimum
 * images with fek_vimage (chained from j as bonded.c) and calls the
 * kind's fek_mm_*_eval; it adds its forces to d->f with mm_acc (3 an
 * atom).  Energies and virial are turned into fixed point per interaction
 * exactly as mm_acc does, summed as integers over the warp (shuffles)
 * and the block (shared memory), and added to d->acc once a block: the
 * same integers as an mm_acc per interaction, since integer sums do not
 * depend on their order, with 1/128 of the global atomics on those 22
 * addresses.  The results do not depend on thread order or block size.
 * Fixed point has no infinity or NaN: where the CPU's energy is one (a
 * pair of atoms at the same place) the GPU's term is meaningless.
 *
 * Virtual sites (FEK_MM_VSITE3), a thread a site:
 *  - k_vsite_place: x_s from x_i, d_ji, d_ki (fek_mm_vsite3_place),
 *    written to d->x;
 *  - k_vsite_spread: the site's force taken from its accumulator with
 *    atomicExch (read and set to exactly 0 in one step: the site's own
 *    integer is what is taken away), its shares a f_s and b f_s added to
 *    j and k in fixed point, and i given the site's integer less those
 *    two (the share (1 - a - b) f_s up to a unit or two of 2^-32), so
 *    that the total force is kept to the bit; the virial correction dXi
 *    of vsite_eval.h summed as in k_bonded into d->acc's virial.
 * This needs every site to be independent: no site built from a site
 * (its place would race with the other's, and its spread add to an
 * accumulator another thread empties) and no site listed twice.  TIP4P's
 * M and every site a force field's .itp builds from real atoms are so.
 * Otherwise (d->vsite_serial, set from mm_vsite_serial on the
 * host) one thread does every site, placing in list order and spreading
 * in reverse list order, as vsite.c: the same results, slowly.
 *
 * Order on the stream (the caller's): mm_vsite_place_launch before the
 * force parts (which read d->x), mm_vsite_spread_launch after all of them
 * (it moves everything the sites have gathered).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "mm/bonded_eval.h"
#include "mm/vsite_eval.h"
#include "core/cuda_check.cuh"
#include "mm/mm_int.cuh"

#define BONDED_BLOCK 128	/* threads of k_bonded */
#define VSITE_BLOCK 128		/* threads of the site kernels */
#define NBKIND (FEK_MM_PAIR + 1)	/* the kinds of k_bonded */
#define FULL 0xffffffffu

/* The kinds k_bonded runs: segment s is kind[s] from thread start[s]
 * (a multiple of 32) to start[s + 1]. */
struct bonded_segs {
	int nseg;
	int kind[NBKIND];
	long start[NBKIND + 1];
};

/* ---- fixed-point sums --------------------------------------------------- */

/* v as mm_acc adds it: llrint(v 2^32), as the unsigned integer atomicAdd
 * takes. */
static __device__ __forceinline__ unsigned long long
mm_fix(double v)
{
	return (unsigned long long)__double2ll_rn(v * MM_FIX);
}

/*
 * The warp's sum of v (every lane of the warp must call it) added by lane
 * 0 to the block's accumulator *sa (shared memory) when not 0.
 */
static __device__ __forceinline__ void
warp_acc(unsigned long long *sa, unsigned long long v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(FULL, v, o);
	if ((threadIdx.x & 31) == 0 && v != 0)
		atomicAdd(sa, v);
}

/* na rows of forces fa onto atoms at (d->f), with mm_acc. */
static __device__ __forceinline__ void
add_forces(unsigned long long *f, const int *at, int na, double (*fa)[3])
{
	for (int a = 0; a < na; a++)
		for (int c = 0; c < 3; c++)
			mm_acc(f + 3L * at[a] + c, fa[a][c]);
}

/* ---- bonded interactions and pairs -------------------------------------- */

/*
 * Interaction m of kind (BOND .. PAIR) of d in box b: its forces added to
 * d->f, its virial into va (9), its energy returned (for PAIR the LJ-14
 * one, and the Coulomb-14 one into *ucoul).
 */
static __device__ __forceinline__ double
bonded_one(const struct mm_dev &d, const struct fek_box &b, int kind,
    long m, double *ucoul, double *va)
{
	double fa[4][3], p[6], r1[3], r2[3], r3[3], u = 0;
	int at[4];

	switch (kind) {
	case FEK_MM_BOND:
	case FEK_MM_PAIR:
		for (int a = 0; a < 2; a++)
			at[a] = __ldg(d.atoms[kind] + 2 * m + a);
		fek_vimage(&b, d.x, at[0], at[1], r1);
		if (kind == FEK_MM_BOND) {
			for (int i = 0; i < 2; i++)
				p[i] = __ldg(d.par[kind] + 2 * m + i);
			u = fek_mm_bond_eval(r1, p, fa, va);
		} else {
			for (int i = 0; i < 3; i++)
				p[i] = __ldg(d.par[kind] + 3 * m + i);
			u = fek_mm_pair_eval(r1, p, d.eps_r, ucoul, fa, va);
		}
		add_forces(d.f, at, 2, fa);
		break;
	case FEK_MM_ANGLE:
	case FEK_MM_UB:
		for (int a = 0; a < 3; a++)
			at[a] = __ldg(d.atoms[kind] + 3 * m + a);
		fek_vimage(&b, d.x, at[0], at[1], r1);
		fek_vimage(&b, d.x, at[2], at[1], r2);
		if (kind == FEK_MM_ANGLE) {
			for (int i = 0; i < 2; i++)
				p[i] = __ldg(d.par[kind] + 2 * m + i);
			u = fek_mm_angle_eval(r1, r2, p, fa, va);
		} else {
			for (int i = 0; i < 4; i++)
				p[i] = __ldg(d.par[kind] + 4 * m + i);
			u = fek_mm_ub_eval(r1, r2, p, fa, va);
		}
		add_forces(d.f, at, 3, fa);
		break;
	case FEK_MM_PDIH:
	case FEK_MM_PIDIH:
	case FEK_MM_RB:
	case FEK_MM_IDIH: {
		int np = kind == FEK_MM_RB ? 6 : kind == FEK_MM_IDIH ? 2 : 3;

		for (int a = 0; a < 4; a++)
			at[a] = __ldg(d.atoms[kind] + 4 * m + a);
		for (int i = 0; i < 6; i++)
			p[i] = i < np ? __ldg(d.par[kind] + np * m + i) : 0;
		fek_vimage(&b, d.x, at[1], at[0], r1);
		fek_vimage(&b, d.x, at[2], at[1], r2);
		fek_vimage(&b, d.x, at[3], at[2], r3);
		u = fek_mm_dih_eval(kind, r1, r2, r3, p, fa, va);
		add_forces(d.f, at, 4, fa);
		break;
	}
	}
	return u;
}

/* The energy term of kind (BOND .. PAIR; PAIR's LJ-14). */
static __device__ __forceinline__ int
bonded_term(int kind)
{
	switch (kind) {
	case FEK_MM_BOND:	return FEK_MM_E_BOND;
	case FEK_MM_ANGLE:	return FEK_MM_E_ANGLE;
	case FEK_MM_UB:		return FEK_MM_E_UB;
	case FEK_MM_PDIH:	return FEK_MM_E_PDIH;
	case FEK_MM_PIDIH:	return FEK_MM_E_PIDIH;
	case FEK_MM_RB:		return FEK_MM_E_RB;
	case FEK_MM_IDIH:	return FEK_MM_E_IDIH;
	default:		return FEK_MM_E_LJ14;
	}
}

/*
 * A thread an interaction of the segments sg (blocks of BONDED_BLOCK
 * threads): forces to d.f, energies and virial to d.acc (see the top of
 * the file).
 */
static __global__ void __launch_bounds__(BONDED_BLOCK)
k_bonded(struct mm_dev d, struct fek_box b, struct bonded_segs sg)
{
	__shared__ unsigned long long sacc[MM_NACC];
	long t = (long)blockIdx.x * blockDim.x + threadIdx.x, m = 0;
	double u = 0, uc = 0, va[9];
	int kind = -1;

	if (threadIdx.x < MM_NACC)
		sacc[threadIdx.x] = 0;
#pragma unroll
	for (int s = 0; s < NBKIND; s++)	/* unrolled: sg stays in the
						   parameter space */
		if (s < sg.nseg && t >= sg.start[s] && t < sg.start[s + 1]) {
			kind = sg.kind[s];
			m = t - sg.start[s];
		}
	for (int c = 0; c < 9; c++)
		va[c] = 0;
	if (kind >= 0 && m < d.nil[kind])
		u = bonded_one(d, b, kind, m, &uc, va);
	__syncthreads();
	if (kind >= 0) {		/* the same in the whole warp */
		warp_acc(sacc + MM_ACC_E + bonded_term(kind), mm_fix(u));
		if (kind == FEK_MM_PAIR)
			warp_acc(sacc + MM_ACC_E + FEK_MM_E_COUL14,
			    mm_fix(uc));
		for (int c = 0; c < 9; c++)
			warp_acc(sacc + MM_ACC_VIR + c, mm_fix(va[c]));
	}
	__syncthreads();
	if (threadIdx.x < MM_NACC && sacc[threadIdx.x] != 0)
		atomicAdd(d.acc + threadIdx.x, sacc[threadIdx.x]);
}

/*
 * mm_bonded_launch: kernels/mm/mm_int.cuh.  Every kind BOND .. PAIR of d (those
 * with interactions) in one launch of k_bonded on the default stream, eps_r
 * of d for the pairs; forces added to d->f, the energies to d->acc's
 * terms E_BOND .. E_IDIH, E_LJ14 and E_COUL14, the virial to its virial.
 * 0, or -1 with fek_seterr(70).
 */
int
mm_bonded_launch(const struct mm_dev *d, const struct fek_box *b)
{
	struct bonded_segs sg;
	long total = 0, nblk;

	memset(&sg, 0, sizeof(sg));
	for (int k = FEK_MM_BOND; k <= FEK_MM_PAIR; k++) {
		if (d->nil[k] <= 0)
			continue;
		sg.kind[sg.nseg] = k;
		sg.start[sg.nseg++] = total;
		total += (d->nil[k] + 31) / 32 * 32;
	}
	sg.start[sg.nseg] = total;
	if (total == 0)
		return 0;
	nblk = (total + BONDED_BLOCK - 1) / BONDED_BLOCK;
	if (nblk > INT_MAX)
		return fek_seterr(FEK_EX_SOFTWARE, "CUDA: k_bonded: %ld "
		    "interactions: too many for one launch", total);
	k_bonded<<<(unsigned)nblk, BONDED_BLOCK>>>(*d, *b, sg);
	return fek_cuda_launched("k_bonded");
}

/* ---- virtual sites ------------------------------------------------------ */

/* Site m of d placed from its atoms (d.x). */
static __device__ __forceinline__ void
vsite_place_one(const struct mm_dev &d, const struct fek_box &b, long m)
{
	const int *at = d.atoms[FEK_MM_VSITE3] + 4 * m;
	int s = at[0], i = at[1], j = at[2], k = at[3];
	double dji[3], dki[3], p[2];

	p[0] = __ldg(d.par[FEK_MM_VSITE3] + 2 * m);
	p[1] = __ldg(d.par[FEK_MM_VSITE3] + 2 * m + 1);
	fek_vimage(&b, d.x, j, i, dji);
	fek_vimage(&b, d.x, k, i, dki);
	fek_mm_vsite3_place(d.x + 3L * i, dji, dki, p, d.x + 3L * s);
}

/* A thread a site; all independent (not d.vsite_serial). */
static __global__ void __launch_bounds__(VSITE_BLOCK)
k_vsite_place(struct mm_dev d, struct fek_box b)
{
	long m = (long)blockIdx.x * blockDim.x + threadIdx.x;

	if (m < d.nil[FEK_MM_VSITE3])
		vsite_place_one(d, b, m);
}

/* One thread, every site in list order (d.vsite_serial). */
static __global__ void
k_vsite_place_serial(struct mm_dev d, struct fek_box b)
{
	for (long m = 0; m < d.nil[FEK_MM_VSITE3]; m++)
		vsite_place_one(d, b, m);
}

/*
 * Site m of d: its force moved from its accumulator onto its atoms (see
 * the top of the file), its virial correction into vfix (9, fixed
 * point, overwritten).
 */
static __device__ __forceinline__ void
vsite_spread_one(const struct mm_dev &d, const struct fek_box &b, long m,
    unsigned long long *vfix)
{
	const int *at = d.atoms[FEK_MM_VSITE3] + 4 * m;
	int s = at[0], i = at[1], j = at[2], k = at[3];
	unsigned long long raw[3], fj, fk;
	double fs[3], fa[3][3], p[2], dji[3], dki[3], dsi[3], va[9];

	p[0] = __ldg(d.par[FEK_MM_VSITE3] + 2 * m);
	p[1] = __ldg(d.par[FEK_MM_VSITE3] + 2 * m + 1);
	for (int c = 0; c < 3; c++) {
		raw[c] = atomicExch(d.f + 3L * s + c, 0ULL);
		fs[c] = mm_acc_value(raw[c]);
	}
	fek_mm_vsite3_spread(fs, p, fa);
	for (int c = 0; c < 3; c++) {
		fj = mm_fix(fa[1][c]);
		fk = mm_fix(fa[2][c]);
		atomicAdd(d.f + 3L * i + c, raw[c] - fj - fk);
		atomicAdd(d.f + 3L * j + c, fj);
		atomicAdd(d.f + 3L * k + c, fk);
	}
	fek_vimage(&b, d.x, j, i, dji);
	fek_vimage(&b, d.x, k, i, dki);
	fek_vimage(&b, d.x, s, i, dsi);
	fek_mm_vsite3_virial(dji, dki, dsi, p, fs, va);
	for (int c = 0; c < 9; c++)
		vfix[c] = mm_fix(va[c]);
}

/* A thread a site; all independent (not d.vsite_serial). */
static __global__ void __launch_bounds__(VSITE_BLOCK)
k_vsite_spread(struct mm_dev d, struct fek_box b)
{
	__shared__ unsigned long long sacc[9];
	long m = (long)blockIdx.x * blockDim.x + threadIdx.x;
	unsigned long long vfix[9];

	if (threadIdx.x < 9)
		sacc[threadIdx.x] = 0;
	for (int c = 0; c < 9; c++)
		vfix[c] = 0;
	if (m < d.nil[FEK_MM_VSITE3])
		vsite_spread_one(d, b, m, vfix);
	__syncthreads();
	for (int c = 0; c < 9; c++)
		warp_acc(sacc + c, vfix[c]);
	__syncthreads();
	if (threadIdx.x < 9 && sacc[threadIdx.x] != 0)
		atomicAdd(d.acc + MM_ACC_VIR + threadIdx.x, sacc[threadIdx.x]);
}

/* One thread, every site in reverse list order (d.vsite_serial). */
static __global__ void
k_vsite_spread_serial(struct mm_dev d, struct fek_box b)
{
	unsigned long long vfix[9], vsum[9];

	for (int c = 0; c < 9; c++)
		vsum[c] = 0;
	for (long m = d.nil[FEK_MM_VSITE3] - 1; m >= 0; m--) {
		vsite_spread_one(d, b, m, vfix);
		for (int c = 0; c < 9; c++)
			vsum[c] += vfix[c];
	}
	for (int c = 0; c < 9; c++)
		if (vsum[c] != 0)
			atomicAdd(d.acc + MM_ACC_VIR + c, vsum[c]);
}

/*
 * mm_vsite_place_launch: kernels/mm/mm_int.cuh.  Every FEK_MM_VSITE3 site of d
 * put at x_i + a d_ji + b d_ki (d->x, minimum images in b), as
 * fek_mm_vsite_place; a thread a site, or with d->vsite_serial one
 * thread in list order.  0, or -1 with fek_seterr(70).
 */
int
mm_vsite_place_launch(const struct mm_dev *d, const struct fek_box *b)
{
	long n = d->nil[FEK_MM_VSITE3];

	if (n <= 0)
		return 0;
	if (d->vsite_serial)
		k_vsite_place_serial<<<1, 1>>>(*d, *b);
	else
		k_vsite_place<<<(unsigned)((n + VSITE_BLOCK - 1) /
		    VSITE_BLOCK), VSITE_BLOCK>>>(*d, *b);
	return fek_cuda_launched("k_vsite_place");
}

/*
 * mm_vsite_spread_launch: kernels/mm/mm_int.cuh.  Every FEK_MM_VSITE3 site's
 * force (d->f) moved onto its atoms, the site's accumulators left at exactly 0,
 * and the correction dXi (vsite_eval.h) added to d->acc's virial, as
 * fek_mm_vsite_spread; a thread a site, or with d->vsite_serial one
 * thread in reverse list order.  To run after every part that adds
 * forces.  0, or -1 with fek_seterr(70).
 */
int
mm_vsite_spread_launch(const struct mm_dev *d, const struct fek_box *b)
{
	long n = d->nil[FEK_MM_VSITE3];

	if (n <= 0)
		return 0;
	if (d->vsite_serial)
		k_vsite_spread_serial<<<1, 1>>>(*d, *b);
	else
		k_vsite_spread<<<(unsigned)((n + VSITE_BLOCK - 1) /
		    VSITE_BLOCK), VSITE_BLOCK>>>(*d, *b);
	return fek_cuda_launched("k_vsite_spread");
}

/*
 * mm_vsite_serial: kernels/mm/mm_int.cuh.  1 when some FEK_MM_VSITE3 site of t
 * is built from a site (one of its atoms i, j, k is a site of the list) or
 * is listed twice, so that the sites are not independent and must be
 * done in list order by one thread; else 0.  Also 1 when the host runs
 * out of memory for the check (the serial path is right for any list).
 */
int
mm_vsite_serial(const struct fek_mm_top *t)
{
	const struct fek_mm_ilist *il = &t->il[FEK_MM_VSITE3];
	unsigned char *site;
	int serial = 0;

	if (il->n == 0)
		return 0;
	if ((site = (unsigned char *)calloc(t->n, 1)) == NULL)
		return 1;
	for (long m = 0; m < il->n && !serial; m++) {
		int s = il->atoms[4 * m];

		serial = site[s];
		site[s] = 1;
	}
	for (long m = 0; m < il->n && !serial; m++)
		for (int a = 1; a < 4; a++)
			if (site[il->atoms[4 * m + a]])
				serial = 1;
	free(site);
	return serial;
}
