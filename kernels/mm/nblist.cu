/*
 * nblist.cu - the pair list of md-gpu --top's short-range non-bonded
 * terms on the GPU (kernels/mm/nonbonded.cu's pair kernels read it;
 * kernels/mm/nblist.cuh holds what both share): a buffered Verlet pair list
 * (Verlet, Phys. Rev. 159, 98 (1967)) kept on the device, after
 * lib/pmd/nlist.c and kernels/pmd/run.cu's particle lists (HOOMD-blue's and
 * OpenMM's design).
 *
 * The list holds, for each atom, every partner it does not exclude
 * within rlist = max(rc, rvdw) + skin at the build, in both atoms' rows
 * (full rows: an atom's force is summed by its own warp, no atomics).
 * Every evaluation, before the pair kernels (mm_nblist_update):
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
 *    64 atoms nearest in index, k_nb_xmask, or else the sorted list).
 * The pair kernels' first thread clears the flag after a build.  A row
 * that outgrew its room is marked (its length -1), and the pair kernels
 * search all atoms for that atom instead (slower, as exact); the host
 * grows the room at its next look (mm_nonbonded_check).
 * The rows' order comes from the sorted cells, so it does not depend on
 * the atomics: the same positions give the same rows in the same order
 * every time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cub/cub.cuh>

/* Random123's philox.h is C++ here: outside the extern "C" block. */
#include "pmd/pmd_eval.h"
extern "C" {
#include "core/fek.h"
#include "pmd/pmd.h"
}
#include "core/cuda_check.cuh"
#include "mm/mm_int.cuh"
#include "mm/nblist.cuh"

#define SCAN_T 1024			/* threads of k_nb_scan */
#define NB_EPS 1e-4			/* nm: k_nb_build's margin */

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
    const struct fek_boxf *b, float rl2, const long *xstart, const int *xlist,
    unsigned long long xm, int xfar)
{
	float4 pj = pf[s];
	float d[3] = { pi.x - pj.x, pi.y - pj.y, pi.z - pj.z };

	if (s == w)
		return 0;
	fek_minimagef(b, d);
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
k_nb_build(long n, struct mm_dev d, struct fek_box b, struct fek_boxf bf,
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

/* ---- the host ------------------------------------------------------------ */

#define CK(call, what) do { cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) return fek_cuda_fail(e_, what); } while (0)
#define GRID(m) ((unsigned)(((m) + NB_BLOCK - 1) / NB_BLOCK)), NB_BLOCK

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
	l->g.reach = fek_cell_grid(b, l->rlist, l->n, nc);
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

int
mm_nblist_update(struct mm_nblist **lp, const struct mm_dev *d, double rmax,
    double skin, const struct fek_box *b, int mixed,
    const struct fek_boxf *bf)
{
	struct mm_nblist *l = *lp;
	double rl2;
	long n = d->n;

	if (l == NULL && (l = *lp = nb_new(d, rmax + skin, skin, b)) == NULL)
		return -1;
	if (nb_grid_for(l, b) < 0)
		return -1;
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
	k_nb_build<<<WGRID(n)>>>(n, *d, *b, *bf, l->g, (float)rl2, l->flag,
	    l->off, l->val_s, d->x, l->pf, l->xmask, l->xfar, l->list, l->room,
	    l->nrow, l->longest);
	return 0;
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
