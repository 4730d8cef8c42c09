/*
 * bd_gpu.h - plain-C driver of bd-step's trajectories on the GPU
 * (kernels/bd/run.cu): lib/bd/run.c's fek_bd_run_cpu with the arithmetic of
 * lib/bd/bd_eval.h and the loop of lib/bd/bd_traj.h compiled by nvcc, a
 * warp per trajectory and a block per trajectory for the last ones
 * (FEK_BD_BLOCKS).  No CUDA syntax here; a build without nvcc links
 * lib/bd/bd_gpu_stub.c.
 */
#ifndef FEK_BD_GPU_H
#define FEK_BD_GPU_H

#include "bd/bd.h"

#ifdef __cplusplus
extern "C" {
#endif

struct fek_bd_gpu;


/* Upload s (atoms, grids, contacts).  NULL with fek_seterr(69 or 70). */
struct fek_bd_gpu *fek_bd_gpu_new(const struct fek_bd_sys *s);
/* fek_bd_run_cpu on the GPU.  -1 with fek_seterr(70). */
int	fek_bd_gpu_run(struct fek_bd_gpu *g, int64_t first, int64_t n,
	    struct fek_bd_outcome *out, void (*progress)(int64_t done,
	    int64_t n));
/* fek_bd_eval at n configurations cfg[11 n] (r, qa, qb): sum[FEK_BD_NSUM
 * n] and overlap[n].  For the tests (check-gpu). */
int	fek_bd_gpu_eval(struct fek_bd_gpu *g, long n, const double *cfg,
	    double *sum, int *overlap);
/* fek_bd_phi of solute `which` (0: A, 1: B) at n points y[3 n]: val[n],
 * grad[3 n]. */
int	fek_bd_gpu_phi(struct fek_bd_gpu *g, int which, long n,
	    const double *y, double *val, double *grad);
void	fek_bd_gpu_stats(const struct fek_bd_gpu *g,
	    struct fek_bd_gpu_stats *st);
void	fek_bd_gpu_free(struct fek_bd_gpu *g);

#ifdef __cplusplus
}
#endif

#endif
