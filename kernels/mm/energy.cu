/*
 * energy.cu - md-gpu --top's forces on the GPU (lib/mm/mm_gpu.h): the system
 * uploaded once, then per evaluation the positions up, the parts (virtual sites
 * placed, kernels/mm/bonded.cu, kernels/mm/nonbonded.cu over
 * kernels/mm/nblist.cu's pair list, kernels/mm/pme.cu, the sites' forces
 * spread) adding to fixed-point accumulators (kernels/mm/mm_int.cuh), and the
 * forces, energies and virial down.  lib/mm/energy.c is the CPU reference; the
 * terms are booked as it books them (the Ewald self energy under Coulomb (SR),
 * the dispersion correction computed on the host).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "mm/nonbonded_eval.h"
extern "C" {
#include "core/fek.h"
#include "particles/particles.h"
}
#include "core/cuda_check.cuh"
#include "mm/mm_int.cuh"
#include "mm/mm_gpu.h"

#define CK(call, what) do { cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) { fek_cuda_fail(e_, what); goto fail; } } \
	while (0)

extern "C" struct fek_mm_gpu *
fek_mm_gpu_new(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const struct fek_box *b)
{
	struct fek_mm_gpu *g;
	struct mm_dev *d;
	int ndev = 0;
	long n = t->n;

	if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0) {
		fek_seterr(FEK_EX_UNAVAILABLE, "-d gpu: no CUDA device");
		return NULL;
	}
	g = (struct fek_mm_gpu *)fek_alloc(1, sizeof *g);
	d = &g->d;
	g->t = t;
	g->o = *o;
	d->n = n;
	d->ntype = t->ntype;
	d->eps_r = o->epsilon_r;
	d->vsite_serial = mm_vsite_serial(t);
	CK(fek_cuda_up((void **)&d->q, t->q, n * sizeof(double)), "charges");
	CK(fek_cuda_up((void **)&d->type, t->type, n * sizeof(int)), "types");
	CK(fek_cuda_up((void **)&d->c6, t->c6, (size_t)t->ntype * t->ntype *
	    sizeof(double)), "LJ");
	CK(fek_cuda_up((void **)&d->c12, t->c12, (size_t)t->ntype * t->ntype *
	    sizeof(double)), "LJ");
	for (int k = 0; k < FEK_MM_NKIND; k++) {
		const struct fek_mm_ilist *il = &t->il[k];

		d->nil[k] = il->n;
		CK(fek_cuda_up((void **)&d->atoms[k], il->atoms, (size_t)il->n *
		    fek_mm_nat[k] * sizeof(int)), "interactions");
		CK(fek_cuda_up((void **)&d->par[k], il->par, (size_t)il->n *
		    fek_mm_npar[k] * sizeof(double)), "interactions");
	}
	CK(fek_cuda_up((void **)&d->xstart, t->xstart, (n + 1) * sizeof(long)),
	    "exclusions");
	CK(fek_cuda_up((void **)&d->xlist, t->xlist, (size_t)t->xstart[n] *
	    sizeof(int)), "exclusions");
	CK(cudaMalloc((void **)&d->x, (n > 0 ? n : 1) * 3 * sizeof(double)),
	    "positions");
	CK(cudaMalloc((void **)&d->f, (n > 0 ? n : 1) * 3 *
	    sizeof(unsigned long long)), "forces");
	CK(cudaMalloc((void **)&d->acc, MM_NACC * sizeof(unsigned long long)),
	    "energies");
	g->fh = (unsigned long long *)fek_alloc(3 * (n > 0 ? n : 1),
	    sizeof *g->fh);
	if (o->coulombtype == FEK_MM_COUL_PME) {
		struct fek_mm_nbpar p;
		double q2 = 0;
		int grid[3];

		fek_mm_nb_setup(o, &p);
		/* energy.c's grid, the CPU's */
		if (fek_mm_pme_grid_of(o, b, grid) < 0)
			goto fail;
		if ((g->pme = mm_pme_gpu_new(grid, o->pme_order, p.beta, n,
		    o->mixed)) == NULL)
			goto fail;
		for (long i = 0; i < n; i++)
			q2 += t->q[i] * t->q[i];
		g->self = fek_mm_nb_self(&p, 1) * q2;
	}
	return g;
fail:
	fek_mm_gpu_free(g);
	return NULL;
}

#undef CK
#define CK(call, what) do { cudaError_t e_ = (call); \
	if (e_ != cudaSuccess) return fek_cuda_fail(e_, what); } while (0)

int
mm_gpu_forces(struct fek_mm_gpu *g, const struct fek_box *b, int place,
    int ev)
{
	const struct fek_mm_top *t = g->t;
	struct mm_dev *d = &g->d;
	long n = t->n;

	CK(cudaMemsetAsync(d->f, 0, n * 3 * sizeof(unsigned long long)),
	    "forces");
	CK(cudaMemsetAsync(d->acc, 0, MM_NACC * sizeof(unsigned long long)),
	    "energies");
	if (place && t->il[FEK_MM_VSITE3].n > 0 &&
	    mm_vsite_place_launch(d, b) < 0)
		return -1;
	if (mm_bonded_launch(d, b) < 0 ||
	    mm_nonbonded_launch(&g->nbl, d, &g->o, g->o.skin, b, ev) < 0 ||
	    (g->pme != NULL && mm_pme_gpu_eval(g->pme, d, b, ev) < 0))
		return -1;
	if (t->il[FEK_MM_VSITE3].n > 0 && mm_vsite_spread_launch(d, b) < 0)
		return -1;
	return 0;
}

int
mm_gpu_energy(struct fek_mm_gpu *g, const struct fek_box *b,
    struct fek_mm_energy *e)
{
	const struct fek_mm_top *t = g->t;
	unsigned long long acc[MM_NACC];

	memset(e, 0, sizeof *e);
	CK(cudaMemcpy(acc, g->d.acc, sizeof acc, cudaMemcpyDeviceToHost),
	    "energies");
	for (int k = 0; k < FEK_MM_NTERM; k++)
		e->term[k] = mm_acc_value(acc[MM_ACC_E + k]);
	for (int k = 0; k < 9; k++)
		e->vir[k] = mm_acc_value(acc[MM_ACC_VIR + k]);
	/* the PME part's energy has the self term, booked (by the
	 * non-bonded kernel) under Coulomb (SR) */
	e->term[FEK_MM_E_COULRECIP] -= g->self;
	if (g->o.dispcorr != FEK_MM_DISP_NO)
		e->term[FEK_MM_E_DISPCORR] = fek_mm_disp_corr(t, &g->o,
		    fek_box_volume(b));
	e->pot = 0;
	for (int k = 0; k < FEK_MM_NTERM; k++)
		e->pot += e->term[k];
	return 0;
}

extern "C" int
fek_mm_gpu_eval(struct fek_mm_gpu *g, const struct fek_box *b, int place,
    double *x, double *f, struct fek_mm_energy *e)
{
	const struct fek_mm_top *t = g->t;
	struct mm_dev *d = &g->d;
	long n = t->n;

	memset(e, 0, sizeof *e);
	if (n == 0)
		return 0;
	CK(cudaMemcpy(d->x, x, n * 3 * sizeof(double), cudaMemcpyHostToDevice),
	    "positions");
	if (mm_gpu_forces(g, b, place, 1) < 0)
		return -1;
	CK(cudaMemcpy(g->fh, d->f, n * 3 * sizeof(unsigned long long),
	    cudaMemcpyDeviceToHost), "forces");
	if (mm_nonbonded_check(g->nbl, b) < 0)
		return -1;
	if (place && t->il[FEK_MM_VSITE3].n > 0)
		CK(cudaMemcpy(x, d->x, n * 3 * sizeof(double),
		    cudaMemcpyDeviceToHost), "positions");
	for (long i = 0; i < 3 * n; i++)
		f[i] = mm_acc_value(g->fh[i]);
	return mm_gpu_energy(g, b, e);
}

extern "C" int
fek_mm_gpu_pairlist(struct fek_mm_gpu *g, double *rlist, long *builds,
    int *room)
{
	return mm_nonbonded_stats(g->nbl, rlist, builds, room);
}

extern "C" void
fek_mm_gpu_free(struct fek_mm_gpu *g)
{
	struct mm_dev *d;

	if (g == NULL)
		return;
	d = &g->d;
	mm_pme_gpu_free(g->pme);
	mm_nblist_free(g->nbl);
	cudaFree(d->q);
	cudaFree(d->type);
	cudaFree(d->c6);
	cudaFree(d->c12);
	for (int k = 0; k < FEK_MM_NKIND; k++) {
		cudaFree(d->atoms[k]);
		cudaFree(d->par[k]);
	}
	cudaFree(d->xstart);
	cudaFree(d->xlist);
	cudaFree(d->x);
	cudaFree(d->f);
	cudaFree(d->acc);
	free(g->fh);
	free(g);
}
