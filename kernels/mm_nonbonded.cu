/*
 * mm_nonbonded.cu - md-gpu --top's short-range non-bonded terms on the GPU
 * (mm_int.cuh: mm_nonbonded_launch), lib/mm/nonbonded.c's sums with the
 * pair arithmetic of lib/mm/nonbonded_eval.h (the forms and their sources
 * are in nonbonded.c's header), over a buffered Verlet pair list (Verlet,
 * Phys. Rev. 159, 98 (1967)) kept on the device, after lib/md/nlist.c and
 * kernels/pmd.cu's particle lists (HOOMD-blue's and OpenMM's design).
 *
 * The list holds, for each atom, every partner it does not exclude
 * within rlist = max(rc, rvdw) + skin at the build, in both atoms' rows
 * (full rows: an atom's force is summed by its own warp, no atomics).
 * Every evaluation:
 *  - k_nb_check: an atom's position copied to its sorted slot (xs, or pf
 *    in mixed precision), and the rebuild flag set if it moved more than
 *    skin / 2 since the build (then no pair can have come within the
 *    cut-offs unseen: the list is exact, and the forces do not depend on
 *    skin);
 *  - the rebuild, five kernels that return at once unless flagged: each
 *    atom's cell (fek_cell_grid's, cells rlist / 2 or rlist wide) and the
 *    cells' counts (k_nb_bin); their offsets (k_nb_scan); the atoms
 *    dealt to their cells in whatever order atomics give (k_nb_place);
 *    each cell's atoms put in increasing index by counting the smaller
 *    ones (k_nb_order), with their positions, charges and types copied
 *    to the sorted slots and the positions kept as the reference; a warp
 *    an atom gathering its row through the cell stencil (k_nb_build: a
 *    lane a row of cells finds its stretches of consecutive slots, in a
 *    rectangular box only the cells rlist reaches; then the lanes take
 *    the stretches' candidates in turn, two each at a time, appending
 *    their hits in lane order; distances in single precision against
 *    rlist enlarged beyond their rounding; exclusions from a mask of the
 *    64 atoms nearest in index, k_nb_xmask, or else the sorted list);
 *  - k_nb_pairs: a warp an atom, its lanes striding along its row, each
 *    pair within the cut-offs summed as nonbonded.c sums it (the force on
 *    the atom; with energies half of each pair's energy and virial), then
 *    the atom's excluded partners' corrections and its self term; its
 *    first thread clears the flag after a build.  A row that outgrew its
 *    room is marked, and that atom searches all atoms instead (slower, as
 *    exact); the host grows the room at its next look
 *    (mm_nonbonded_check).
 *  - or k_nb_pairs_mixed (--precision mixed): the same in single
 *    precision from positions wrapped into the box, erfc by Abramowitz
 *    and Stegun 7.1.26 (absolute error below 1.5e-7, as OpenMM's mixed
 *    precision), each lane's forces summed in single precision; the
 *    excluded pairs, self terms, energies and virial in double.
 * The rows' order comes from the sorted cells, so it does not depend on
 * the atomics; every lane's sums run in that order, the lanes' forces are
 * added in a fixed shuffle tree, a block adds its energies and virial in
 * a fixed tree, and forces, energies and virial go to the fixed-point
 * accumulators (mm_int.cuh): a run gives the same bits every time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cub/cub.cuh>

#include "mm/nonbonded_eval.h"
extern "C" {
#include "fek.h"
#include "md/pmd.h"
}
#include "cuda_check.cuh"
#include "mm_int.cuh"

#define NB_BLOCK 128
#define NB_SUMS 11			/* per block: elj, ec, the virial */
#define SCAN_T 1024			/* threads of k_nb_scan */
#define NB_EPS 1e-4			/* nm: k_nb_build's margin */

/* The cell grid of the last build: cells along a, b, c and the stencil's
 * reach (0: one cell, all pairs). */
struct nb_grid {
	int nc[3];
	int reach;
};

/* A context's pair list (mm_int.cuh's struct mm_nblist). */
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

/* Atom position r's cell of grid g (fractional slices, as nlist.c). */
static __device__ __forceinline__ int
nb_cell_of(const struct fek_box *b, const double *x, const struct nb_grid *g)
{
	double r[3] = { x[0], x[1], x[2] }, s[3];
	int c[3];

	if (g->reach == 0)
		return 0;
	fek_box_wrap(b, r);
	fek_box_frac(b, r, s);
	for (int k = 0; k < 3; k++) {
		c[k] = (int)floor(s[k] * g->nc[k]);
		c[k] = c[k] < 0 ? 0 : c[k] >= g->nc[k] ? g->nc[k] - 1 : c[k];
	}
	return c[0] + g->nc[0] * (c[1] + g->nc[1] * c[2]);
}

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

/* The box in single precision, for minimum images in mixed arithmetic. */
struct nb_boxf {
	float lx, ly, lz, xy, xz, yz, ilx, ily, ilz;
};

/* fek_box_minimage in single precision. */
static __device__ __forceinline__ void
nb_minimagef(const struct nb_boxf *b, float *d)
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

/* Position x wrapped into the box, and charge q, in single precision. */
static __device__ __forceinline__ float4
nb_posq(const struct fek_box *b, const double *x, double q)
{
	double r[3] = { x[0], x[1], x[2] };

	fek_box_wrap(b, r);
	return make_float4((float)r[0], (float)r[1], (float)r[2], (float)q);
}

/* Positions to the sorted slots; the rebuild flagged if an atom moved
 * more than skin / 2 since the build (val_s is the identity before the
 * first build, which the flag asks for). */
__global__ void
k_nb_check(long n, const double *x, const double *q, const double *xref,
    const int *val_s, struct fek_box b, double half2, int mixed, double *xs,
    float4 *pf, int *flag)
{
	long k = blockIdx.x * (long)blockDim.x + threadIdx.x;
	double d[3];

	if (k >= n)
		return;
	int i = val_s[k];

	if (mixed)
		pf[k] = nb_posq(&b, x + 3 * i, q[i]);
	for (int a = 0; a < 3; a++) {
		if (!mixed)
			xs[3 * k + a] = x[3 * i + a];
		d[a] = x[3 * i + a] - xref[3 * i + a];
	}
	fek_box_minimage(&b, d);
	if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > half2)
		*flag = 1;
}

__global__ void
k_nb_bin(long n, const double *x, struct fek_box b, struct nb_grid g,
    const int *flag, int *key, int *count)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (i >= n || !*flag)
		return;
	int c = nb_cell_of(&b, x + 3 * i, &g);

	key[i] = c;
	atomicAdd(&count[c], 1);
}

/* off[c] = the atoms in the cells before c (one block, in a fixed
 * order). */
__global__ void __launch_bounds__(SCAN_T)
k_nb_scan(long ncell, const int *flag, const int *count, int *off)
{
	typedef cub::BlockScan<int, SCAN_T> scan_t;
	__shared__ typename scan_t::TempStorage tmp;
	__shared__ int carry;

	if (!*flag)
		return;
	if (threadIdx.x == 0)
		carry = 0;
	__syncthreads();
	for (long base = 0; base < ncell; base += SCAN_T) {
		long c = base + threadIdx.x;
		int v = c < ncell ? count[c] : 0, ex, tot;

		scan_t(tmp).ExclusiveSum(v, ex, tot);
		if (c < ncell)
			off[c] = carry + ex;
		__syncthreads();
		if (threadIdx.x == 0)
			carry += tot;
		__syncthreads();
	}
	if (threadIdx.x == 0)
		off[ncell] = carry;
}

/* The atoms dealt to their cells (count, from the scan, counts down). */
__global__ void
k_nb_place(long n, const int *flag, const int *key, const int *off,
    int *count, int *tmp)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (i >= n || !*flag)
		return;
	int c = key[i];

	tmp[off[c] + atomicSub(&count[c], 1) - 1] = (int)i;
}

/* Slot k's atom put in its rank by index within its cell; its data to the
 * sorted slot, its position kept as the reference. */
__global__ void
k_nb_order(long n, const int *flag, const int *key, const int *off,
    const int *tmp, struct fek_box b, const double *x, const double *q,
    const int *type, int *val_s, double *xs, double *qs, int *ts,
    double *xref, float4 *pf)
{
	long k = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (k >= n || !*flag)
		return;
	int a = tmp[k], c = key[a], lo = off[c], hi = off[c + 1], s = lo;

	for (int m = lo; m < hi; m++)
		s += tmp[m] < a;
	val_s[s] = a;
	qs[s] = q[a];
	ts[s] = type[a];
	pf[s] = nb_posq(&b, x + 3 * a, q[a]);
	for (int e = 0; e < 3; e++) {
		xs[3 * s + e] = x[3 * a + e];
		xref[3 * a + e] = x[3 * a + e];
	}
}

/* Candidate slot s of slot w's row (atom i at pi): 1 if within rlist and
 * not excluded.  The distance is single precision, rl2 enlarged beyond
 * its rounding (a pair a little beyond rlist may be kept: the pair
 * kernels test the cut-offs). */
static __device__ __forceinline__ int
nb_keep(int s, long w, long i, float4 pi, const float4 *pf, const int *val_s,
    const struct nb_boxf *b, float rl2, const long *xstart, const int *xlist,
    unsigned long long xm, int xfar)
{
	float4 pj = pf[s];
	float d[3] = { pi.x - pj.x, pi.y - pj.y, pi.z - pj.z };

	if (s == w)
		return 0;
	nb_minimagef(b, d);
	if (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] >= rl2)
		return 0;
	long j = val_s[s], dj = j - i + 32;

	return dj >= 0 && dj < 64 ? !(xm >> dj & 1) : !(xfar &&
	    mm_excluded(xstart, xlist, i, (int)j));
}

/* Lane's stretches of slot w's stencil: the row of cells (dy, dz) = the
 * lane's, cells along a from lo to hi (in a rectangular box only those
 * that a point within rlist reaches, NB_EPS nm to spare for rounding),
 * as at most two stretches of consecutive sorted slots (two where the
 * row wraps around the box): their first slots in lo2 and their lengths
 * in len2 (0: none). */
static __device__ __forceinline__ void
nb_stretches(int lane, const struct fek_box *b, const struct nb_grid *g,
    const double *x, const int *off, float rl2, int *lo2, int *len2)
{
	int r = g->reach, nx = g->nc[0], ny = g->nc[1], nz = g->nc[2];
	int c = nb_cell_of(b, x, g);
	int cx = c % nx, cy = (c / nx) % ny, cz = c / (nx * ny);
	int dy = lane % (2 * r + 1) - r, dz = lane / (2 * r + 1) - r;
	int row0 = nx * ((cy + dy + ny) % ny + ny * ((cz + dz + nz) % nz));
	int lo = cx - r, hi = cx + r;

	lo2[0] = lo2[1] = len2[0] = len2[1] = 0;
	if (lane >= (2 * r + 1) * (2 * r + 1))
		return;
	if (b->xy == 0 && b->xz == 0 && b->yz == 0) {
		double xr[3] = { x[0], x[1], x[2] };
		double wc[3] = { b->lx / nx, b->ly / ny, b->lz / nz };
		double gy, gz, h2, ext;

		fek_box_wrap(b, xr);
		for (int k = 0; k < 3; k++)
			xr[k] -= b->lo[k];
		gy = dy > 0 ? (cy + dy) * wc[1] - xr[1] : dy < 0 ? xr[1] -
		    (cy + dy + 1) * wc[1] : 0;
		gz = dz > 0 ? (cz + dz) * wc[2] - xr[2] : dz < 0 ? xr[2] -
		    (cz + dz + 1) * wc[2] : 0;
		gy = fmax(gy - NB_EPS, 0.0);
		gz = fmax(gz - NB_EPS, 0.0);
		if ((h2 = rl2 - gy * gy - gz * gz) <= 0)
			return;
		ext = sqrt(h2) + NB_EPS;
		lo = max(lo, (int)floor((xr[0] - ext) / wc[0]));
		hi = min(hi, (int)floor((xr[0] + ext) / wc[0]));
	}
	if (hi - lo + 1 >= nx) {
		lo = 0;
		hi = nx - 1;
	}
	if (lo < 0) {
		lo2[1] = off[row0 + lo + nx];
		len2[1] = off[row0 + nx] - lo2[1];
		lo = 0;
	} else if (hi >= nx) {
		lo2[1] = off[row0];
		len2[1] = off[row0 + hi - nx + 1] - lo2[1];
		hi = nx - 1;
	}
	lo2[0] = off[row0 + lo];
	len2[0] = off[row0 + hi + 1] - lo2[0];
}

#define NB_WARPS (NB_BLOCK / 32)
#define NB_MAXST 64			/* stretches of a stencil, at most:
					   two a row of 5 x 5 */

/* A warp a sorted slot w: its row.  The lanes first find the stencil's
 * stretches (nb_stretches, a lane a row of cells), then take the
 * candidates of all of them in turn, 32 at a time, each lane its own,
 * appending the kept ones to the row in lane order (so a row's order is
 * its stretches', whatever the timing). */
__global__ void __launch_bounds__(NB_BLOCK)
k_nb_build(long n, struct mm_dev d, struct fek_box b, struct nb_boxf bf,
    struct nb_grid g, float rl2, const int *flag, const int *off,
    const int *val_s, const double *x, const float4 *pf,
    const unsigned long long *xmask, const int *xfars, int *list, int room,
    int *nrow, int *longest)
{
	__shared__ int st_lo[NB_WARPS][NB_MAXST], st_at[NB_WARPS][NB_MAXST + 1];
	long w = (blockIdx.x * (long)blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32, wib = threadIdx.x / 32, len = 0;
	int *lo = st_lo[wib], *at = st_at[wib], nst, tot;

	if (w >= n || !*flag)
		return;
	long i = val_s[w];
	float4 pi = pf[w];
	int *row = list + w * room, xfar = xfars[i];
	unsigned long long xm = xmask[i];

	if (g.reach == 0) {
		nst = 1;
		if (lane == 0) {
			lo[0] = 0;
			at[0] = 0;
			at[1] = (int)n;
		}
	} else {
		int l2[2], n2[2], c, ex;

		nb_stretches(lane, &b, &g, x + 3 * i, off, rl2, l2, n2);
		/* the stretches' starts in the concatenation: a warp scan */
		c = n2[0] + n2[1];
		ex = c;
		for (int o = 1; o < 32; o <<= 1) {
			int y = __shfl_up_sync(0xffffffffu, ex, o);

			if (lane >= o)
				ex += y;
		}
		ex -= c;
		lo[2 * lane] = l2[0];
		lo[2 * lane + 1] = l2[1];
		at[2 * lane] = ex;
		at[2 * lane + 1] = ex + n2[0];
		if (lane == 31)
			at[NB_MAXST] = ex + c;
		nst = NB_MAXST;
	}
	__syncwarp();
	tot = at[nst];
	/* two candidates a lane at a time, their loads in flight together */
	for (int base = 0, k = 0; base < tot; base += 64) {
		int s[2] = { 0, 0 }, ok[2] = { 0, 0 };

		for (int h = 0; h < 2; h++) {
			int t = base + 32 * h + lane;

			if (t >= tot)
				break;
			while (at[k + 1] <= t)
				k++;
			s[h] = lo[k] + t - at[k];
			ok[h] = nb_keep(s[h], w, i, pi, pf, val_s, &bf, rl2,
			    d.xstart, d.xlist, xm, xfar);
		}
		for (int h = 0; h < 2; h++) {
			unsigned m = __ballot_sync(0xffffffffu, ok[h]);
			int p = len + __popc(m & ((1u << lane) - 1));

			if (ok[h] && p < room)
				row[p] = s[h];
			len += __popc(m);
		}
	}
	if (lane == 0) {
		nrow[w] = len <= room ? len : -1;
		atomicMax(longest, len);
	}
}

/* A build's end, counted and the flag cleared (by the pair kernels'
 * first thread: nothing reads the flag until the next evaluation). */
static __device__ __forceinline__ void
nb_built(int *flag, unsigned long long *builds)
{
	if (blockIdx.x == 0 && threadIdx.x == 0 && *flag) {
		++*builds;
		*flag = 0;
	}
}

/* One pair of slot w's atom (xi, qi, ti) with slot s, if within rmax:
 * the force on the atom into fi, with EV the energies and virial. */
template <int EV>
static __device__ __forceinline__ void
nb_pair(const struct mm_dev *d, const struct fek_mm_nbpar *p,
    const struct fek_box *b, double rmax2, const double *xi, double qi,
    int ti, int s, const double *xs, const double *qs, const int *ts,
    double *fi, double *elj, double *ec, double *sums)
{
	double dd[3], r2, fij[3];

	for (int a = 0; a < 3; a++)
		dd[a] = xi[a] - xs[3 * s + a];
	fek_box_minimage(b, dd);
	r2 = dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2];
	if (r2 >= rmax2)
		return;
	int tj = ts[s];

	fek_mm_nb_pair(p, d->c6[ti * d->ntype + tj], d->c12[ti * d->ntype +
	    tj], qi * qs[s], r2, dd, elj, ec, fij);
	for (int a = 0; a < 3; a++) {
		fi[a] += fij[a];
		if (EV)
			for (int e = 0; e < 3; e++)
				sums[2 + 3 * a + e] -= 0.25 * dd[a] * fij[e];
	}
}

/* Atom i's excluded partners' corrections (lane's share), as
 * nonbonded.c's: force into fi, energy into *ex, with EV the virial. */
template <int EV>
static __device__ __forceinline__ void
nb_excluded(const struct mm_dev *d, const struct fek_mm_nbpar *p,
    const struct fek_box *b, int i, const double *xi, double qi, int lane,
    double *fi, double *ex, double *sums)
{
	for (long k = d->xstart[i] + lane; k < d->xstart[i + 1]; k += 32) {
		int j = d->xlist[k];
		double dd[3], r2, fij[3];

		for (int a = 0; a < 3; a++)
			dd[a] = xi[a] - d->x[3 * j + a];
		fek_box_minimage(b, dd);
		r2 = dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2];
		fek_mm_nb_excluded(p, qi * d->q[j], r2, dd, ex, fij);
		for (int a = 0; a < 3; a++) {
			fi[a] += fij[a];
			if (EV)
				for (int e = 0; e < 3; e++)
					sums[2 + 3 * a + e] -= 0.25 * dd[a] *
					    fij[e];
		}
	}
}

/* Atom i's warp done: its lanes' forces added in a fixed tree, to the
 * accumulator; with EV half its pairs' energies and its self term into
 * sums. */
template <int EV>
static __device__ __forceinline__ void
nb_atom_end(const struct mm_dev *d, const struct fek_mm_nbpar *p, int i,
    double qi, int lane, double *fi, double elj, double ec, double *sums)
{
	if (EV) {
		sums[0] = 0.5 * elj;
		sums[1] = 0.5 * ec + (lane == 0 ? fek_mm_nb_self(p, qi) : 0);
	}
	for (int a = 0; a < 3; a++)
		fi[a] = mm_wsum(fi[a]);
	if (lane == 0)
		for (int a = 0; a < 3; a++)
			mm_acc(&d->f[3 * i + a], fi[a]);
}

/* fek_mm_nbpar in single precision. */
struct nb_parf {
	int coul, vdw_shift;
	float f, rc2, rv2, beta, sh_ewald, krf, crf, rv6inv, rv12inv;
	float tbs;			/* 2 beta / sqrt(pi) */
};

/* fek_mm_nb_pair in single precision for atom pi with pj (positions in
 * the box, charges in w) if within the cut-offs: the force on pi added to
 * ff; with EV the energies (in double) and the virial. */
template <int EV>
static __device__ __forceinline__ void
nb_pairf(const struct nb_parf *p, const struct nb_boxf *b, float4 pi,
    float4 pj, float c6, float c12, float *ff, double *elj, double *ec,
    double *sums)
{
	float d[3] = { pi.x - pj.x, pi.y - pj.y, pi.z - pj.z }, fs = 0;

	nb_minimagef(b, d);
	float r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];

	if (r2 >= p->rc2 && r2 >= p->rv2)
		return;
	float rinv = rsqrtf(r2), rinv2 = rinv * rinv, qq = pi.w * pj.w;

	if (r2 < p->rv2 && (c6 != 0 || c12 != 0)) {
		float ir6 = rinv2 * rinv2 * rinv2, ir12 = ir6 * ir6;

		if (EV)
			*elj += c12 * ir12 - c6 * ir6 - (p->vdw_shift ?
			    c12 * p->rv12inv - c6 * p->rv6inv : 0);
		fs += (12 * c12 * ir12 - 6 * c6 * ir6) * rinv2;
	}
	if (r2 < p->rc2 && qq != 0) {
		float r = r2 * rinv, fq = p->f * qq;

		if (p->coul == FEK_MM_COUL_PME) {
			/* erfc by Abramowitz and Stegun 7.1.26 (absolute
			 * error below 1.5e-7), sharing exp(-(beta r)^2) */
			float br = p->beta * r, ex = __expf(-br * br);
			float t = __frcp_rn(1 + 0.3275911f * br);
			float er = t * (0.254829592f + t * (-0.284496736f +
			    t * (1.421413741f + t * (-1.453152027f + t *
			    1.061405429f)))) * ex;

			if (EV)
				*ec += fq * (er * rinv - p->sh_ewald);
			fs += fq * (er * rinv + p->tbs * ex) * rinv2;
		} else {
			if (EV)
				*ec += fq * (rinv + p->krf * r2 - p->crf);
			fs += fq * (rinv * rinv2 - 2 * p->krf);
		}
	}
	for (int a = 0; a < 3; a++) {
		ff[a] += fs * d[a];
		if (EV)
			for (int e = 0; e < 3; e++)
				sums[2 + 3 * a + e] -= 0.25 * (double)d[a] *
				    (double)(fs * d[e]);
	}
}

/* The block's energies and virial in a fixed tree, then once to the
 * accumulators. */
static __device__ __forceinline__ void
nb_block_sums(const struct mm_dev *d, double (*red)[NB_BLOCK],
    const double *sums, int tid)
{
	for (int k = 0; k < NB_SUMS; k++)
		red[k][tid] = sums[k];
	__syncthreads();
	for (int s = NB_BLOCK / 2; s > 0; s >>= 1) {
		if (tid < s)
			for (int k = 0; k < NB_SUMS; k++)
				red[k][tid] += red[k][tid + s];
		__syncthreads();
	}
	if (tid == 0) {
		mm_acc(&d->acc[MM_ACC_E + FEK_MM_E_LJSR], red[0][0]);
		mm_acc(&d->acc[MM_ACC_E + FEK_MM_E_COULSR], red[1][0]);
		for (int k = 0; k < 9; k++)
			mm_acc(&d->acc[MM_ACC_VIR + k], red[2 + k][0]);
	}
}

template <int EV>
__global__ void __launch_bounds__(NB_BLOCK)
k_nb_pairs(struct mm_dev d, struct fek_mm_nbpar p, struct fek_box b,
    double rmax2, const int *val_s, const double *xs, const double *qs,
    const int *ts, const int *list, int room, const int *nrow, int *flag,
    unsigned long long *builds)
{
	__shared__ double red[NB_SUMS][NB_BLOCK];
	long w = (blockIdx.x * (long)blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32, tid = threadIdx.x;
	double fi[3] = { 0, 0, 0 }, sums[NB_SUMS];

	nb_built(flag, builds);
	for (int k = 0; k < NB_SUMS; k++)
		sums[k] = 0;
	if (w < d.n) {
		int i = val_s[w], len = nrow[w];
		double xi[3] = { xs[3 * w], xs[3 * w + 1], xs[3 * w + 2] };
		double qi = qs[w], elj = 0, ec = 0, ex = 0;
		int ti = ts[w];

		if (len >= 0) {
			const int *row = list + w * room;

			for (int k = lane; k < len; k += 32)
				nb_pair<EV>(&d, &p, &b, rmax2, xi, qi, ti,
				    row[k], xs, qs, ts, fi, &elj, &ec, sums);
		} else {
			/* the row outgrew its room: every atom */
			for (int s = lane; s < d.n; s += 32)
				if (s != w && !mm_excluded(d.xstart, d.xlist,
				    i, val_s[s]))
					nb_pair<EV>(&d, &p, &b, rmax2, xi, qi,
					    ti, s, xs, qs, ts, fi, &elj, &ec,
					    sums);
		}
		nb_excluded<EV>(&d, &p, &b, i, xi, qi, lane, fi, &ex, sums);
		nb_atom_end<EV>(&d, &p, i, qi, lane, fi, elj, ec + ex, sums);
	}
	if (EV)
		nb_block_sums(&d, red, sums, tid);
}

/* k_nb_pairs in mixed arithmetic: the pairs in single precision (the
 * positions wrapped into the box, pf), each lane's forces summed in
 * single precision, then as k_nb_pairs; energies and virial summed in
 * double. */
template <int EV>
__global__ void __launch_bounds__(NB_BLOCK)
k_nb_pairs_mixed(struct mm_dev d, struct fek_mm_nbpar p, struct nb_parf pf32,
    struct fek_box b, struct nb_boxf bf, const int *val_s, const float4 *pf,
    const int *ts, const float *c6f, const float *c12f, const int *list,
    int room, const int *nrow, int *flag, unsigned long long *builds)
{
	__shared__ double red[NB_SUMS][NB_BLOCK];
	long w = (blockIdx.x * (long)blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32, tid = threadIdx.x;
	double fi[3], sums[NB_SUMS];

	nb_built(flag, builds);
	for (int k = 0; k < NB_SUMS; k++)
		sums[k] = 0;
	if (w < d.n) {
		int i = val_s[w], len = nrow[w], ti = ts[w], nt = d.ntype;
		float4 pi = pf[w];
		float ff[3] = { 0, 0, 0 };
		double elj = 0, ec = 0, ex = 0;
		const float *c6i = c6f + ti * nt, *c12i = c12f + ti * nt;

		if (len >= 0) {
			const int *row = list + w * room;

#pragma unroll 2
			for (int k = lane; k < len; k += 32) {
				int s = row[k];

				nb_pairf<EV>(&pf32, &bf, pi, pf[s], c6i[ts[s]],
				    c12i[ts[s]], ff, &elj, &ec, sums);
			}
		} else {
			/* the row outgrew its room: every atom */
			for (int s = lane; s < d.n; s += 32)
				if (s != w && !mm_excluded(d.xstart, d.xlist,
				    i, val_s[s]))
					nb_pairf<EV>(&pf32, &bf, pi, pf[s],
					    c6i[ts[s]], c12i[ts[s]], ff, &elj,
					    &ec, sums);
		}
		for (int a = 0; a < 3; a++)
			fi[a] = ff[a];
		nb_excluded<EV>(&d, &p, &b, i, d.x + 3 * i, d.q[i], lane, fi,
		    &ex, sums);
		nb_atom_end<EV>(&d, &p, i, d.q[i], lane, fi, elj, ec + ex,
		    sums);
	}
	if (EV)
		nb_block_sums(&d, red, sums, tid);
}

/* ---- the host ------------------------------------------------------------ */

#define CK(call, what) do { cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) return fek_cuda_fail(e_, what); } while (0)
#define GRID(m) ((unsigned)(((m) + NB_BLOCK - 1) / NB_BLOCK)), NB_BLOCK
#define WGRID(m) ((unsigned)((32 * (m) + NB_BLOCK - 1) / NB_BLOCK)), NB_BLOCK

__global__ void
k_nb_tof(long n, const double *from, float *to)
{
	long k = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (k < n)
		to[k] = (float)from[k];
}

/* Atom i's exclusions near it in index as a mask (most are: a molecule's
 * atoms are numbered together), and whether it has others. */
__global__ void
k_nb_xmask(long n, const long *xstart, const int *xlist,
    unsigned long long *xmask, int *xfar)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
	unsigned long long m = 0;
	int far = 0;

	if (i >= n)
		return;
	for (long k = xstart[i]; k < xstart[i + 1]; k++) {
		long dj = xlist[k] - i + 32;

		if (dj >= 0 && dj < 64)
			m |= 1ull << dj;
		else
			far = 1;
	}
	xmask[i] = m;
	xfar[i] = far;
}

__global__ void
k_nb_iota(long n, int *v)
{
	long k = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (k < n)
		v[k] = (int)k;
}

void
mm_nblist_free(struct mm_nblist *l)
{
	if (l == NULL)
		return;
	cudaFree(l->key);
	cudaFree(l->count);
	cudaFree(l->off);
	cudaFree(l->tmp);
	cudaFree(l->val_s);
	cudaFree(l->xs);
	cudaFree(l->qs);
	cudaFree(l->ts);
	cudaFree(l->xref);
	cudaFree(l->pf);
	cudaFree(l->xmask);
	cudaFree(l->xfar);
	cudaFree(l->c6f);
	cudaFree(l->c12f);
	cudaFree(l->list);
	cudaFree(l->nrow);
	cudaFree(l->flag);
	cudaFree(l->longest);
	cudaFree(l->builds);
	free(l);
}

/* Rows of room partners: about 1.3 times the partners within rlist at
 * the box's mean density, rounded up to 32 (grown by
 * mm_nonbonded_check when a row outgrows it). */
static int
nb_room(const struct mm_nblist *l, const struct fek_box *b, int longest)
{
	double want = 1.3 * (double)l->n / fek_box_volume(b) * 4.0 / 3 * M_PI *
	    l->rlist * l->rlist * l->rlist;
	long room;

	if (longest > 0)
		want = 1.2 * longest;
	room = ((long)want + 32 + 31) / 32 * 32;
	if (room > l->n + 31)
		room = (l->n + 31) / 32 * 32;
	return (int)(room > 32 ? room : 32);
}

static int
nb_rows(struct mm_nblist *l, int room)
{
	cudaFree(l->list);
	l->list = NULL;
	l->room = room;
	CK(cudaMalloc((void **)&l->list, (size_t)l->n * room * sizeof(int)),
	    "pair list");
	CK(cudaMemset(l->flag, 1, 1), "pair list");	/* nonzero: rebuild */
	return 0;
}

static struct mm_nblist *
nb_new(const struct mm_dev *d, double rlist, double skin,
    const struct fek_box *b)
{
	struct mm_nblist *l = (struct mm_nblist *)fek_alloc(1, sizeof *l);
	long n = d->n, nt2 = (long)d->ntype * d->ntype;

	l->n = n;
	l->rlist = rlist;
	l->half2 = 0.25 * skin * skin;
#define ALLOC(p, m, what) if (cudaMalloc((void **)&(p), (m)) != \
	cudaSuccess) goto fail;
	ALLOC(l->key, n * sizeof(int), "cells");
	ALLOC(l->tmp, n * sizeof(int), "cells");
	ALLOC(l->val_s, n * sizeof(int), "cells");
	ALLOC(l->xs, 3 * n * sizeof(double), "cells");
	ALLOC(l->qs, n * sizeof(double), "cells");
	ALLOC(l->ts, n * sizeof(int), "cells");
	ALLOC(l->xref, 3 * n * sizeof(double), "cells");
	ALLOC(l->pf, n * sizeof(float4), "cells");
	ALLOC(l->xmask, n * sizeof(unsigned long long), "exclusions");
	ALLOC(l->xfar, n * sizeof(int), "exclusions");
	ALLOC(l->c6f, (nt2 > 0 ? nt2 : 1) * sizeof(float), "LJ");
	ALLOC(l->c12f, (nt2 > 0 ? nt2 : 1) * sizeof(float), "LJ");
	ALLOC(l->nrow, n * sizeof(int), "pair list");
	ALLOC(l->flag, sizeof(int), "pair list");
	ALLOC(l->longest, sizeof(int), "pair list");
	ALLOC(l->builds, sizeof(unsigned long long), "pair list");
#undef ALLOC
	if (cudaMemset(l->xref, 0, 3 * n * sizeof(double)) != cudaSuccess ||
	    cudaMemset(l->flag, 0, sizeof(int)) != cudaSuccess ||
	    cudaMemset(l->longest, 0, sizeof(int)) != cudaSuccess ||
	    cudaMemset(l->builds, 0, sizeof(unsigned long long)) !=
	    cudaSuccess)
		goto fail;
	k_nb_iota<<<GRID(n)>>>(n, l->val_s);
	k_nb_xmask<<<GRID(n)>>>(n, d->xstart, d->xlist, l->xmask, l->xfar);
	if (nt2 > 0) {
		k_nb_tof<<<GRID(nt2)>>>(nt2, d->c6, l->c6f);
		k_nb_tof<<<GRID(nt2)>>>(nt2, d->c12, l->c12f);
	}
	if (fek_cuda_launched("pair list") < 0 || nb_rows(l, nb_room(l, b,
	    0)) < 0) {
		mm_nblist_free(l);
		return NULL;
	}
	return l;
fail:
	fek_cuda_fail(cudaGetLastError(), "pair list");
	mm_nblist_free(l);
	return NULL;
}

/* The cell grid for box b (a new box: a new grid and a rebuild). */
static int
nb_grid_for(struct mm_nblist *l, const struct fek_box *b)
{
	long nc[3], ncell = 1;

	if (l->have_grid && memcmp(&l->bref, b, sizeof *b) == 0)
		return 0;
	l->g.reach = fek_cell_grid(b, l->rlist, nc);
	for (int k = 0; k < 3; k++) {
		l->g.nc[k] = l->g.reach == 0 ? 1 : (int)nc[k];
		ncell *= l->g.nc[k];
	}
	if (ncell > l->capcell) {
		cudaFree(l->count);
		cudaFree(l->off);
		l->count = l->off = NULL;
		l->capcell = ncell + ncell / 4 + 64;
		CK(cudaMalloc((void **)&l->count, l->capcell * sizeof(int)),
		    "cells");
		CK(cudaMalloc((void **)&l->off, (l->capcell + 1) *
		    sizeof(int)), "cells");
		CK(cudaMemset(l->count, 0, l->capcell * sizeof(int)),
		    "cells");
	}
	l->ncell = ncell;
	l->bref = *b;
	l->have_grid = 1;
	CK(cudaMemset(l->flag, 1, 1), "pair list");
	return 0;
}

/* p, b in single precision. */
static void
nb_single(const struct fek_mm_nbpar *p, const struct fek_box *b,
    struct nb_parf *pf, struct nb_boxf *bf)
{
	pf->coul = p->coul;
	pf->vdw_shift = p->vdw_shift;
	pf->f = (float)p->f;
	pf->rc2 = (float)p->rc2;
	pf->rv2 = (float)p->rv2;
	pf->beta = (float)p->beta;
	pf->sh_ewald = (float)p->sh_ewald;
	pf->krf = (float)p->krf;
	pf->crf = (float)p->crf;
	pf->rv6inv = (float)p->rv6inv;
	pf->rv12inv = (float)p->rv12inv;
	pf->tbs = (float)(2 * p->beta / sqrt(M_PI));
	bf->lx = (float)b->lx;
	bf->ly = (float)b->ly;
	bf->lz = (float)b->lz;
	bf->xy = (float)b->xy;
	bf->xz = (float)b->xz;
	bf->yz = (float)b->yz;
	bf->ilx = (float)b->ilx;
	bf->ily = (float)b->ily;
	bf->ilz = (float)b->ilz;
}

int
mm_nonbonded_launch(struct mm_nblist **lp, const struct mm_dev *d,
    const struct fek_mm_opt *o, double skin, const struct fek_box *b, int ev)
{
	struct fek_mm_nbpar p;
	struct nb_parf pf;
	struct nb_boxf bf;
	struct mm_nblist *l = *lp;
	double rmax = fmax(o->rcoulomb, o->rvdw), rl2;
	long n = d->n;
	int mixed = o->mixed;

	if (n == 0)
		return 0;
	if (l == NULL && (l = *lp = nb_new(d, rmax + skin, skin, b)) == NULL)
		return -1;
	if (nb_grid_for(l, b) < 0)
		return -1;
	fek_mm_nb_setup(o, &p);
	nb_single(&p, b, &pf, &bf);
	/* single-precision distances carry a relative error below 1e-6 at
	 * the box's sizes: 1e-4 of rlist^2 (and 1e-6 nm^2) more is safe */
	rl2 = l->rlist * l->rlist * (1 + 1e-4) + 1e-6;
	k_nb_check<<<GRID(n)>>>(n, d->x, d->q, l->xref, l->val_s, *b,
	    l->half2, mixed, l->xs, l->pf, l->flag);
	k_nb_bin<<<GRID(n)>>>(n, d->x, *b, l->g, l->flag, l->key, l->count);
	k_nb_scan<<<1, SCAN_T>>>(l->ncell, l->flag, l->count, l->off);
	k_nb_place<<<GRID(n)>>>(n, l->flag, l->key, l->off, l->count,
	    l->tmp);
	k_nb_order<<<GRID(n)>>>(n, l->flag, l->key, l->off, l->tmp, *b,
	    d->x, d->q, d->type, l->val_s, l->xs, l->qs, l->ts, l->xref,
	    l->pf);
	k_nb_build<<<WGRID(n)>>>(n, *d, *b, bf, l->g, (float)rl2, l->flag,
	    l->off, l->val_s, d->x, l->pf, l->xmask, l->xfar, l->list, l->room,
	    l->nrow, l->longest);
	if (mixed && ev)
		k_nb_pairs_mixed<1><<<WGRID(n)>>>(*d, p, pf, *b, bf, l->val_s,
		    l->pf, l->ts, l->c6f, l->c12f, l->list, l->room, l->nrow,
		    l->flag, l->builds);
	else if (mixed)
		k_nb_pairs_mixed<0><<<WGRID(n)>>>(*d, p, pf, *b, bf, l->val_s,
		    l->pf, l->ts, l->c6f, l->c12f, l->list, l->room, l->nrow,
		    l->flag, l->builds);
	else if (ev)
		k_nb_pairs<1><<<WGRID(n)>>>(*d, p, *b, rmax * rmax, l->val_s,
		    l->xs, l->qs, l->ts, l->list, l->room, l->nrow, l->flag,
		    l->builds);
	else
		k_nb_pairs<0><<<WGRID(n)>>>(*d, p, *b, rmax * rmax, l->val_s,
		    l->xs, l->qs, l->ts, l->list, l->room, l->nrow, l->flag,
		    l->builds);
	return fek_cuda_launched("non-bonded pairs");
}

int
mm_nonbonded_check(struct mm_nblist *l, const struct fek_box *b)
{
	int longest = 0;

	if (l == NULL)
		return 0;
	CK(cudaMemcpy(&longest, l->longest, sizeof longest,
	    cudaMemcpyDeviceToHost), "pair list");
	if (longest <= l->room)
		return 0;
	return nb_rows(l, nb_room(l, b, longest)) < 0 ? -1 : 1;
}

int
mm_nonbonded_stats(const struct mm_nblist *l, double *rlist, long *builds,
    int *room)
{
	unsigned long long nb = 0;

	*rlist = 0;
	*builds = 0;
	*room = 0;
	if (l == NULL)
		return 0;
	CK(cudaMemcpy(&nb, l->builds, sizeof nb, cudaMemcpyDeviceToHost),
	    "pair list");
	*rlist = l->rlist;
	*builds = (long)nb;
	*room = l->room;
	return 0;
}
