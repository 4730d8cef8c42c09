/*
 * mol.cu - tpi-gpu --top's test insertions and deletions of a rigid
 * molecule on the GPU (lib/tpi/mol_gpu.h): lib/tpi/mol_insert.c with the
 * arithmetic of lib/tpi/mol_eval.h, double precision, a thread a move.
 * Daly, Benziger, Debenedetti and Panagiotopoulos, Comput. Phys. Commun.
 * 183, 2054 (2012), Algorithm 1, with smooth PME's reciprocal terms
 * (Essmann et al., J. Chem. Phys. 103, 8577 (1995)) read from the
 * frame's potential and kernel on the grid.
 *
 * Once a run: the molecule (template, charges, types, excluded pairs,
 * the pair coefficients, the erfc table).  Once a frame: the host's two
 * cell-sorted lists of the frame's atoms (mol.c: LJ partners and
 * charges), the PME potential and kernel (FFTW, on the host, as the
 * CPU's run computes them), the positions and the first atoms of the
 * molecules of the kind deleted; the view of mol_eval.h is then the
 * host's with its pointers aimed at these copies.  Per chunk of
 * insertions, k_mol_points finds the cell of each insertion's centre
 * (or, with tpi-gpu's screen, that the insertion overlaps: beta u = +inf
 * and a cell past the last), CUB's radix sort orders the insertions by
 * it, so that the threads of a warp mostly read the same cells (as
 * kernels/tpi/insert.cu does for particles) and the overlapping come
 * last, where k_mol_insert's threads for them return at once;
 * k_mol_insert writes each move's beta u by its index, and
 * sums.cu takes the fixed-order groups and the histogram; the deletions
 * likewise (k_mol_delete).  The results do not depend on the launch's
 * shape: the same bits every run.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cub/cub.cuh>

#include "tpi/mol_eval.h"
extern "C" {
#include "core/fek.h"
#include "tpi/tpi.h"
}
#include "core/cuda_check.cuh"
#include "tpi/mol_gpu.h"
#include "tpi/sums.cuh"

#define CHUNK (1L << 20)	/* insertions a chunk (a multiple of GROUP) */
#define BLOCK 128		/* threads of k_mol_insert, k_mol_delete */
#define MAXS FEK_TPI_MOL_GPU_MAXSITES

/* the device copies: the molecule's (a run), the frame's (a frame) */
enum { M_TMPL, M_Q, M_TYPE, M_XP, M_LJSITE, M_C6, M_C12, M_ERFC, M_OV2,
    M_N };
enum { F_LJSTART, F_LJX, F_LJY, F_LJZ, F_LJTYPE, F_LJATOM, F_CHSTART, F_CHX,
    F_CHY, F_CHZ, F_CHQ, F_CHATOM, F_PHI, F_THETA, F_XF, F_KIND, F_N };

struct fek_tpi_molgpu {
	int nsm;
	struct fek_tpi_gpu_stats st;
	char *mol[M_N], *frm[F_N];
	long cap_mol[M_N], cap_frm[F_N];	/* their bytes */
	double *bu;			/* a chunk's (or the deletions') beta u */
	long cap_bu;
	double *hbu;			/* the same on the host (-E) */
	int *cell, *kidx, *cell_s, *kidx_s;	/* a chunk's sort */
	void *tmp;			/* CUB's */
	size_t tmp_bytes;
	struct fek_tpi_part *part, *spart;
	long cap_part, cap_spart;
	unsigned long long *hist;	/* 2 (nbins + 2) */
};

/* The cell of the centre of insertion base + k, k < n, and k; with the
 * screen, an insertion it finds overlapping gets beta u = +inf and the
 * cell ncell, which sorts it after the others. */
__global__ static void __launch_bounds__(BLOCK)
k_mol_points(struct fek_tpi_molview v, long n, long long base, uint64_t key,
    uint64_t fid, int *cell, int *kidx, double *bu)
{
	long k = blockIdx.x * (long)blockDim.x + threadIdx.x;
	double s[3], r[3];
	int c[3];

	if (k >= n)
		return;
	kidx[k] = (int)k;
	if (v.ov2 != NULL) {
		double x[3 * MAXS];

		fek_tpi_molv_place(v.tmpl, v.ns, &v.box, key, fid,
		    (uint64_t)(base + k), x);
		if (fek_tpi_molv_overlaps(&v, x)) {
			cell[k] = v.nc[0] * v.nc[1] * v.nc[2];
			bu[k] = INFINITY;
			return;
		}
	}
	fek_tpi_point(key, fid, (uint64_t)(base + k), &v.box, s, r);
	for (int d = 0; d < 3; d++) {
		c[d] = (int)floor(s[d] * v.nc[d]);
		c[d] = c[d] < 0 ? 0 : c[d] >= v.nc[d] ? v.nc[d] - 1 : c[d];
	}
	cell[k] = c[0] + v.nc[0] * (c[1] + v.nc[1] * c[2]);
}

/* Insertion base + kidx[q] of frame fid, for q < n, but those the screen
 * found (cell[q] ncell: the last, after the sort). */
__global__ static void __launch_bounds__(BLOCK)
k_mol_insert(struct fek_tpi_molview v, long n, long long base, uint64_t key,
    uint64_t fid, double beta, const int *kidx, const int *cell, int ncell,
    double *bu)
{
	long q = blockIdx.x * (long)blockDim.x + threadIdx.x;
	double x[3 * MAXS];
	long k;

	if (q >= n || cell[q] == ncell)
		return;
	k = kidx[q];
	fek_tpi_molv_place(v.tmpl, v.ns, &v.box, key, fid,
	    (uint64_t)(base + k), x);
	bu[k] = beta * fek_tpi_molv_energy(&v, x, -1);
}

/* Deletion q < n: the frame's molecule whose first atom is kind[q], at
 * its positions in xf. */
__global__ static void __launch_bounds__(BLOCK)
k_mol_delete(struct fek_tpi_molview v, long n, const long *kind,
    const double *xf, double beta, double *bu)
{
	long q = blockIdx.x * (long)blockDim.x + threadIdx.x;
	double x[3 * MAXS];

	if (q >= n)
		return;
	for (int i = 0; i < 3 * v.ns; i++)
		x[i] = xf[3 * kind[q] + i];
	bu[q] = beta * fek_tpi_molv_energy(&v, x, kind[q]);
}

/* n bytes at p copied to the device into *slot, grown as needed (*cap
 * its bytes): once a run for the molecule, once a frame for the frame. */
static int
up(char **slot, long *cap, const void *p, size_t n)
{
	cudaError_t e;

	if (p == NULL || n == 0)
		return 0;
	if (fek_cuda_grow(slot, cap, (long)n, "frame") < 0)
		return -1;
	if ((e = cudaMemcpy(*slot, p, n, cudaMemcpyHostToDevice)) !=
	    cudaSuccess)
		return fek_cuda_fail(e, "frame");
	return 0;
}
#define UPM(g, i, p, n) up(&(g)->mol[i], &(g)->cap_mol[i], (p), (n))
#define UPF(g, i, p, n) up(&(g)->frm[i], &(g)->cap_frm[i], (p), (n))

extern "C" struct fek_tpi_molgpu *
fek_tpi_mol_gpu_new(const struct fek_tpi_mol *m, const struct fek_tpi_par *par)
{
	struct fek_tpi_molgpu *g;
	struct cudaDeviceProp prop;
	double t0;
	cudaError_t e;
	int dev, nt = m->t->ntype;
	long cap = 0;

	if (m->ns > MAXS) {
		fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: molecule %s has %d "
		    "sites; the GPU takes at most %d (-d cpu)", m->name, m->ns,
		    MAXS);
		return NULL;
	}
	t0 = fek_seconds();
	g = (struct fek_tpi_molgpu *)fek_alloc(1, sizeof *g);
	if ((e = cudaGetDevice(&dev)) != cudaSuccess ||
	    (e = cudaGetDeviceProperties(&prop, dev)) != cudaSuccess) {
		fek_cuda_fail(e, "device");
		free(g);
		return NULL;
	}
	snprintf(g->st.device, sizeof g->st.device, "%s", prop.name);
	g->nsm = prop.multiProcessorCount;
	if (UPM(g, M_TMPL, m->tmpl, 3 * m->ns * sizeof(double)) < 0 ||
	    UPM(g, M_Q, m->q, m->ns * sizeof(double)) < 0 ||
	    UPM(g, M_TYPE, m->type, m->ns * sizeof(int)) < 0 ||
	    UPM(g, M_XP, m->xp, 2 * m->nxp * sizeof(int)) < 0 ||
	    UPM(g, M_LJSITE, m->ljsite, m->ns) < 0 ||
	    UPM(g, M_C6, m->t->c6, (size_t)nt * nt * sizeof(double)) <
	    0 || UPM(g, M_C12, m->t->c12, (size_t)nt * nt *
	    sizeof(double)) < 0 ||
	    UPM(g, M_ERFC, m->erfc.v, 2 * ((size_t)m->erfc.n + 1) *
	    sizeof(double)) < 0 ||
	    UPM(g, M_OV2, m->ov2, m->ov2 ? (size_t)nt * nt * sizeof(double) :
	    0) < 0 ||
	    fek_cuda_grow(&g->bu, &g->cap_bu, CHUNK, "energies") < 0 ||
	    (cap = 0, fek_cuda_grow(&g->cell, &cap, CHUNK, "cells")) < 0 ||
	    (cap = 0, fek_cuda_grow(&g->kidx, &cap, CHUNK, "insertions")) <
	    0 || (cap = 0, fek_cuda_grow(&g->cell_s, &cap, CHUNK, "cells")) <
	    0 || (cap = 0, fek_cuda_grow(&g->kidx_s, &cap, CHUNK,
	    "insertions")) < 0 ||
	    (cap = 0, fek_cuda_grow(&g->hist, &cap, 2 * (par->nbins + 2),
	    "histogram")) < 0) {
		fek_tpi_mol_gpu_free(g);
		return NULL;
	}
	if ((e = cub::DeviceRadixSort::SortPairs(NULL, g->tmp_bytes, g->cell,
	    g->cell_s, g->kidx, g->kidx_s, (int)CHUNK, 0, 32)) != cudaSuccess ||
	    (e = cudaMalloc(&g->tmp, g->tmp_bytes)) != cudaSuccess) {
		fek_cuda_fail(e, "sort buffers");
		fek_tpi_mol_gpu_free(g);
		return NULL;
	}
	g->st.setup_ms = 1e3 * (fek_seconds() - t0);
	return g;
}

/* The frame's lists, grids and molecules on the device, and the view of
 * them into *v. */
static int
upload(struct fek_tpi_molgpu *g, const struct fek_tpi_mol *m,
    const struct fek_tpi_molframe *mf, struct fek_tpi_molview *v)
{
	long ncell = (long)mf->nc[0] * mf->nc[1] * mf->nc[2];
	size_t npt = m->pme ? (size_t)m->n[0] * m->n[1] * m->n[2] : 0;
	const struct fek_tpi_plist *lj = &mf->lj, *ch = &mf->ch;
	size_t nl = lj->n, nc = ch->n;

	if (UPF(g, F_LJSTART, lj->cstart, (ncell + 1) * sizeof(long)) <
	    0 || UPF(g, F_LJX, lj->x, nl * sizeof(double)) < 0 ||
	    UPF(g, F_LJY, lj->y, nl * sizeof(double)) < 0 ||
	    UPF(g, F_LJZ, lj->z, nl * sizeof(double)) < 0 ||
	    UPF(g, F_LJTYPE, lj->type, nl * sizeof(int)) < 0 ||
	    UPF(g, F_LJATOM, lj->atom, nl * sizeof(int)) < 0 ||
	    UPF(g, F_CHSTART, ch->cstart, (ncell + 1) * sizeof(long)) <
	    0 || UPF(g, F_CHX, ch->x, nc * sizeof(double)) < 0 ||
	    UPF(g, F_CHY, ch->y, nc * sizeof(double)) < 0 ||
	    UPF(g, F_CHZ, ch->z, nc * sizeof(double)) < 0 ||
	    UPF(g, F_CHQ, ch->q, nc * sizeof(double)) < 0 ||
	    UPF(g, F_CHATOM, ch->atom, nc * sizeof(int)) < 0 ||
	    UPF(g, F_PHI, mf->phi, npt * sizeof(double)) < 0 ||
	    UPF(g, F_THETA, mf->theta, npt * sizeof(double)) < 0 ||
	    UPF(g, F_XF, mf->xf, 3 * (size_t)mf->n * sizeof(double)) <
	    0 || UPF(g, F_KIND, m->kind, m->nkind *
	    sizeof(long)) < 0)
		return -1;
	*v = mf->v;
	v->tmpl = (const double *)g->mol[M_TMPL];
	v->q = (const double *)g->mol[M_Q];
	v->type = (const int *)g->mol[M_TYPE];
	v->xp = (const int *)g->mol[M_XP];
	v->ljsite = (const char *)g->mol[M_LJSITE];
	v->c6 = (const double *)g->mol[M_C6];
	v->c12 = (const double *)g->mol[M_C12];
	v->erfc.v = (double *)g->mol[M_ERFC];
	v->ov2 = m->ov2 ? (const double *)g->mol[M_OV2] : NULL;
	v->ljstart = (const long *)g->frm[F_LJSTART];
	v->ljx = (const double *)g->frm[F_LJX];
	v->ljy = (const double *)g->frm[F_LJY];
	v->ljz = (const double *)g->frm[F_LJZ];
	v->ljtype = (const int *)g->frm[F_LJTYPE];
	v->ljatom = (const int *)g->frm[F_LJATOM];
	v->chstart = (const long *)g->frm[F_CHSTART];
	v->chx = (const double *)g->frm[F_CHX];
	v->chy = (const double *)g->frm[F_CHY];
	v->chz = (const double *)g->frm[F_CHZ];
	v->chq = (const double *)g->frm[F_CHQ];
	v->chatom = (const int *)g->frm[F_CHATOM];
	v->phi = (const double *)g->frm[F_PHI];
	v->theta = (const double *)g->frm[F_THETA];
	return 0;
}

/* The n moves' beta u in g->bu kept for -E (res's raw energies from at). */
static int
keep_raw(struct fek_tpi_molgpu *g, double **dst, long *cap, long long at,
    long n)
{
	cudaError_t e;

	g->hbu = (double *)realloc(g->hbu, (n > 0 ? n : 1) * sizeof(double));
	if (g->hbu == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory (raw energies)");
	if ((e = cudaMemcpy(g->hbu, g->bu, n * sizeof(double),
	    cudaMemcpyDeviceToHost)) != cudaSuccess)
		return fek_cuda_fail(e, "energies");
	fek_tpi_keep_raw(dst, cap, at, g->hbu, n);
	return 0;
}

extern "C" int
fek_tpi_mol_gpu_frame(struct fek_tpi_molgpu *g, const struct fek_tpi_mol *m,
    const struct fek_tpi_molframe *mf, const struct fek_tpi_par *par,
    uint64_t fid, struct fek_tpi_result *res)
{
	struct fek_tpi_molview v;
	double t0;
	long ngi = (long)((par->nins + FEK_TPI_GROUP - 1) / FEK_TPI_GROUP);
	long nd = par->del ? m->nkind : 0;
	long ngd = (nd + FEK_TPI_GROUP - 1) / FEK_TPI_GROUP;
	long ns = par->nbins + 2;
	long ncell = (long)mf->nc[0] * mf->nc[1] * mf->nc[2];
	int nbits = 1;
	cudaError_t e;

	while ((1L << nbits) <= ncell)	/* ncell too: the screen's */
		nbits++;

	t0 = fek_seconds();
	if (upload(g, m, mf, &v) < 0 ||
	    fek_cuda_grow(&g->part, &g->cap_part, ngi + ngd + 1, "sums") < 0 ||
	    fek_cuda_grow(&g->bu, &g->cap_bu, nd, "energies") < 0)
		return -1;
	if ((e = cudaMemset(g->hist, 0, 2 * ns * sizeof *g->hist)) !=
	    cudaSuccess)
		return fek_cuda_fail(e, "histogram");
	g->st.upload_ms += 1e3 * (fek_seconds() - t0);

	t0 = fek_seconds();
	for (long long base = 0; base < par->nins; base += CHUNK) {
		long n = par->nins - base < CHUNK ? (long)(par->nins - base) :
		    CHUNK;

		unsigned nb = (unsigned)((n + BLOCK - 1) / BLOCK);

		k_mol_points<<<nb, BLOCK>>>(v, n, base, par->key, fid, g->cell,
		    g->kidx, g->bu);
		if (fek_cuda_launched("k_mol_points") < 0)
			return -1;
		if ((e = cub::DeviceRadixSort::SortPairs(g->tmp, g->tmp_bytes,
		    g->cell, g->cell_s, g->kidx, g->kidx_s, (int)n, 0,
		    nbits)) != cudaSuccess)
			return fek_cuda_fail(e, "sort");
		k_mol_insert<<<nb, BLOCK>>>(v, n, base, par->key, fid,
		    par->beta, g->kidx_s, g->cell_s, (int)ncell, g->bu);
		if (fek_cuda_launched("k_mol_insert") < 0 ||
		    fek_tpi_gpu_reduce(par, g->bu, n, 0, g->part + base /
		    FEK_TPI_GROUP, g->hist, g->nsm) < 0)
			return -1;
		if (par->raw && keep_raw(g, &res->u_ins, &res->capins, base,
		    n) < 0)
			return -1;
	}
	if ((e = cudaDeviceSynchronize()) != cudaSuccess)
		return fek_cuda_fail(e, "insertions");
	g->st.insert_ms += 1e3 * (fek_seconds() - t0);

	t0 = fek_seconds();
	if (nd > 0) {
		k_mol_delete<<<(unsigned)((nd + BLOCK - 1) / BLOCK), BLOCK>>>(
		    v, nd, (const long *)g->frm[F_KIND],
		    (const double *)g->frm[F_XF], par->beta, g->bu);
		if (fek_cuda_launched("k_mol_delete") < 0 ||
		    fek_tpi_gpu_reduce(par, g->bu, nd, 1, g->part + ngi,
		    g->hist + ns, g->nsm) < 0)
			return -1;
		if (par->raw && keep_raw(g, &res->u_del, &res->capdel, 0, nd) <
		    0)
			return -1;
		if ((e = cudaDeviceSynchronize()) != cudaSuccess)
			return fek_cuda_fail(e, "deletions");
	}
	g->st.delete_ms += 1e3 * (fek_seconds() - t0);

	t0 = fek_seconds();
	if (fek_tpi_gpu_results(par, g->part, ngi, ngd, nd, g->hist,
	    &g->spart, &g->cap_spart, res) < 0)
		return -1;
	g->st.fetch_ms += 1e3 * (fek_seconds() - t0);
	return 0;
}

extern "C" void
fek_tpi_mol_gpu_stats(const struct fek_tpi_molgpu *g,
    struct fek_tpi_gpu_stats *st)
{
	*st = g->st;
}

extern "C" void
fek_tpi_mol_gpu_free(struct fek_tpi_molgpu *g)
{
	if (g == NULL)
		return;
	for (int i = 0; i < M_N; i++)
		cudaFree(g->mol[i]);
	for (int i = 0; i < F_N; i++)
		cudaFree(g->frm[i]);
	cudaFree(g->bu);
	cudaFree(g->part);
	cudaFree(g->spart);
	cudaFree(g->hist);
	cudaFree(g->cell);
	cudaFree(g->kidx);
	cudaFree(g->cell_s);
	cudaFree(g->kidx_s);
	cudaFree(g->tmp);
	free(g->hbu);
	free(g);
}
