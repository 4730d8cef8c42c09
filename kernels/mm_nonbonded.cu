/*
 * mm_nonbonded.cu - md-gpu --top's short-range non-bonded terms on the GPU
 * (mm_int.cuh: mm_nonbonded_launch), lib/mm/nonbonded.c's sums with the
 * pair arithmetic of lib/mm/nonbonded_eval.h (the forms and their sources
 * are in nonbonded.c's header).
 *
 * A cell list of cells at least max(rc, rvdw) wide (all pairs when a
 * width holds fewer than three): each atom's cell (k_mm_cells), CUB's
 * stable radix sort of (cell, atom), the cells' first and last entries
 * (k_mm_starts), and the atoms' positions, charges and types copied in
 * that order (k_mm_gather), so that a cell's atoms lie in one stretch.
 * Then a warp an atom, in sorted order (k_mm_pairs), visits the 27 cells
 * around its own, its 32 lanes taking a cell's atoms in turn, and sums,
 * over the partners within the cutoffs that it does not exclude, the
 * force on itself and half of each pair's energy and virial; then its
 * excluded partners' corrections and its self term.  Every lane's sums
 * run in a fixed order (the sort is stable), the lanes' forces are added
 * in a fixed shuffle tree, a block adds its threads' energies and virial
 * in a fixed tree, and forces,
 * energies and virial go to the fixed-point accumulators (mm_int.cuh), so
 * the result does not depend on the order of threads or blocks.
 */
#include <math.h>

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

/* The cell list's buffers, grown as needed (one set a process). */
static struct {
	int *key, *val, *key_s, *val_s, *cstart, *cend, *ts;
	double *xs, *qs;
	long cap, capcell;
	void *tmp;
	size_t tmp_bytes;
} nb;

/* Atom i's cell of nc (fractional slices of the cell). */
static __device__ __forceinline__ int
mm_cell_of(const struct fek_box *b, const double *x, const int *nc)
{
	double r[3] = { x[0], x[1], x[2] }, s[3];
	int c[3];

	fek_box_wrap(b, r);
	fek_box_frac(b, r, s);
	for (int k = 0; k < 3; k++) {
		c[k] = (int)floor(s[k] * nc[k]);
		c[k] = c[k] < 0 ? 0 : c[k] >= nc[k] ? nc[k] - 1 : c[k];
	}
	return c[0] + nc[0] * (c[1] + nc[1] * c[2]);
}

__global__ void
k_mm_cells(long n, const double *x, struct fek_box b, int3 nc, int *key,
    int *val)
{
	long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
	int ncv[3] = { nc.x, nc.y, nc.z };

	if (i >= n)
		return;
	key[i] = mm_cell_of(&b, x + 3 * i, ncv);
	val[i] = (int)i;
}

__global__ void
k_mm_starts(long n, const int *key_s, int *cstart, int *cend)
{
	long k = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (k >= n)
		return;
	if (k == 0 || key_s[k] != key_s[k - 1])
		cstart[key_s[k]] = (int)k;
	if (k == n - 1 || key_s[k] != key_s[k + 1])
		cend[key_s[k]] = (int)k + 1;
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

/* The sorted atoms' positions, charges and types (k = 0 .. n - 1:
 * atom val_s[k]), so that a warp reads a cell's atoms in one stretch. */
__global__ void
k_mm_gather(long n, const double *x, const double *q, const int *type,
    const int *val_s, double *xs, double *qs, int *ts)
{
	long k = blockIdx.x * (long)blockDim.x + threadIdx.x;

	if (k >= n)
		return;
	int j = val_s[k];

	for (int a = 0; a < 3; a++)
		xs[3 * k + a] = x[3 * j + a];
	qs[k] = q[j];
	ts[k] = type[j];
}

/* The sum of a warp's v, the same tree every time. */
static __device__ __forceinline__ double
mm_wsum(double v)
{
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

__global__ void __launch_bounds__(NB_BLOCK)
k_mm_pairs(struct mm_dev d, struct fek_mm_nbpar p, struct fek_box b, int3 nc,
    double rmax2, const int *val_s, const int *cstart, const int *cend,
    const double *xs, const double *qs, const int *ts)
{
	__shared__ double red[NB_SUMS][NB_BLOCK];
	long w = (blockIdx.x * (long)blockDim.x + threadIdx.x) / 32;
	int lane = threadIdx.x % 32, tid = threadIdx.x;
	double fi[3] = { 0, 0, 0 }, sums[NB_SUMS];

	for (int k = 0; k < NB_SUMS; k++)
		sums[k] = 0;
	if (w < d.n) {
		int i = val_s[w];
		double xi[3] = { xs[3 * w], xs[3 * w + 1], xs[3 * w + 2] };
		double qi = qs[w], elj = 0, ec = 0, ex = 0;
		int ti = ts[w], ncv[3] = { nc.x, nc.y, nc.z };
		int c = mm_cell_of(&b, xi, ncv);
		int cx = c % nc.x, cy = (c / nc.x) % nc.y, cz = c / (nc.x *
		    nc.y);
		int ncell = nc.x * nc.y * nc.z, nnb = ncell == 1 ? 1 : 27;

		for (int k = 0; k < nnb; k++) {
			int ax = (cx + k % 3 - 1 + nc.x) % nc.x;
			int ay = (cy + (k / 3) % 3 - 1 + nc.y) % nc.y;
			int az = (cz + k / 9 - 1 + nc.z) % nc.z;
			int cc = ncell == 1 ? 0 : ax + nc.x * (ay + nc.y * az);

			for (int s = cstart[cc] + lane; s < cend[cc];
			    s += 32) {
				double dd[3], r2, fij[3];
				int j, tj;

				if (s == w)
					continue;
				for (int a = 0; a < 3; a++)
					dd[a] = xi[a] - xs[3 * s + a];
				fek_box_minimage(&b, dd);
				r2 = dd[0] * dd[0] + dd[1] * dd[1] + dd[2] *
				    dd[2];
				if (r2 >= rmax2)
					continue;
				j = val_s[s];
				if (mm_excluded(d.xstart, d.xlist, i, j))
					continue;
				tj = ts[s];
				fek_mm_nb_pair(&p, d.c6[ti * d.ntype + tj],
				    d.c12[ti * d.ntype + tj], qi * qs[s], r2,
				    dd, &elj, &ec, fij);
				for (int a = 0; a < 3; a++) {
					fi[a] += fij[a];
					for (int e = 0; e < 3; e++)
						sums[2 + 3 * a + e] -= 0.25 *
						    dd[a] * fij[e];
				}
			}
		}
		for (long k = d.xstart[i] + lane; k < d.xstart[i + 1];
		    k += 32) {
			int j = d.xlist[k];
			double dd[3], r2, fij[3];

			for (int a = 0; a < 3; a++)
				dd[a] = xi[a] - d.x[3 * j + a];
			fek_box_minimage(&b, dd);
			r2 = dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2];
			fek_mm_nb_excluded(&p, qi * d.q[j], r2, dd, &ex, fij);
			for (int a = 0; a < 3; a++) {
				fi[a] += fij[a];
				for (int e = 0; e < 3; e++)
					sums[2 + 3 * a + e] -= 0.25 * dd[a] *
					    fij[e];
			}
		}
		sums[0] = 0.5 * elj;
		sums[1] = 0.5 * (ec + ex) + (lane == 0 ?
		    fek_mm_nb_self(&p, qi) : 0);
		for (int a = 0; a < 3; a++)
			fi[a] = mm_wsum(fi[a]);
		if (lane == 0)
			for (int a = 0; a < 3; a++)
				mm_acc(&d.f[3 * i + a], fi[a]);
	}
	/* the block's sums in a fixed tree, then once to the accumulators */
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
		mm_acc(&d.acc[MM_ACC_E + FEK_MM_E_LJSR], red[0][0]);
		mm_acc(&d.acc[MM_ACC_E + FEK_MM_E_COULSR], red[1][0]);
		for (int k = 0; k < 9; k++)
			mm_acc(&d.acc[MM_ACC_VIR + k], red[2 + k][0]);
	}
}

#define CK(call, what) do { cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) return fek_cuda_fail(e_, what); } while (0)

/* Room for n atoms and ncell cells in nb. */
static int
nb_reserve(long n, long ncell)
{
	if (n > nb.cap) {
		cudaFree(nb.key);
		cudaFree(nb.val);
		cudaFree(nb.key_s);
		cudaFree(nb.val_s);
		cudaFree(nb.tmp);
		cudaFree(nb.xs);
		cudaFree(nb.qs);
		cudaFree(nb.ts);
		nb.key = nb.val = nb.key_s = nb.val_s = nb.ts = NULL;
		nb.xs = nb.qs = NULL;
		nb.tmp = NULL;
		nb.cap = n + n / 4 + 64;
		CK(cudaMalloc(&nb.xs, 3 * nb.cap * sizeof(double)), "cells");
		CK(cudaMalloc(&nb.qs, nb.cap * sizeof(double)), "cells");
		CK(cudaMalloc(&nb.ts, nb.cap * sizeof(int)), "cells");
		CK(cudaMalloc(&nb.key, nb.cap * sizeof(int)), "cells");
		CK(cudaMalloc(&nb.val, nb.cap * sizeof(int)), "cells");
		CK(cudaMalloc(&nb.key_s, nb.cap * sizeof(int)), "cells");
		CK(cudaMalloc(&nb.val_s, nb.cap * sizeof(int)), "cells");
		nb.tmp_bytes = 0;
		CK(cub::DeviceRadixSort::SortPairs(NULL, nb.tmp_bytes, nb.key,
		    nb.key_s, nb.val, nb.val_s, (int)nb.cap, 0, 32), "sort");
		CK(cudaMalloc(&nb.tmp, nb.tmp_bytes), "sort");
	}
	if (ncell > nb.capcell) {
		cudaFree(nb.cstart);
		cudaFree(nb.cend);
		nb.capcell = ncell + ncell / 4 + 64;
		CK(cudaMalloc(&nb.cstart, nb.capcell * sizeof(int)), "cells");
		CK(cudaMalloc(&nb.cend, nb.capcell * sizeof(int)), "cells");
	}
	return 0;
}

int
mm_nonbonded_launch(const struct mm_dev *d, const struct fek_mm_opt *o,
    const struct fek_box *b)
{
	struct fek_mm_nbpar p;
	double rmax = fmax(o->rcoulomb, o->rvdw), w[3];
	int nc[3], allpairs = 0, nbits = 1;
	long ncell = 1, n = d->n;
	unsigned nblk = (unsigned)((n + NB_BLOCK - 1) / NB_BLOCK);

	if (n == 0)
		return 0;
	fek_mm_nb_setup(o, &p);
	fek_box_widths(b, w);
	for (int k = 0; k < 3; k++) {
		nc[k] = (int)floor(w[k] / rmax);
		if (nc[k] < 3)
			allpairs = 1;
	}
	if (allpairs)
		nc[0] = nc[1] = nc[2] = 1;
	ncell = (long)nc[0] * nc[1] * nc[2];
	while ((1L << nbits) < ncell)
		nbits++;
	if (nb_reserve(n, ncell) < 0)
		return -1;
	CK(cudaMemset(nb.cstart, 0, ncell * sizeof(int)), "cells");
	CK(cudaMemset(nb.cend, 0, ncell * sizeof(int)), "cells");
	k_mm_cells<<<nblk, NB_BLOCK>>>(n, d->x, *b, make_int3(nc[0], nc[1],
	    nc[2]), nb.key, nb.val);
	if (fek_cuda_launched("k_mm_cells") < 0)
		return -1;
	CK(cub::DeviceRadixSort::SortPairs(nb.tmp, nb.tmp_bytes, nb.key,
	    nb.key_s, nb.val, nb.val_s, (int)n, 0, nbits), "sort");
	k_mm_starts<<<nblk, NB_BLOCK>>>(n, nb.key_s, nb.cstart, nb.cend);
	if (fek_cuda_launched("k_mm_starts") < 0)
		return -1;
	k_mm_gather<<<nblk, NB_BLOCK>>>(n, d->x, d->q, d->type, nb.val_s,
	    nb.xs, nb.qs, nb.ts);
	if (fek_cuda_launched("k_mm_gather") < 0)
		return -1;
	k_mm_pairs<<<(unsigned)((32 * n + NB_BLOCK - 1) / NB_BLOCK),
	    NB_BLOCK>>>(*d, p, *b, make_int3(nc[0], nc[1], nc[2]), rmax * rmax,
	    nb.val_s, nb.cstart, nb.cend, nb.xs, nb.qs, nb.ts);
	return fek_cuda_launched("k_mm_pairs");
}
