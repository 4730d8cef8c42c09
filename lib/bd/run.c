/*
 * run.c - bd-step's trajectories on the CPU, the reference of
 * kernels/bd/run.cu: the loop of bd_traj.h (the NAM method, Northrup,
 * Allison and McCammon 1984) over the step of bd_eval.h.
 *
 * The interaction is summed in the fixed order of bd_eval.h (sub-lanes,
 * lanes, a tree), as a warp or a block does on the GPU.  OpenMP spreads
 * trajectories over threads; each depends only on the seed and its id.
 */
#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "core/fek.h"
#include "bd/bd.h"

int
fek_bd_eval(const struct fek_bd_sys *s, const double *r, const double *qa,
    const double *qb, double *sum)
{
	double acc[FEK_BD_LANES][FEK_BD_NSUM], RA[9], RB[9];
	int overlap = 0;

	fek_bd_quat_matrix(qa, RA);
	fek_bd_quat_matrix(qb, RB);
	for (int l = 0; l < FEK_BD_LANES; l++)
		overlap |= fek_bd_lane_sum(s, r, RA, RB, l, acc[l]);
	for (int off = FEK_BD_LANES / 2; off > 0; off /= 2)
		for (int l = 0; l < off; l++)
			for (int k = 0; k < FEK_BD_NSUM; k++)
				acc[l][k] += acc[l + off][k];
	memcpy(sum, acc[0], sizeof acc[0]);
	return overlap;
}

#define FEK_BD_TRAJ_FN static int trajectory
#define FEK_BD_TRAJ_ARGS , fek_bd_logfn log, void *ctx
#define FEK_BD_EVAL(r, qa, qb, sum) fek_bd_eval(s, r, qa, qb, sum)
#define FEK_BD_LOG(st) (log ? log(ctx, traj, st) : 0)
#define FEK_BD_PAUSE() 0
#include "bd/bd_traj.h"

int
fek_bd_trajectory(const struct fek_bd_sys *s, int64_t traj,
    struct fek_bd_outcome *out, fek_bd_logfn log, void *ctx)
{
	struct fek_bd_state st;

	return trajectory(s, traj, out, &st, 0, log, ctx);
}

void
fek_bd_run_cpu(const struct fek_bd_sys *s, int64_t first, int64_t n,
    struct fek_bd_outcome *out, void (*progress)(int64_t done, int64_t n))
{
	int64_t done = 0;

#pragma omp parallel for schedule(dynamic, 1)
	for (int64_t i = 0; i < n; i++) {
		fek_bd_trajectory(s, first + i, &out[i], NULL, NULL);
		if (progress) {
			int64_t d;

#pragma omp atomic capture
			d = ++done;
			/* told by one thread only, after each of its
			 * trajectories: the caller's reporter reads the
			 * clock and writes only when a line is due */
#ifdef _OPENMP
			if (omp_get_thread_num() == 0)
#endif
				progress(d, n);
		}
	}
	if (progress)
		progress(n, n);
}
