/*
 * run.cu - md-gpu's particle engine on the GPU (lib/pmd/pmd_gpu.h): the steps
 * of lib/pmd/run.c for a batch of boxes, with the arithmetic of
 * lib/pmd/pmd_eval.h (cells, pair potentials, Philox, the integrators and
 * the Nose-Hoover chain), in double precision throughout.
 *
 * Design (after HOOMD-blue's neighbour lists and OpenMM's CUDA platform;
 * Anderson, Lorenz and Travesset 2008; Eastman et al. 2017):
 *  - particles of every box in one array (box b's particle i at b n + i),
 *    positions and velocities as four doubles (w: the type), forces too
 *    (w: the particle's half of its pairs' energies);
 *  - full neighbour rows (each pair in both rows), so that a particle's
 *    force is summed by its own threads with no atomics: TPP threads a
 *    particle stride along its row and combine by warp shuffles; the
 *    last half kick is done there too;
 *  - lists rebuilt without a host round trip: the first-half kernel flags
 *    a box where a particle moved more than skin/2 since the build, and
 *    the three rebuild kernels (bin into cells, sort each cell by index,
 *    build the rows through the cell stencil, or all pairs in a box under
 *    3 cells wide, TPP lanes a particle appending their hits in order)
 *    run every step and return at once for unflagged boxes; the forces
 *    kernel clears the flags and cell counts after a build.  The cells
 *    hold single-precision copies of the positions (the list's distance
 *    test allows for their rounding), read in order, and are sorted so
 *    that the rows' order, hence the sums, do not depend on the order
 *    atomics bin the particles: a run gives the same bits every time;
 *  - sums over a box (2K, energy, virial) per block in a fixed tree, then
 *    per box in a fixed order (k_box_end), where the Nose-Hoover chain's
 *    two half steps are done; velocities take the end-of-step factor s1
 *    and the next start's s2 in the next first-half kernel, as (v s1) s2,
 *    the CPU's two multiplications;
 *  - the host syncs only at events (log rows, frames, volume moves,
 *    checkpoints) and every CHUNK steps; a list row or cell that
 *    overflowed in a chunk is grown and the chunk replayed from a copy of
 *    the state at its start (the random numbers depend on the step, so
 *    the replay is the run that would have been).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

/* Random123's philox.h is C++ here: outside the extern "C" block. */
#include "pmd/pmd_eval.h"
extern "C" {
#include "core/fek.h"
#include "pmd/pmd.h"
}
#include "particles/boxf.cuh"
#include "core/cuda_check.cuh"
#include "pmd/pmd_gpu.h"

#define CHUNK 200		/* steps between checks, at most */

/* Four doubles, 32-byte aligned (CUDA 13's name for what double4 was). */
typedef double4_32a dbl4;
#define make_dbl4 make_double4_32a
#define BLOCK 128		/* threads a block */
#define BOXB 512		/* threads of a box's sums (k_box_end) */
#define NLB 256			/* threads of a cell's list build */
#define NLTPP 8			/* lanes a particle in the list build */
#define STYLE_LJ_FSHIFT 2	/* k_forces: LJ with the force shifted */

/* What every kernel is told. */
struct kpar {
	long n;				/* particles a box */
	int nbox, ntypes, style;
	long maxnb;			/* row length */
	int maxpc;			/* cell capacity */
	int nblkbox;			/* force blocks a box */
	double dt, hdt, c1, skinq, rl2;
	float rl2f;			/* the list's test in single precision */
	double hdtm[FEK_PMD_MAXTYPES], c2[FEK_PMD_MAXTYPES];
	double mass[FEK_PMD_MAXTYPES];
	uint64_t key;
};

/* A box's sums and the Nose-Hoover factors, per box. */
struct boxstate {
	double twoK;			/* after the end half (or raw) */
	double U, W;			/* pair energy, virial */
	double s1, s2;			/* velocity factors pending */
};

/* ---- kernels ------------------------------------------------------------ */

__device__ static int
cell_of(const struct fek_box *bx, const double *r, int4 cg)
{
	double f[3];
	int c[3], nc[3] = { cg.x, cg.y, cg.z };

	fek_box_frac(bx, r, f);
	for (int d = 0; d < 3; d++) {
		f[d] -= floor(f[d]);
		c[d] = (int)(f[d] * nc[d]);
		if (c[d] >= nc[d])
			c[d] = nc[d] - 1;
	}
	return (c[2] * nc[1] + c[1]) * nc[0] + c[0];
}

/* Steps 1-2 of lib/pmd/run.c and the stale check. */
template <int INTEG>
__global__ void
k_first_half(struct kpar p, dbl4 *pos, dbl4 *vel, const dbl4 *frc,
    const dbl4 *xref, const struct fek_box *box,
    const struct boxstate *bs, int *flag, long long step)
{
	long g = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (g >= p.n * p.nbox)
		return;
	int b = (int)(g / p.n), i = (int)(g % p.n);
	dbl4 r = pos[g], v = vel[g], f = frc[g], q = xref[g];
	int t = (int)r.w;
	struct fek_box bx = box[b];
	double x[3] = { r.x, r.y, r.z }, vv[3] = { v.x, v.y, v.z };
	double ff[3] = { f.x, f.y, f.z }, d[3];

	if (INTEG == FEK_PMD_NHC) {
		double a = bs[b].s1, c = bs[b].s2;

		for (int k = 0; k < 3; k++)
			vv[k] = (vv[k] * a) * c;
	}
	if (INTEG == FEK_PMD_BAOAB) {
		double z[4];

		fek_rng_normals4(p.key, (uint32_t)i, (uint32_t)b,
		    (uint64_t)step, FEK_RNG_LANGEVIN, 0, z);
		fek_pmd_baoab_first(x, vv, ff, p.hdtm[t], p.hdt, p.c1, p.c2[t],
		    z);
	} else
		fek_pmd_verlet_first(x, vv, ff, p.hdtm[t], p.dt);
	fek_box_wrap(&bx, x);
	d[0] = x[0] - q.x;
	d[1] = x[1] - q.y;
	d[2] = x[2] - q.z;
	fek_box_minimage(&bx, d);
	if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > p.skinq)
		flag[b] = 1;
	pos[g] = make_dbl4(x[0], x[1], x[2], r.w);
	vel[g] = make_dbl4(vv[0], vv[1], vv[2], v.w);
}

/* The rebuild.  flag[b]: 0 nothing, 1 from the positions now, 2 from the
 * reference positions already there.  In a box of cells each particle's
 * count starts at 0: k_nlist_cells writes the counts of the particles a
 * cell holds, and one that a full cell left out (ovf 2: the chunk is
 * replayed) would otherwise keep a count that is stale, or never written
 * where the lists were just allocated, which k_forces then reads (found by
 * compute-sanitizer's initcheck on gpu-pmd.sh's replay). */
__global__ void
k_cells_bin(struct kpar p, const dbl4 *pos, dbl4 *xref,
    const struct fek_box *box, struct fek_box *boxref, const int4 *cgrid,
    int *ccount, float4 *cbin, int *cnt, const int *flag, int *ovf,
    int *maxcell)
{
	long g = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (g >= p.n * p.nbox)
		return;
	int b = (int)(g / p.n), i = (int)(g % p.n), fl = flag[b];

	if (fl == 0)
		return;
	dbl4 r = fl == 1 ? pos[g] : xref[g];
	struct fek_box bx = fl == 1 ? box[b] : boxref[b];
	int4 cg = cgrid[b];

	if (fl == 1) {
		xref[g] = r;
		if (i == 0)
			boxref[b] = bx;
	}
	if (cg.x == 0)
		return;
	cnt[g] = 0;
	double x[3] = { r.x, r.y, r.z };
	int c = cg.w + cell_of(&bx, x, make_int4(cg.x, cg.y, cg.z, 0));
	int slot = atomicAdd(&ccount[c], 1);

	if (slot < p.maxpc)
		cbin[(long)c * p.maxpc + slot] = make_float4((float)r.x,
		    (float)r.y, (float)r.z, __int_as_float(i));
	else {
		atomicOr(ovf, 2);
		atomicMax(maxcell, slot + 1);
	}
}

/* Each cell's particles in increasing order: a warp a cell, each entry's
 * rank counted against the others (no two particles share an index),
 * from the binned copy cbin into cell. */
__global__ void
k_cells_sort(struct kpar p, const int4 *cgrid, const int *ccount,
    const float4 *cbin, float4 *cell, const int *flag)
{
	int b = blockIdx.y, lane = threadIdx.x % 32;
	int4 cg = cgrid[b];
	int nc = cg.x * cg.y * cg.z;
	int warps = gridDim.x * (blockDim.x / 32);

	if (!flag[b])
		return;
	for (int c = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; c < nc;
	    c += warps) {
		long base = (long)(cg.w + c) * p.maxpc;
		int m = min(ccount[cg.w + c], p.maxpc);

		for (int k = lane; k < m; k += 32) {
			float4 e = cbin[base + k];
			int rank = 0, me = __float_as_int(e.w);

			for (int l = 0; l < m; l++)
				rank += __float_as_int(cbin[base + l].w) < me;
			cell[base + rank] = e;
		}
	}
}

/* One candidate per lane of a particle's TPP lanes: the hits are
 * appended in the lanes' order (a ballot and a prefix count), so the row
 * is the sequential scan's, whatever TPP. */
template <int TPP>
__device__ static void
append_hits(bool hit, int j, int lane, unsigned gmask, int gbase, int *row,
    long maxnb, long *m)
{
	unsigned bal = (__ballot_sync(gmask, hit) >> gbase) &
	    (TPP == 32 ? 0xffffffffu : (1u << TPP) - 1);
	long at = *m + __popc(bal & ((1u << lane) - 1));

	if (hit && at < maxnb)
		row[at] = j;
	*m += __popc(bal);
}

/* |r - q|^2 of the minimum image, in single precision (the list's test;
 * its threshold p.rl2f covers the rounding). */
__device__ static float
dist2f(const struct fek_boxf *b, float4 r, float4 q)
{
	float d[3] = { r.x - q.x, r.y - q.y, r.z - q.z };

	fek_minimagef(b, d);
	return d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
}

/* The rows of a box under 3 cells wide: every other particle of the box,
 * TPP lanes a particle (the forces' mapping). */
template <int TPP>
__global__ void __launch_bounds__(BLOCK)
k_nlist_all(struct kpar p, const dbl4 *xref, const struct fek_box *boxref,
    const int4 *cgrid, int *nb, int *cnt, const int *flag, int *ovf,
    int *maxcnt, unsigned long long *nbuild)
{
	int b = blockIdx.x / p.nblkbox, blk = blockIdx.x % p.nblkbox;
	int lane = threadIdx.x % TPP, gbase = (threadIdx.x % 32) / TPP * TPP;
	unsigned gmask = (TPP == 32 ? 0xffffffffu : (1u << TPP) - 1) << gbase;

	if (!flag[b] || cgrid[b].x != 0)
		return;
	if (blk == 0 && threadIdx.x == 0)
		atomicAdd(nbuild, 1ULL);
	const struct fek_boxf bx = fek_box_single(&boxref[b]);
	const dbl4 *xb = xref + (long)b * p.n;

	for (long base = (long)blk * (BLOCK / TPP); base < p.n; base +=
	    (long)p.nblkbox * (BLOCK / TPP)) {
		long i = base + threadIdx.x / TPP, g = (long)b * p.n + i;
		long m = 0;
		int *row = nb + g * p.maxnb;

		if (i >= p.n)
			continue;
		dbl4 r = xb[i];
		float4 rf = make_float4((float)r.x, (float)r.y, (float)r.z, 0);

		for (int jb = 0; jb < p.n; jb += TPP) {
			int j = jb + lane;
			bool hit = false;

			if (j < p.n && j != i) {
				dbl4 q = xb[j];

				hit = dist2f(&bx, rf, make_float4((float)q.x,
				    (float)q.y, (float)q.z, 0)) < p.rl2f;
			}
			append_hits<TPP>(hit, j, lane, gmask, gbase, row,
			    p.maxnb, &m);
		}
		if (lane == 0) {
			cnt[g] = (int)(m < p.maxnb ? m : p.maxnb);
			if (m > p.maxnb) {
				atomicOr(ovf, 1);
				atomicMax(maxcnt, (int)m);
			}
		}
	}
}

/* The rows of the particles of one cell (a block a cell, blockIdx.y the
 * box): the 27 cells of the stencil (cells at least rl wide) are copied
 * to shared memory once, in stencil order, and every particle of the home
 * cell scans that copy with TPP lanes, so each cell's positions are read
 * from memory once for all of its particles rather than once each. */
template <int TPP>
__global__ void __launch_bounds__(NLB)
k_nlist_cells(struct kpar p, const struct fek_box *boxref,
    const int4 *cgrid, const int *ccount, const float4 *cell, int *nb,
    int *cnt, const int *flag, int *ovf, int *maxcnt,
    unsigned long long *nbuild)
{
	extern __shared__ float4 cand[];
	__shared__ int off[28], cid[27];
	__shared__ float4 shift[27];
	int b = blockIdx.y, lane = threadIdx.x % TPP;
	int gbase = (threadIdx.x % 32) / TPP * TPP;
	unsigned gmask = (TPP == 32 ? 0xffffffffu : (1u << TPP) - 1) << gbase;
	const int4 cg = cgrid[b];
	const int nx = cg.x, ny = cg.y, nz = cg.z;
	const int c = blockIdx.x;

	if (!flag[b] || nx == 0 || c >= nx * ny * nz)
		return;
	if (c == 0 && threadIdx.x == 0)
		atomicAdd(nbuild, 1ULL);
	const int cx = c % nx, cy = c / nx % ny, cz = c / (nx * ny);

	/* the stencil's 27 cells (dz, dy, dx from -1 to 1; the home cell is
	 * the 14th): counts by the first warp, offsets by its scan, then
	 * the copy by the whole block, each position moved by the lattice
	 * vectors that bring a cell across the box's faces next to the home
	 * cell (no minimum image per pair afterwards) */
	if (threadIdx.x < 32) {
		int k = threadIdx.x, ne = 0, t;

		if (k < 27) {
			int dz = k / 9 - 1, dy = k / 3 % 3 - 1, dx = k % 3 - 1;
			int ux = cx + dx, uy = cy + dy, uz = cz + dz;
			int wx = ux < 0 ? -1 : ux >= nx, wy = uy < 0 ? -1 :
			    uy >= ny, wz = uz < 0 ? -1 : uz >= nz;
			int e = cg.w + (((uz + nz) % nz) * ny + (uy + ny) %
			    ny) * nx + (ux + nx) % nx;
			const struct fek_box *B = &boxref[b];

			ne = min(ccount[e], p.maxpc);
			cid[k] = e;
			shift[k] = make_float4((float)(wx * B->lx + wy * B->xy +
			    wz * B->xz), (float)(wy * B->ly + wz * B->yz),
			    (float)(wz * B->lz), 0);
		}
		t = ne;
		for (int o = 1; o < 32; o <<= 1) {
			int v = __shfl_up_sync(0xffffffffu, t, o);

			if (k >= o)
				t += v;
		}
		if (k < 27)
			off[k] = t - ne;
		if (k == 26)
			off[27] = t;
	}
	__syncthreads();
	for (int q = threadIdx.x; q < off[27]; q += NLB) {
		int k = 0;

		while (off[k + 1] <= q)
			k++;
		float4 e = cell[(long)cid[k] * p.maxpc + q - off[k]];

		cand[q] = make_float4(e.x + shift[k].x, e.y + shift[k].y,
		    e.z + shift[k].z, e.w);
	}
	__syncthreads();
	const int h0 = off[13], nh = off[14] - off[13], nc = off[27];

	for (int hb = 0; hb < nh; hb += NLB / TPP) {
		int hi = hb + threadIdx.x / TPP;
		long m = 0;

		if (hi >= nh)
			continue;
		float4 rf = cand[h0 + hi];
		int i = __float_as_int(rf.w);
		long g = (long)b * p.n + i;
		int *row = nb + g * p.maxnb;

#pragma unroll 4
		for (int kb = 0; kb < nc; kb += TPP) {
			int k = kb + lane, j = -1;
			bool hit = false;

			if (k < nc) {
				float4 q = cand[k];
				float dx = rf.x - q.x, dy = rf.y - q.y;
				float dz = rf.z - q.z;

				j = __float_as_int(q.w);
				hit = j != i && dx * dx + dy * dy + dz * dz <
				    p.rl2f;
			}
			append_hits<TPP>(hit, j, lane, gmask, gbase, row,
			    p.maxnb, &m);
		}
		if (lane == 0) {
			cnt[g] = (int)(m < p.maxnb ? m : p.maxnb);
			if (m > p.maxnb) {
				atomicOr(ovf, 1);
				atomicMax(maxcnt, (int)m);
			}
		}
	}
}

/* A block's sum of v in a fixed order (every thread gets it). */
__device__ static double
block_sum(double v, double *sh)
{
	sh[threadIdx.x] = v;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			sh[threadIdx.x] += sh[threadIdx.x + s];
		__syncthreads();
	}
	v = sh[0];
	__syncthreads();
	return v;
}

/* Forces (step 4) and the last half kick (step 5): TPP threads a
 * particle, the box's particles in passes of the box's nblkbox blocks;
 * the block's 2K, energy and virial into part[3 block].  Where the box's
 * list was rebuilt (flag), the flag and the cell counts are cleared for
 * the next build (the rebuild kernels are done with them). */
template <int TPP, bool ENERGY, bool KICK, int STYLE>
__global__ void __launch_bounds__(BLOCK)
k_forces(struct kpar p, const dbl4 *pos, dbl4 *vel, dbl4 *frc,
    const int *nb, const int *cnt, const struct fek_box *box,
    const struct fek_pair_coef *coef, const double *tab, double *part,
    int *flag, unsigned *fdone, const int4 *cgrid, int *ccount, int *ovf)
{
	extern __shared__ struct fek_pair_coef sc[];	/* ntypes^2 */
	__shared__ double sh[BLOCK];
	int nt = p.ntypes, lane = threadIdx.x % TPP, low = 0;
	int b = blockIdx.x / p.nblkbox, blk = blockIdx.x % p.nblkbox;
	const struct fek_box bx = box[b];
	const dbl4 *pb = pos + (long)b * p.n;
	double ue = 0, uw = 0, k2 = 0;

	for (int k = threadIdx.x; k < nt * nt; k += blockDim.x)
		sc[k] = coef[(k / nt) * FEK_PMD_MAXTYPES + k % nt];
	if (flag && flag[b]) {
		int4 cg = cgrid[b];
		int nc = cg.x * cg.y * cg.z;

		__syncthreads();
		for (int c = blk * blockDim.x + threadIdx.x; c < nc; c +=
		    p.nblkbox * blockDim.x)
			ccount[cg.w + c] = 0;
		/* the flag is cleared by the box's last block to have read
		 * it: cleared by any earlier one, a block that starts later
		 * would leave its share of the counts standing (the next
		 * build would then bin on top of them) */
		__syncthreads();
		if (threadIdx.x == 0 && atomicAdd(&fdone[b], 1u) ==
		    (unsigned)p.nblkbox - 1) {
			fdone[b] = 0;
			flag[b] = 0;
		}
	}
	__syncthreads();
	for (long base = (long)blk * (BLOCK / TPP); base < p.n; base +=
	    (long)p.nblkbox * (BLOCK / TPP)) {
		long i = base + threadIdx.x / TPP, g = (long)b * p.n + i;
		bool active = i < p.n;
		double fx = 0, fy = 0, fz = 0, pe = 0, pw = 0;

		if (active) {
			dbl4 r = pos[g];
			int ti = (int)r.w, m = cnt[g];
			const int *row = nb + g * p.maxnb;
			const struct fek_pair_coef *ci = sc + ti * nt;

			for (int k = lane; k < m; k += TPP) {
				dbl4 q = pb[row[k]];
				double d[3] = { r.x - q.x, r.y - q.y, r.z - q.z };
				const struct fek_pair_coef *c = ci + (int)q.w;
				double r2, fr, u;

				fek_box_minimage(&bx, d);
				r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
				if (r2 >= c->rc2)
					continue;
				if (STYLE == FEK_PAIR_TABLE)
					u = fek_pair_table(c, tab, r2, &fr, &low);
				else if (STYLE == STYLE_LJ_FSHIFT)
					u = fek_pair_lj(c, r2, &fr);
				else {
					/* fek_pair_lj without the force shift */
					double ir2 = 1.0 / r2, ir6 = ir2 * ir2 *
					    ir2;

					fr = (12.0 * c->c12 * ir6 - 6.0 * c->c6) *
					    ir6 * ir2;
					u = (c->c12 * ir6 - c->c6) * ir6 -
					    c->ushift;
				}
				fx += fr * d[0];
				fy += fr * d[1];
				fz += fr * d[2];
				if (ENERGY) {
					pe += u;
					pw += fr * r2;
				}
			}
		}
		for (int off = TPP / 2; off > 0; off >>= 1) {
			fx += __shfl_down_sync(0xffffffffu, fx, off, TPP);
			fy += __shfl_down_sync(0xffffffffu, fy, off, TPP);
			fz += __shfl_down_sync(0xffffffffu, fz, off, TPP);
			if (ENERGY) {
				pe += __shfl_down_sync(0xffffffffu, pe, off,
				    TPP);
				pw += __shfl_down_sync(0xffffffffu, pw, off,
				    TPP);
			}
		}
		if (active && lane == 0) {
			frc[g] = make_dbl4(fx, fy, fz, 0.5 * pe);
			if (KICK) {
				dbl4 v = vel[g];
				int t = (int)v.w;
				double h = p.hdtm[t];

				v.x += h * fx;
				v.y += h * fy;
				v.z += h * fz;
				vel[g] = v;
				k2 += p.mass[t] * (v.x * v.x + v.y * v.y + v.z *
				    v.z);
			}
			ue += 0.5 * pe;
			uw += 0.5 * pw;
		}
	}
	if (low)
		atomicOr(ovf, 4);
	k2 = block_sum(k2, sh);
	if (ENERGY) {
		ue = block_sum(ue, sh);
		uw = block_sum(uw, sh);
	}
	if (threadIdx.x == 0) {
		part[3 * blockIdx.x] = k2;
		part[3 * blockIdx.x + 1] = ENERGY ? ue : 0;
		part[3 * blockIdx.x + 2] = ENERGY ? uw : 0;
	}
}

/* A box's sums (the blocks' partials in a fixed order) and the chain's
 * two half steps.  mode 0: the start (2K given, no end half); 1: a step's
 * end; 2: energies only (a trial volume). */
__global__ void __launch_bounds__(BOXB)
k_box_end(struct kpar p, const double *part, struct boxstate *bs,
    struct fek_nhc *nhc, struct fek_nhc *nhc_mid, struct fek_nhc_par np,
    int mode, int nhc_on)
{
	__shared__ double sh[BOXB];
	int b = blockIdx.x;
	double a[3] = { 0, 0, 0 };

	for (int k = threadIdx.x; k < p.nblkbox; k += blockDim.x)
		for (int q = 0; q < 3; q++)
			a[q] += part[3 * ((long)b * p.nblkbox + k) + q];
	for (int q = 0; q < 3; q++)
		a[q] = block_sum(a[q], sh);
	if (threadIdx.x != 0)
		return;
	struct boxstate s = bs[b];

	if (mode == 2) {
		s.U = a[1];
		s.W = a[2];
		bs[b] = s;
		return;
	}
	if (mode == 1) {
		s.U = a[1];
		s.W = a[2];
		s.twoK = a[0];
	}
	s.s1 = s.s2 = 1;
	if (nhc_on) {
		struct fek_nhc c = nhc[b];
		double k2;

		if (mode == 1) {
			s.s1 = fek_nhc_half(&np, &c, s.twoK, p.hdt, &k2);
			s.twoK = k2;
		}
		nhc_mid[b] = c;
		s.s2 = fek_nhc_half(&np, &c, s.twoK, p.hdt, &k2);
		nhc[b] = c;
	}
	bs[b] = s;
}

/* Volume moves: box b's positions scaled by sc[b] (0: untouched), the
 * state kept for a restore; or put back where back[b]. */
__global__ void
k_baro_scale(struct kpar p, dbl4 *pos, const dbl4 *frc,
    const dbl4 *xref, struct fek_box *box, const struct fek_box *boxref,
    dbl4 *spos, dbl4 *sfrc, dbl4 *sxref, struct fek_box *sbox,
    const double *sc, int *flag)
{
	long g = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (g >= p.n * p.nbox)
		return;
	int b = (int)(g / p.n), i = (int)(g % p.n);
	double f = sc[b];

	if (f == 0)
		return;
	struct fek_box bx = box[b];
	dbl4 r = pos[g];

	spos[g] = r;
	sfrc[g] = frc[g];
	sxref[g] = xref[g];
	r.x = bx.lo[0] + (r.x - bx.lo[0]) * f;
	r.y = bx.lo[1] + (r.y - bx.lo[1]) * f;
	r.z = bx.lo[2] + (r.z - bx.lo[2]) * f;
	pos[g] = r;
	if (i == 0) {
		sbox[2 * b] = bx;
		sbox[2 * b + 1] = boxref[b];
		flag[b] = 1;
	}
}

__global__ void
k_baro_restore(struct kpar p, dbl4 *pos, dbl4 *frc, dbl4 *xref,
    struct fek_box *box, struct fek_box *boxref, const dbl4 *spos,
    const dbl4 *sfrc, const dbl4 *sxref, const struct fek_box *sbox,
    const int *back, int *flag)
{
	long g = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (g >= p.n * p.nbox)
		return;
	int b = (int)(g / p.n), i = (int)(g % p.n);

	if (!back[b])
		return;
	pos[g] = spos[g];
	frc[g] = sfrc[g];
	xref[g] = sxref[g];
	if (i == 0) {
		box[b] = sbox[2 * b];
		boxref[b] = sbox[2 * b + 1];
		flag[b] = 2;
	}
}

/* ---- the host ----------------------------------------------------------- */

#define CK(call, what)							\
	do {								\
		cudaError_t rc_ = (call);				\
		if (rc_ != cudaSuccess) {				\
			fek_cuda_fail(rc_, what);			\
			goto fail;					\
		}							\
	} while (0)
#define LAUNCHED(what)							\
	do {								\
		if (fek_cuda_launched(what) < 0)			\
			goto fail;					\
	} while (0)

/* Device state, and a copy of it for replays. */
struct dstate {
	dbl4 *pos, *vel, *frc, *xref;
	struct fek_box *box, *boxref;
	struct fek_nhc *nhc, *nhc_mid;
	struct boxstate *bs;
};

struct gpu {
	struct kpar p;
	int tpp, integ, need_nhc, fshift;
	long N;
	struct dstate d, snap;
	int *nb, *cnt;
	int4 *cgrid, *hcgrid;
	long ncells, cellcap;
	int nallpairs;			/* boxes searched by all pairs */
	int *ccount;
	float4 *cbin, *cell;		/* binned, then sorted: positions
					   and the index's bits */
	int *flag, *ovf, *maxcnt, *maxcell;
	unsigned *fdone;		/* a box's blocks of k_forces that
					   have read its flag (0 between) */
	unsigned long long *nbuild;	/* lists built (replays too) */
	double *part;
	struct fek_pair_coef *coef;
	double *tab;
	struct fek_nhc_par np;
	/* barostat */
	dbl4 *spos, *sfrc, *sxref;
	struct fek_box *sbox;
	double *bsc, *hbsc;
	int *bback, *hbback;
	/* host staging */
	dbl4 *h4;
	struct boxstate *hbs;
	struct fek_box *hbox;
	struct fek_nhc *hnhc;
	double rl;
};

static double
ms_since(double t0)
{
	return 1e3 * (fek_seconds() - t0);
}

static int
dstate_alloc(struct dstate *s, long N, int B)
{
	CK(cudaMalloc(&s->pos, N * sizeof(dbl4)), "cudaMalloc");
	CK(cudaMalloc(&s->vel, N * sizeof(dbl4)), "cudaMalloc");
	CK(cudaMalloc(&s->frc, N * sizeof(dbl4)), "cudaMalloc");
	CK(cudaMalloc(&s->xref, N * sizeof(dbl4)), "cudaMalloc");
	CK(cudaMalloc(&s->box, B * sizeof(struct fek_box)), "cudaMalloc");
	CK(cudaMalloc(&s->boxref, B * sizeof(struct fek_box)), "cudaMalloc");
	CK(cudaMalloc(&s->nhc, B * sizeof(struct fek_nhc)), "cudaMalloc");
	CK(cudaMalloc(&s->nhc_mid, B * sizeof(struct fek_nhc)), "cudaMalloc");
	CK(cudaMalloc(&s->bs, B * sizeof(struct boxstate)), "cudaMalloc");
	return 0;
fail:
	return -1;
}

static void
dstate_free(struct dstate *s)
{
	cudaFree(s->pos);
	cudaFree(s->vel);
	cudaFree(s->frc);
	cudaFree(s->xref);
	cudaFree(s->box);
	cudaFree(s->boxref);
	cudaFree(s->nhc);
	cudaFree(s->nhc_mid);
	cudaFree(s->bs);
}

static int
dstate_copy(struct dstate *to, const struct dstate *from, long N, int B)
{
	size_t b4 = N * sizeof(dbl4);

	CK(cudaMemcpyAsync(to->pos, from->pos, b4, cudaMemcpyDeviceToDevice),
	    "copy state");
	CK(cudaMemcpyAsync(to->vel, from->vel, b4, cudaMemcpyDeviceToDevice),
	    "copy state");
	CK(cudaMemcpyAsync(to->frc, from->frc, b4, cudaMemcpyDeviceToDevice),
	    "copy state");
	CK(cudaMemcpyAsync(to->xref, from->xref, b4,
	    cudaMemcpyDeviceToDevice), "copy state");
	CK(cudaMemcpyAsync(to->box, from->box, B * sizeof(struct fek_box),
	    cudaMemcpyDeviceToDevice), "copy state");
	CK(cudaMemcpyAsync(to->boxref, from->boxref, B *
	    sizeof(struct fek_box), cudaMemcpyDeviceToDevice), "copy state");
	CK(cudaMemcpyAsync(to->nhc, from->nhc, B * sizeof(struct fek_nhc),
	    cudaMemcpyDeviceToDevice), "copy state");
	CK(cudaMemcpyAsync(to->nhc_mid, from->nhc_mid, B *
	    sizeof(struct fek_nhc), cudaMemcpyDeviceToDevice), "copy state");
	CK(cudaMemcpyAsync(to->bs, from->bs, B * sizeof(struct boxstate),
	    cudaMemcpyDeviceToDevice), "copy state");
	return 0;
fail:
	return -1;
}

/* The cells' two position buffers for cellcap cells of maxpc. */
static int
cell_alloc(struct gpu *G)
{
	size_t sz = G->cellcap * (size_t)G->p.maxpc * sizeof(float4);

	CK(cudaMalloc(&G->cbin, sz), "cudaMalloc cells");
	CK(cudaMalloc(&G->cell, sz), "cudaMalloc cells");
	return 0;
fail:
	return -1;
}

/* The cell grids of every box (host boxes): cells of at least rl where
 * a box is 3 such cells wide, else none (all pairs).  Grows the cell
 * arrays (counts zero) and sets the list's test. */
static int
set_cells(struct gpu *G, const struct fek_box *boxes, long n)
{
	long off = 0, maxc = 0;
	int B = G->p.nbox;
	double lmax = 0;

	G->nallpairs = 0;
	for (int b = 0; b < B; b++) {
		double w[3];
		long nc[3];

		/* lib/pmd/nlist.c's counts: at most 2 n cells a box */
		fek_box_widths(&boxes[b], w);
		if (!fek_cell_counts(w, G->rl, n, 3, nc)) {
			nc[0] = nc[1] = nc[2] = 0;
			G->nallpairs++;
		}
		G->hcgrid[b] = make_int4((int)nc[0], (int)nc[1], (int)nc[2],
		    (int)off);
		off += nc[0] * nc[1] * nc[2];
		if (nc[0] * nc[1] * nc[2] > maxc)
			maxc = nc[0] * nc[1] * nc[2];
		lmax = fmax(lmax, fabs(boxes[b].lo[0]) + fabs(boxes[b].lo[1]) +
		    fabs(boxes[b].lo[2]) + boxes[b].lx + boxes[b].ly +
		    boxes[b].lz + fabs(boxes[b].xy) + fabs(boxes[b].xz) +
		    fabs(boxes[b].yz));
	}
	/* single-precision positions are off by lmax 2^-24 at most: a pair
	 * closer than rl is never left out */
	G->p.rl2f = (float)((G->rl + 8 * lmax * 5.9604644775390625e-8) *
	    (G->rl + 8 * lmax * 5.9604644775390625e-8));
	G->ncells = off;
	if (G->p.maxpc == 0 && maxc > 0)
		G->p.maxpc = (int)(2.0 * n / maxc + 8);
	if (off > 0 && (off > G->cellcap || G->cell == NULL)) {
		cudaFree(G->ccount);
		cudaFree(G->cbin);
		cudaFree(G->cell);
		G->cell = NULL;
		G->cellcap = off + off / 4 + 1;
		CK(cudaMalloc(&G->ccount, G->cellcap * sizeof(int)),
		    "cudaMalloc cells");
		CK(cudaMemset(G->ccount, 0, G->cellcap * sizeof(int)),
		    "cudaMemset cells");
		if (cell_alloc(G) < 0)
			goto fail;
	}
	CK(cudaMemcpy(G->cgrid, G->hcgrid, B * sizeof(int4),
	    cudaMemcpyHostToDevice), "copy cells");
	return 0;
fail:
	return -1;
}

/* The rebuild of the flagged boxes' lists: bin, sort the cells, rows.
 * The cell counts start at 0 and the forces that follow clear them (and
 * the flags) again. */
static int
launch_rebuild(struct gpu *G)
{
	long N = G->N;
	int nb = (int)((N + BLOCK - 1) / BLOCK);
	long maxcells = 0;

	for (int b = 0; b < G->p.nbox; b++) {
		long c = (long)G->hcgrid[b].x * G->hcgrid[b].y *
		    G->hcgrid[b].z;

		if (c > maxcells)
			maxcells = c;
	}
	k_cells_bin<<<nb, BLOCK>>>(G->p, G->d.pos, G->d.xref, G->d.box,
	    G->d.boxref, G->cgrid, G->ccount, G->cbin, G->cnt, G->flag,
	    G->ovf, G->maxcell);
	LAUNCHED("k_cells_bin");
	if (maxcells > 0) {
		/* a warp a cell */
		long wb = BLOCK / 32;
		dim3 gs((unsigned)((maxcells + wb - 1) / wb < 4096 ?
		    (maxcells + wb - 1) / wb : 4096), G->p.nbox);

		k_cells_sort<<<gs, BLOCK>>>(G->p, G->cgrid, G->ccount, G->cbin,
		    G->cell, G->flag);
		LAUNCHED("k_cells_sort");
	}
	{
		unsigned grid = (unsigned)(G->p.nblkbox * G->p.nbox);
		dim3 gcell((unsigned)(maxcells > 0 ? maxcells : 1), G->p.nbox);
		size_t shm = 27 * (size_t)G->p.maxpc * sizeof(float4);

#define NLIST(T) k_nlist_all<T><<<grid, BLOCK>>>(G->p, G->d.xref,	\
	    G->d.boxref, G->cgrid, G->nb, G->cnt, G->flag, G->ovf,		\
	    G->maxcnt, G->nbuild)
		if (shm > 200 * 1024)
			return fek_seterr(FEK_EX_NUMERIC, "a cell holds %d "
			    "particles: too dense a cluster for the GPU's "
			    "lists", G->p.maxpc);
		if (maxcells > 0) {
			cudaFuncSetAttribute(k_nlist_cells<NLTPP>,
			    cudaFuncAttributeMaxDynamicSharedMemorySize,
			    (int)shm);
			k_nlist_cells<NLTPP><<<gcell, NLB, shm>>>(G->p,
			    G->d.boxref, G->cgrid, G->ccount, G->cell, G->nb,
			    G->cnt, G->flag, G->ovf, G->maxcnt, G->nbuild);
			LAUNCHED("k_nlist_cells");
		}
		switch (G->nallpairs ? G->tpp : 0) {
		case 0: break;
		case 1: NLIST(1); break;
		case 2: NLIST(2); break;
		case 4: NLIST(4); break;
		case 8: NLIST(8); break;
		case 16: NLIST(16); break;
		default: NLIST(32); break;
		}
#undef NLIST
	}
	LAUNCHED("k_nlist");
	return 0;
fail:
	return -1;
}

template <int TPP, bool ENERGY, bool KICK>
static void
forces_tpp(struct gpu *G, int *flag)
{
	unsigned grid = (unsigned)(G->p.nblkbox * G->p.nbox);
	size_t shm = G->p.ntypes * G->p.ntypes * sizeof(struct fek_pair_coef);

#define FORCES(S) k_forces<TPP, ENERGY, KICK, S><<<grid, BLOCK, shm>>>(	\
	    G->p, G->d.pos, G->d.vel, G->d.frc, G->nb, G->cnt, G->d.box,	\
	    G->coef, G->tab, G->part, flag, G->fdone, G->cgrid, G->ccount,	\
	    G->ovf)
	if (G->p.style == FEK_PAIR_TABLE)
		FORCES(FEK_PAIR_TABLE);
	else if (G->fshift)
		FORCES(STYLE_LJ_FSHIFT);
	else
		FORCES(FEK_PAIR_LJ);
#undef FORCES
}

template <bool ENERGY, bool KICK>
static void
forces_e(struct gpu *G, int *flag)
{
	switch (G->tpp) {
	case 1: forces_tpp<1, ENERGY, KICK>(G, flag); break;
	case 2: forces_tpp<2, ENERGY, KICK>(G, flag); break;
	case 4: forces_tpp<4, ENERGY, KICK>(G, flag); break;
	case 8: forces_tpp<8, ENERGY, KICK>(G, flag); break;
	case 16: forces_tpp<16, ENERGY, KICK>(G, flag); break;
	default: forces_tpp<32, ENERGY, KICK>(G, flag); break;
	}
}

static int
launch_forces(struct gpu *G, int energy, int kick)
{
	if (energy && kick)
		forces_e<true, true>(G, G->flag);
	else if (kick)
		forces_e<false, true>(G, G->flag);
	else
		forces_e<true, false>(G, G->flag);
	return fek_cuda_launched("k_forces");
}

static int
launch_box_end(struct gpu *G, int mode)
{
	k_box_end<<<G->p.nbox, BOXB>>>(G->p, G->part, G->d.bs, G->d.nhc,
	    G->d.nhc_mid, G->np, mode, G->need_nhc);
	return fek_cuda_launched("k_box_end");
}

static int
launch_first_half(struct gpu *G, long long step)
{
	int nb = (int)((G->N + BLOCK - 1) / BLOCK);

	if (G->integ == FEK_PMD_BAOAB)
		k_first_half<FEK_PMD_BAOAB><<<nb, BLOCK>>>(G->p, G->d.pos,
		    G->d.vel, G->d.frc, G->d.xref, G->d.box, G->d.bs, G->flag,
		    step);
	else if (G->integ == FEK_PMD_NHC)
		k_first_half<FEK_PMD_NHC><<<nb, BLOCK>>>(G->p, G->d.pos,
		    G->d.vel, G->d.frc, G->d.xref, G->d.box, G->d.bs, G->flag,
		    step);
	else
		k_first_half<FEK_PMD_VERLET><<<nb, BLOCK>>>(G->p, G->d.pos,
		    G->d.vel, G->d.frc, G->d.xref, G->d.box, G->d.bs, G->flag,
		    step);
	return fek_cuda_launched("k_first_half");
}

static int launch_forces(struct gpu *G, int energy, int kick);

/* Set every box's flag to v (1 or 2), rebuild, and compute the forces
 * (with energies; no kick), which leaves the counts and flags clear. */
static int
rebuild_all(struct gpu *G, int v)
{
	int *h = (int *)fek_alloc(G->p.nbox, sizeof(int));

	for (int b = 0; b < G->p.nbox; b++)
		h[b] = v;
	if (cudaMemcpy(G->flag, h, G->p.nbox * sizeof(int),
	    cudaMemcpyHostToDevice) != cudaSuccess) {
		free(h);
		return fek_seterr(FEK_EX_SOFTWARE, "CUDA: copy flags");
	}
	free(h);
	if (launch_rebuild(G) < 0)
		return -1;
	return launch_forces(G, 1, 0);
}

/* Overflow after a chunk: 0 none, 1 grown (replay), -1 error. */
static int
check_overflow(struct gpu *G, long long *replays)
{
	int ovf, mc, mcell, zero = 0;

	CK(cudaMemcpy(&ovf, G->ovf, sizeof ovf, cudaMemcpyDeviceToHost),
	    "copy flags");
	if (ovf == 0)
		return 0;
	if (ovf & 4)
		return fek_seterr(FEK_EX_NUMERIC, "two particles came closer "
		    "than the pair table's first point (the step is too long, "
		    "or the table starts too far out)");
	CK(cudaMemcpy(&mc, G->maxcnt, sizeof mc, cudaMemcpyDeviceToHost),
	    "copy flags");
	CK(cudaMemcpy(&mcell, G->maxcell, sizeof mcell,
	    cudaMemcpyDeviceToHost), "copy flags");
	if (ovf & 1) {
		G->p.maxnb = (long)(1.2 * mc) + 8;
		if (G->p.maxnb > G->p.n)
			G->p.maxnb = G->p.n;
		cudaFree(G->nb);
		CK(cudaMalloc(&G->nb, G->N * G->p.maxnb * sizeof(int)),
		    "cudaMalloc lists");
	}
	if (ovf & 2) {
		G->p.maxpc = (int)(1.3 * mcell) + 4;
		cudaFree(G->cbin);
		cudaFree(G->cell);
		if (cell_alloc(G) < 0)
			goto fail;
	}
	CK(cudaMemcpy(G->ovf, &zero, sizeof zero, cudaMemcpyHostToDevice),
	    "copy flags");
	CK(cudaMemcpy(G->maxcnt, &zero, sizeof zero, cudaMemcpyHostToDevice),
	    "copy flags");
	CK(cudaMemcpy(G->maxcell, &zero, sizeof zero, cudaMemcpyHostToDevice),
	    "copy flags");
	(*replays)++;
	return 1;
fail:
	return -1;
}

/* The particles' rows of three doubles out of device four-vectors (each
 * times its box's pending s1 with scale_s1; the fourth into w_out where
 * it is wanted), and into them (the types as the fourth). */
static int
copy_down3(struct gpu *G, const dbl4 *from, double *x, double *w_out,
    int scale_s1)
{
	CK(cudaMemcpy(G->h4, from, G->N * sizeof(dbl4),
	    cudaMemcpyDeviceToHost), "copy down");
	for (long g = 0; g < G->N; g++) {
		double a = scale_s1 ? G->hbs[g / G->p.n].s1 : 1;

		x[3 * g] = G->h4[g].x * a;
		x[3 * g + 1] = G->h4[g].y * a;
		x[3 * g + 2] = G->h4[g].z * a;
		if (w_out)
			w_out[g] = G->h4[g].w;
	}
	return 0;
fail:
	return -1;
}

static int
copy_up3(struct gpu *G, const struct fek_psys *s, const double *x,
    dbl4 *to)
{
	for (long g = 0; g < G->N; g++)
		G->h4[g] = make_dbl4(x[3 * g], x[3 * g + 1], x[3 * g + 2],
		    s->type[g % s->n]);
	CK(cudaMemcpy(to, G->h4, G->N * sizeof(dbl4), cudaMemcpyHostToDevice),
	    "copy up");
	return 0;
fail:
	return -1;
}

/* The device's state into s (velocities with their pending s1). */
static int
download(struct gpu *G, struct fek_psys *s, int want_f, double *f,
    double *e)
{
	int B = G->p.nbox;

	CK(cudaMemcpy(G->hbs, G->d.bs, B * sizeof(struct boxstate),
	    cudaMemcpyDeviceToHost), "copy down");
	if (copy_down3(G, G->d.pos, s->x, NULL, 0) < 0 || copy_down3(G,
	    G->d.vel, s->v, NULL, G->need_nhc) < 0 || copy_down3(G,
	    G->d.xref, s->xref, NULL, 0) < 0 || (want_f && copy_down3(G,
	    G->d.frc, f, e, 0) < 0))
		goto fail;
	CK(cudaMemcpy(s->box, G->d.box, B * sizeof(struct fek_box),
	    cudaMemcpyDeviceToHost), "copy down");
	CK(cudaMemcpy(s->boxref, G->d.boxref, B * sizeof(struct fek_box),
	    cudaMemcpyDeviceToHost), "copy down");
	CK(cudaMemcpy(s->nhc, G->d.nhc_mid, B * sizeof(struct fek_nhc),
	    cudaMemcpyDeviceToHost), "copy down");
	for (int b = 0; b < B; b++)
		s->twoK[b] = G->hbs[b].twoK;
	s->have_ref = 1;
	return 0;
fail:
	return -1;
}

static int
upload(struct gpu *G, const struct fek_psys *s)
{
	int B = G->p.nbox;

	if (copy_up3(G, s, s->x, G->d.pos) < 0 || copy_up3(G, s, s->v,
	    G->d.vel) < 0 || copy_up3(G, s, s->xref, G->d.xref) < 0)
		goto fail;
	CK(cudaMemcpy(G->d.box, s->box, B * sizeof(struct fek_box),
	    cudaMemcpyHostToDevice), "copy up");
	CK(cudaMemcpy(G->d.boxref, s->boxref, B * sizeof(struct fek_box),
	    cudaMemcpyHostToDevice), "copy up");
	CK(cudaMemcpy(G->d.nhc, s->nhc, B * sizeof(struct fek_nhc),
	    cudaMemcpyHostToDevice), "copy up");
	CK(cudaMemcpy(G->d.nhc_mid, s->nhc, B * sizeof(struct fek_nhc),
	    cudaMemcpyHostToDevice), "copy up");
	for (int b = 0; b < B; b++) {
		memset(&G->hbs[b], 0, sizeof G->hbs[b]);
		G->hbs[b].twoK = s->twoK[b];
		G->hbs[b].s1 = G->hbs[b].s2 = 1;
	}
	CK(cudaMemcpy(G->d.bs, G->hbs, B * sizeof(struct boxstate),
	    cudaMemcpyHostToDevice), "copy up");
	return 0;
fail:
	return -1;
}

/* The threads a particle: a power of two up to a row's mean length over
 * 16 (full rows of some 100 pairs in the dense LJ liquid: 8, the fastest
 * there on an H100).  FEK_PMD_TPP overrides it. */
static int
pick_tpp(double mean_row)
{
	const char *e = getenv("FEK_PMD_TPP");
	int t = 1;

	if (e != NULL && *e) {
		if (strcmp(e, "1") && strcmp(e, "2") && strcmp(e, "4") &&
		    strcmp(e, "8") && strcmp(e, "16") && strcmp(e, "32"))
			return fek_seterr(FEK_EX_USAGE, "FEK_PMD_TPP: '%s' is "
			    "not 1, 2, 4, 8, 16 or 32", e);
		return atoi(e);
	}
	while (t < 32 && t * 16 < mean_row)
		t *= 2;
	return t;
}

static int
thermo_rows(struct gpu *G, struct fek_psys *s, const struct fek_pairpot *pp,
    const struct fek_pmd_par *par, const struct fek_pmd_sink *sink,
    long long t, double nf, const long *count)
{
	unsigned long long nbuild;

	CK(cudaMemcpy(G->hbs, G->d.bs, G->p.nbox * sizeof(struct boxstate),
	    cudaMemcpyDeviceToHost), "copy down");
	CK(cudaMemcpy(&nbuild, G->nbuild, sizeof nbuild,
	    cudaMemcpyDeviceToHost), "copy down");
	if (G->need_nhc)
		CK(cudaMemcpy(G->hnhc, G->d.nhc_mid, G->p.nbox *
		    sizeof(struct fek_nhc), cudaMemcpyDeviceToHost),
		    "copy down");
	for (int b = 0; b < G->p.nbox; b++) {
		struct fek_pmd_thermo th;

		memset(&th, 0, sizeof th);
		th.V = fek_box_volume(&G->hbox[b]);
		fek_pair_tail(pp, count, th.V, &th.Utail, &th.Ptail);
		th.K = 0.5 * G->hbs[b].twoK;
		th.U = G->hbs[b].U;
		th.W = G->hbs[b].W;
		th.T = G->hbs[b].twoK / nf;
		th.P = (G->hbs[b].twoK + th.W) / (3 * th.V) + th.Ptail;
		th.H = th.K + th.U + th.Utail;
		if (G->need_nhc)
			th.H += fek_nhc_energy(&G->np, &G->hnhc[b]);
		if (par->baro)
			th.H += par->pressure * th.V;
		th.acc = s->natt[b] ? (double)s->nacc[b] / s->natt[b] : 0;
		th.nbuild = (long long)nbuild;
		if (sink->thermo && sink->thermo(sink->ctx, t, b, &th) < 0)
			return -1;
	}
	return 0;
fail:
	return -1;
}

/* Step 7 on every box at once (lib/pmd/barostat.c decides). */
static int
volume_moves(struct gpu *G, struct fek_psys *s, const struct fek_pairpot *pp,
    const struct fek_pmd_par *par, long long t, const long *count)
{
	int B = G->p.nbox, any = 0, anyback = 0;
	struct fek_baro_move *m = (struct fek_baro_move *)fek_alloc(B,
	    sizeof *m);
	double *U0 = (double *)fek_alloc(B, sizeof(double));
	double *W0 = (double *)fek_alloc(B, sizeof(double));
	struct fek_box *old = (struct fek_box *)fek_alloc(B, sizeof *old);
	int rc = -1;

	CK(cudaMemcpy(G->hbs, G->d.bs, B * sizeof(struct boxstate),
	    cudaMemcpyDeviceToHost), "copy down");
	memcpy(old, G->hbox, B * sizeof *old);
	memcpy(s->box, G->hbox, B * sizeof *old);
	for (int b = 0; b < B; b++) {
		U0[b] = G->hbs[b].U;
		W0[b] = G->hbs[b].W;
		G->hbsc[b] = 0;
		if (!fek_baro_propose(s, G->p.key, b, t, G->rl, &m[b])) {
			fek_baro_done(s, b, 0);
			continue;
		}
		G->hbsc[b] = m[b].sc;
		G->hbox[b] = m[b].box;
		any = 1;
	}
	if (any) {
		int nbk = (int)((G->N + BLOCK - 1) / BLOCK);

		CK(cudaMemcpy(G->bsc, G->hbsc, B * sizeof(double),
		    cudaMemcpyHostToDevice), "copy up");
		/* the old cells are kept by k_baro_scale, then the new go up */
		k_baro_scale<<<nbk, BLOCK>>>(G->p, G->d.pos, G->d.frc,
		    G->d.xref, G->d.box, G->d.boxref, G->spos, G->sfrc,
		    G->sxref, G->sbox, G->bsc, G->flag);
		LAUNCHED("k_baro_scale");
		CK(cudaMemcpy(G->d.box, G->hbox, B * sizeof(struct fek_box),
		    cudaMemcpyHostToDevice), "copy up");
		if (set_cells(G, G->hbox, G->p.n) < 0 || launch_rebuild(G) < 0 ||
		    launch_forces(G, 1, 0) < 0 || launch_box_end(G, 2) < 0)
			goto fail;
		CK(cudaMemcpy(G->hbs, G->d.bs, B * sizeof(struct boxstate),
		    cudaMemcpyDeviceToHost), "copy down");
		for (int b = 0; b < B; b++) {
			int acc;

			G->hbback[b] = 0;
			if (G->hbsc[b] == 0)
				continue;
			acc = fek_baro_accept(par, pp, count, s->n, &m[b], U0[b],
			    G->hbs[b].U);
			if (!acc) {
				G->hbback[b] = 1;
				G->hbox[b] = old[b];
				G->hbs[b].U = U0[b];
				G->hbs[b].W = W0[b];
				anyback = 1;
			}
			s->box[b] = G->hbox[b];
			fek_baro_done(s, b, acc);
		}
		CK(cudaMemcpy(G->d.bs, G->hbs, B * sizeof(struct boxstate),
		    cudaMemcpyHostToDevice), "copy up");
		if (anyback) {
			CK(cudaMemcpy(G->bback, G->hbback, B * sizeof(int),
			    cudaMemcpyHostToDevice), "copy up");
			k_baro_restore<<<nbk, BLOCK>>>(G->p, G->d.pos, G->d.frc,
			    G->d.xref, G->d.box, G->d.boxref, G->spos, G->sfrc,
			    G->sxref, G->sbox, G->bback, G->flag);
			LAUNCHED("k_baro_restore");
			/* the forces again from the restored positions and
			 * list (the same numbers), clearing the counts */
			if (set_cells(G, G->hbox, G->p.n) < 0 ||
			    launch_rebuild(G) < 0 || launch_forces(G, 1, 0) < 0)
				goto fail;
		}
	}
	rc = 0;
fail:
	free(m);
	free(U0);
	free(W0);
	free(old);
	return rc;
}

extern "C" int
fek_gpu_pmd_run(struct fek_psys *s, const struct fek_pairpot *pp,
    const struct fek_pmd_par *par, const struct fek_pmd_sink *sink,
    struct fek_gpu_pmd_stats *st)
{
	struct gpu G;
	struct cudaDeviceProp prop;
	long long t0 = s->step, tend = s->step + par->equil + par->nsteps;
	long count[FEK_PMD_MAXTYPES];
	double nf = fek_pmd_nf(s, par), clock0 = fek_seconds(), tsink = 0;
	double rho = 0, last = clock0, *hf = NULL, *he = NULL;
	int B = s->nbox, rc = -1;
	long n = s->n;

	memset(&G, 0, sizeof G);
	memset(st, 0, sizeof *st);
	CK(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
	snprintf(st->device, sizeof st->device, "%s", prop.name);
	if (par->zero_every > 0 && par->integ != FEK_PMD_BAOAB)
		return fek_seterr(FEK_EX_USAGE, "--zero-momentum: only with "
		    "-i baoab (the other integrators keep the momentum)");
	G.N = n * B;
	G.integ = par->integ;
	G.need_nhc = par->integ == FEK_PMD_NHC;
	G.fshift = pp->fshift;
	G.rl = pp->rcmax + par->skin;
	G.p.n = n;
	G.p.nbox = B;
	G.p.ntypes = pp->ntypes;
	G.p.style = pp->style;
	G.p.dt = par->dt;
	G.p.hdt = 0.5 * par->dt;
	G.p.c1 = exp(-par->gamma * par->dt);
	G.p.skinq = 0.25 * par->skin * par->skin;
	G.p.rl2 = G.rl * G.rl;
	G.p.key = fek_pmd_key(par->seed);
	for (int t = 0; t < FEK_PMD_MAXTYPES; t++) {
		G.p.hdtm[t] = 0.5 * par->dt / s->mass[t];
		G.p.c2[t] = sqrt((1 - G.p.c1 * G.p.c1) * par->kT / s->mass[t]);
		G.p.mass[t] = s->mass[t];
	}
	fek_pmd_nhc_par(par, s, &G.np);
	fek_pmd_counts(s, count);
	for (int b = 0; b < B; b++)
		if (n / fek_box_volume(&s->box[b]) > rho)
			rho = n / fek_box_volume(&s->box[b]);
	G.p.maxnb = (long)(1.3 * 4.0 / 3 * M_PI * G.rl * G.rl * G.rl * rho) +
	    16;
	if (G.p.maxnb > n)
		G.p.maxnb = n;
	if (getenv("FEK_PMD_SMALL") && strcmp(getenv("FEK_PMD_SMALL"), "1") ==
	    0) {
		/* tests: lists and cells that must grow (replayed chunks) */
		G.p.maxnb = 8;
		G.p.maxpc = 2;
	}
	if ((G.tpp = pick_tpp(4.0 / 3 * M_PI * G.rl * G.rl * G.rl * rho)) <
	    0)
		return -1;
	/* blocks a box: enough for every particle, at most 1024 (each then
	 * takes several passes; fewer partial sums to add) */
	G.p.nblkbox = (int)((n * G.tpp + BLOCK - 1) / BLOCK);
	if (G.p.nblkbox > 1024)
		G.p.nblkbox = 1024;
	st->tpp = G.tpp;

	if (dstate_alloc(&G.d, G.N, B) < 0 || dstate_alloc(&G.snap, G.N, B) <
	    0)
		goto fail;
	CK(cudaMalloc(&G.nb, G.N * G.p.maxnb * sizeof(int)), "cudaMalloc");
	CK(cudaMalloc(&G.cnt, G.N * sizeof(int)), "cudaMalloc");
	CK(cudaMalloc(&G.cgrid, B * sizeof(int4)), "cudaMalloc");
	CK(cudaMalloc(&G.flag, B * sizeof(int)), "cudaMalloc");
	CK(cudaMalloc(&G.fdone, B * sizeof(unsigned)), "cudaMalloc");
	CK(cudaMemset(G.fdone, 0, B * sizeof(unsigned)), "cudaMemset");
	CK(cudaMalloc(&G.ovf, sizeof(int)), "cudaMalloc");
	CK(cudaMalloc(&G.maxcnt, sizeof(int)), "cudaMalloc");
	CK(cudaMalloc(&G.maxcell, sizeof(int)), "cudaMalloc");
	CK(cudaMalloc(&G.nbuild, sizeof(unsigned long long)), "cudaMalloc");
	CK(cudaMemset(G.nbuild, 0, sizeof(unsigned long long)),
	    "cudaMemset");
	CK(cudaMalloc(&G.part, 3 * (size_t)G.p.nblkbox * B * sizeof(double)),
	    "cudaMalloc");
	CK(cudaMalloc(&G.coef, sizeof pp->coef), "cudaMalloc");
	CK(cudaMemcpy(G.coef, pp->coef, sizeof pp->coef,
	    cudaMemcpyHostToDevice), "copy up");
	if (pp->ntab > 0) {
		CK(cudaMalloc(&G.tab, 2 * pp->ntab * sizeof(double)),
		    "cudaMalloc");
		CK(cudaMemcpy(G.tab, pp->tab, 2 * pp->ntab * sizeof(double),
		    cudaMemcpyHostToDevice), "copy up");
	}
	CK(cudaMemset(G.ovf, 0, sizeof(int)), "cudaMemset");
	CK(cudaMemset(G.maxcnt, 0, sizeof(int)), "cudaMemset");
	CK(cudaMemset(G.maxcell, 0, sizeof(int)), "cudaMemset");
	if (par->baro) {
		CK(cudaMalloc(&G.spos, G.N * sizeof(dbl4)), "cudaMalloc");
		CK(cudaMalloc(&G.sfrc, G.N * sizeof(dbl4)), "cudaMalloc");
		CK(cudaMalloc(&G.sxref, G.N * sizeof(dbl4)), "cudaMalloc");
		CK(cudaMalloc(&G.sbox, 2 * B * sizeof(struct fek_box)),
		    "cudaMalloc");
		CK(cudaMalloc(&G.bsc, B * sizeof(double)), "cudaMalloc");
		CK(cudaMalloc(&G.bback, B * sizeof(int)), "cudaMalloc");
	}
	G.hbsc = (double *)fek_alloc(B, sizeof(double));
	G.hbback = (int *)fek_alloc(B, sizeof(int));
	G.h4 = (dbl4 *)fek_alloc(G.N, sizeof(dbl4));
	G.hbs = (struct boxstate *)fek_alloc(B, sizeof(struct boxstate));
	G.hbox = (struct fek_box *)fek_alloc(B, sizeof(struct fek_box));
	G.hnhc = (struct fek_nhc *)fek_alloc(B, sizeof(struct fek_nhc));
	G.hcgrid = (int4 *)fek_alloc(B, sizeof(int4));
	hf = (double *)fek_alloc(3 * G.N, sizeof(double));
	he = (double *)fek_alloc(G.N, sizeof(double));

	/* the start: lists from the reference positions, forces, 2K */
	if (!s->have_ref) {
		memcpy(s->xref, s->x, 3 * G.N * sizeof *s->x);
		memcpy(s->boxref, s->box, B * sizeof *s->box);
		s->have_ref = 1;
	}
	if (!par->restart)
		for (int b = 0; b < B; b++) {
			s->twoK[b] = fek_psys_twoK(s, b);
			memset(&s->nhc[b], 0, sizeof s->nhc[b]);
			s->dvmax[b] = 0.01 * fek_box_volume(&s->box[b]);
		}
	for (int b = 0; b < B; b++)
		if (fek_box_check(&s->box[b], G.rl, "box") < 0)
			goto fail;
	memcpy(G.hbox, s->box, B * sizeof *s->box);
	if (upload(&G, s) < 0 || set_cells(&G, s->boxref, n) < 0)
		goto fail;
	for (;;) {
		int o;

		if (rebuild_all(&G, 2) < 0 || launch_box_end(&G, 2) < 0)
			goto fail;
		if ((o = check_overflow(&G, &st->replays)) < 0)
			goto fail;
		if (o == 0)
			break;
	}
	if (launch_box_end(&G, 0) < 0)
		goto fail;
	CK(cudaDeviceSynchronize(), "start");
	st->setup_ms = ms_since(clock0);
	if (!par->restart && par->thermo_every > 0 && thermo_rows(&G, s, pp,
	    par, sink, t0, nf, count) < 0)
		goto fail;
	if (par->nsteps == 0 && par->equil == 0 && par->every > 0) {
		double ts = fek_seconds();

		if (download(&G, s, par->want_f, hf, he) < 0)
			goto fail;
		for (int b = 0; b < B; b++)
			if (sink->frame(sink->ctx, s, b, s->x + 3 * n * b,
			    s->v + 3 * n * b, par->want_f ? hf + 3 * n * b :
			    NULL, par->want_f ? he + n * b : NULL) < 0)
				goto fail;
		tsink += ms_since(ts);
	}

	clock0 = fek_seconds();
	for (long long t = t0 + 1; t <= tend; ) {
		/* a chunk: up to the next event, at most CHUNK steps */
		long long end = t + CHUNK - 1 < tend ? t + CHUNK - 1 : tend;
		long long u;
		int o;

		for (u = t; u <= end; u++) {
			int log = par->thermo_every > 0 && (u - t0) %
			    par->thermo_every == 0;
			int baro = par->baro && u % par->baro_every == 0;
			int frame = par->every > 0 && u - t0 > par->equil &&
			    (u - t0 - par->equil) % par->every == 0;
			int ck = par->ckpt_every > 0 && u % par->ckpt_every ==
			    0;

			if (log || baro || frame || ck) {
				end = u;
				break;
			}
		}
		if (dstate_copy(&G.snap, &G.d, G.N, B) < 0)
			goto fail;
		for (u = t; u <= end; u++) {
			int log = par->thermo_every > 0 && (u - t0) %
			    par->thermo_every == 0;
			int baro = par->baro && u % par->baro_every == 0;
			int frame = par->every > 0 && u - t0 > par->equil &&
			    (u - t0 - par->equil) % par->every == 0;
			int need_e = log || baro || (frame && par->want_f);

			if (launch_first_half(&G, u) < 0 || launch_rebuild(&G) <
			    0 || launch_forces(&G, need_e, 1) < 0)
				goto fail;
			if ((G.need_nhc || need_e) && launch_box_end(&G, 1) < 0)
				goto fail;
		}
		if ((o = check_overflow(&G, &st->replays)) < 0)
			goto fail;
		if (o == 1) {
			/* back to the chunk's start, lists from its xref */
			if (dstate_copy(&G.d, &G.snap, G.N, B) < 0 ||
			    set_cells(&G, G.hbox, n) < 0 || rebuild_all(&G,
			    2) < 0)
				goto fail;
			continue;
		}
		/* the chunk's end: every box still finite? (2K of the last
		 * step: box_end sums it; it ran already under Nose-Hoover) */
		if (!G.need_nhc && launch_box_end(&G, 1) < 0)
			goto fail;
		CK(cudaMemcpy(G.hbs, G.d.bs, B * sizeof(struct boxstate),
		    cudaMemcpyDeviceToHost), "copy down");
		for (int b = 0; b < B; b++)
			if (!isfinite(G.hbs[b].twoK)) {
				fek_seterr(FEK_EX_NUMERIC, "box %d, by step %lld: "
				    "the state is no longer finite (is the time "
				    "step too long, or the start overlapping?)",
				    b + 1, end);
				goto fail;
			}
		t = end + 1;
		s->step = end;
		{
			/* the events of step `end` */
			long long u2 = end;
			int log = par->thermo_every > 0 && (u2 - t0) %
			    par->thermo_every == 0;
			int baro = par->baro && u2 % par->baro_every == 0;
			int frame = par->every > 0 && u2 - t0 > par->equil &&
			    (u2 - t0 - par->equil) % par->every == 0;
			int ck = par->ckpt_every > 0 && u2 % par->ckpt_every ==
			    0 && u2 < tend;
			double ts = fek_seconds();

			if (baro && volume_moves(&G, s, pp, par, u2, count) < 0)
				goto fail;
			if (log && thermo_rows(&G, s, pp, par, sink, u2, nf,
			    count) < 0)
				goto fail;
			if (frame || ck) {
				if (download(&G, s, frame && par->want_f, hf,
				    he) < 0)
					goto fail;
				for (int b = 0; frame && b < B; b++)
					if (sink->frame(sink->ctx, s, b, s->x +
					    3 * n * b, s->v + 3 * n * b,
					    par->want_f ? hf + 3 * n * b : NULL,
					    par->want_f ? he + n * b : NULL) < 0)
						goto fail;
				if (ck && sink->checkpoint &&
				    sink->checkpoint(sink->ctx, s) < 0)
					goto fail;
			}
			tsink += ms_since(ts);
		}
		if (sink->progress) {
			double now = fek_seconds();

			if (now - last > 1) {
				sink->progress(sink->ctx, (double)(end - t0) /
				    (tend - t0), (end - t0) / (now - clock0));
				last = now;
			}
		}
	}
	CK(cudaDeviceSynchronize(), "run");
	st->run_ms = ms_since(clock0);
	if (download(&G, s, 0, hf, he) < 0)
		goto fail;
	s->step = tend;
	if (sink->checkpoint && sink->checkpoint(sink->ctx, s) < 0)
		goto fail;
	if (sink->progress && tend > t0)
		sink->progress(sink->ctx, 1, (tend - t0) / (st->run_ms * 1e-3 +
		    1e-12));
	st->sink_ms = tsink;
	st->maxnb = G.p.maxnb;
	{
		unsigned long long nb;

		CK(cudaMemcpy(&nb, G.nbuild, sizeof nb, cudaMemcpyDeviceToHost),
		    "copy down");
		st->nbuild = (long long)nb;
	}
	rc = 0;
fail:
	dstate_free(&G.d);
	dstate_free(&G.snap);
	cudaFree(G.nb);
	cudaFree(G.cnt);
	cudaFree(G.cgrid);
	cudaFree(G.flag);
	cudaFree(G.fdone);
	cudaFree(G.ovf);
	cudaFree(G.maxcnt);
	cudaFree(G.maxcell);
	cudaFree(G.nbuild);
	cudaFree(G.part);
	cudaFree(G.coef);
	cudaFree(G.tab);
	cudaFree(G.ccount);
	cudaFree(G.cbin);
	cudaFree(G.cell);
	cudaFree(G.spos);
	cudaFree(G.sfrc);
	cudaFree(G.sxref);
	cudaFree(G.sbox);
	cudaFree(G.bsc);
	cudaFree(G.bback);
	free(G.hbsc);
	free(G.hbback);
	free(G.h4);
	free(G.hbs);
	free(G.hbox);
	free(G.hnhc);
	free(G.hcgrid);
	free(hf);
	free(he);
	return rc;
}
