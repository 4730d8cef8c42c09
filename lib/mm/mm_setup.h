/*
 * mm_setup.h - a molecular run (mm.h) as md-gpu --top is asked for it:
 * the .mdp's options and the command line's merged over them, the
 * topology with the .mdp's include and define (md_setup.c); the degrees
 * of freedom and where the dynamics runs (md_setup.c); the rerun of
 * stored frames (rerun.c); a batch of replicas run and written out
 * (batch_run.c).
 */
#ifndef FEK_MM_SETUP_H
#define FEK_MM_SETUP_H

#include <stdio.h>

#include "stream/grid.h"
#include "stream/stream.h"
#include "mm/mm.h"
#include "mm/mm_output.h"

struct fek_mm_gpu;

/* ---- the options (md_setup.c) -------------------------------------------- */

/* GROMACS's defaults, then mdp's keys (mdp NULL: none), then the command
 * line's skin (< 0: not given) and precision (mixed < 0: not given; the
 * default is mixed pairs on the GPU only, the CPU being the double
 * precision reference).  -1 with fek_seterr (fek_mm_opt_read's). */
int	fek_mm_opt_setup(struct fek_mm_opt *o, const char *mdp, double skin,
	    int mixed, int gpu);
/* The topology path read with o's include (-I directories) and define,
 * and the bonds o's constraints asks made constraints.  -1 with
 * fek_seterr (65 for an include that is not -Idir). */
int	fek_mm_top_load(struct fek_mm_top *t, const char *path,
	    const struct fek_mm_opt *o);

/* The command line of a run, over the .mdp's values: negative numbers
 * and NULL are "not given". */
struct fek_mm_cmd {
	const char *mdp;		/* its name, for messages */
	int integrator;			/* FEK_MM_INT_VV or _LANGEVIN, or -1 */
	const char *tcoupl, *pcoupl;
	double dt, temp, fric, pressure;
	long nsteps, every, thermo, seed;
	int batch;			/* a batch of replicas */
};

/*
 * How to run, from o and c (c's values where given): the integrator
 * (the .mdp's sd is Langevin, md and md-vv velocity Verlet), the time
 * step and steps; velocity Verlet coupled by v-rescale (Bussi et al.
 * 2007) or a Nose-Hoover chain (Martyna, Tuckerman and Klein 1996) at
 * tau-t (0.1 ps where none); Langevin's friction 1 / tau-t (1 / ps where
 * none); the Monte Carlo barostat at ref-p (1 bar where none) every
 * nstpcouple steps (25 where none); the seed (gen-seed, else 1) keyed
 * for Philox; frames at the end (a batch's samples every 100 steps) and
 * log rows every 100 steps where not given.  *temp: the temperature (K)
 * the run is at.  -1 with fek_seterr(64) for what md-gpu cannot run.
 */
int	fek_mm_md_setup(struct fek_mm_md *md, double *temp,
	    const struct fek_mm_opt *o, const struct fek_mm_cmd *c);
/* The integrator as the log names it: langevin, vv, vv v-rescale, vv
 * nose-hoover. */
const char *fek_mm_md_name(const struct fek_mm_md *md);
/* Degrees of freedom of a run of t by integrator: fek_mm_dof with t's
 * constraints.  -1 with fek_seterr(65) (fek_mm_constr_new's). */
int	fek_mm_run_dof(const struct fek_mm_top *t, int integrator, long *dof);
/* What a run did, for -v. */
struct fek_mm_dyn_stats {
	double seconds;		/* the steps, wall clock, set up excluded */
	int gpu;		/* the GPU's pair list below is known */
	double rlist;		/* its outer radius, nm */
	long builds;		/* times it was built */
	int room;		/* partners a row holds */
};
/*
 * Run md from x, v in b (all updated) with sink on use (FEK_DEV_CPU or
 * FEK_DEV_GPU, as fek_device_resolve gave it): on the GPU resident there
 * (fek_mm_gpu_run, the barostat's moves included), but for
 * FEK_MM_HOSTRUN=1 (the host driving the GPU's forces, to compare), which
 * runs fek_mm_run with the GPU's forces; on the CPU fek_mm_run, the
 * reference.  st (may be NULL) what it did.  -1 with fek_seterr.
 */
int	fek_mm_dynamics(const struct fek_mm_top *t, const struct fek_mm_opt *o,
	    const struct fek_mm_md *md, enum fek_device use, struct fek_box *b,
	    double *x, double *v, const struct fek_mm_sink *sink,
	    struct fek_mm_dyn_stats *st);
/* A .gro of t at x, v in b to path with title.  -1 with fek_seterr(74). */
int	fek_mm_gro_save(const char *path, const struct fek_mm_top *t,
	    const char *title, const struct fek_box *b, const double *x,
	    const double *v);

/* ---- the rerun (rerun.c) ------------------------------------------------- */

/*
 * Every frame of the trajectory path (format NULL: guessed; trajin.h)
 * evaluated as gmx mdrun -rerun does (virtual sites as the frame has
 * them), on the GPU (gpu) or the CPU, both on the PME grid of the first
 * frame's cell: one mmenergy section (fek(5)) of every term to fp, text
 * or not, with PROV cmd, written once every frame has been read and
 * evaluated (nothing is written on an error).  top names t in messages.
 * -1 with fek_seterr: 65 for a frame of another size, a box
 * fek_mm_box_check refuses, or no frame; 1 for an energy that is not
 * finite; the reader's and the GPU's.
 */
int	fek_mm_rerun(const struct fek_mm_top *t, const struct fek_mm_opt *o,
	    const char *top, const char *path, const char *format, int gpu,
	    FILE *fp, int text, const char *cmd);

/* ---- a batch of replicas (batch_run.c) ----------------------------------- */

/* A batch's run: what fek_mm_replicas_run is given and leaves. */
struct fek_mm_batch_run {
	struct fek_mm_batch bt;		/* nrep, nwin, skip set by the
					   caller; every from md */
	const struct fek_window *win;	/* the windows' restraints, or NULL */
	double temp;			/* K, for the samples' TEMP (0: none) */
	long long nsamp;		/* samples per replica */
	double *x, *v;			/* the replicas' last configurations,
					   (nwin nrep) x n x 3 */
	double *samples;		/* (nwin nrep) x nsamp x ncv */
	double *centre, *spring;	/* bt's */
	double seconds;			/* the run's wall time */
};

/*
 * Run the replicas of r from conf: the torsions of cv (whose atoms must
 * be t's), the integrator of md (Langevin, or velocity Verlet without a
 * thermostat) at constant volume; velocities generated per replica
 * where o asks, else conf's; on the GPU (gpu) or the CPU; progress as
 * fek_mm_replicas_run's.  -1 with fek_seterr (64 for what replicas
 * cannot run).
 */
int	fek_mm_batch_start(struct fek_mm_batch_run *r,
	    const struct fek_mm_top *t, const struct fek_mm_opt *o,
	    const struct fek_mm_md *md, const struct fek_mm_cvset *cv,
	    const struct fek_mm_conf *conf, int gpu,
	    void (*progress)(long done, long total));
/* Its samples, a samples section a window (the torsions in degrees,
 * periodic; the window's restraint; the statistical inefficiency), to
 * fp, text or not, with PROV cmd.  -1 with fek_seterr(74). */
int	fek_mm_batch_write(const struct fek_mm_batch_run *r,
	    const struct fek_mm_md *md, const struct fek_mm_cvset *cv,
	    FILE *fp, int text, const char *cmd);
/* Its last configurations to path, a .gro frame a replica.  -1 with
 * fek_seterr(74). */
int	fek_mm_batch_gro(const struct fek_mm_batch_run *r, const char *path,
	    const struct fek_mm_top *t, const struct fek_mm_md *md,
	    const struct fek_box *b);
void	fek_mm_batch_free(struct fek_mm_batch_run *r);

#endif
