/*
 * replica.h - md-gpu's jobs: batched dynamics of independent replicas of a
 * particle in a model potential (lib/md/replica_eval.h), run on the CPU
 * (lib/md/replica.c, the double-precision reference) or the GPU
 * (kernels/md/replica.cu), in three modes:
 *   run        replicas from a start point; frames every `every` steps;
 *   umbrella   replicas in harmonic windows; samples every `every` steps
 *              after `equil` steps (Potgieter 2014's umbrella sampling,
 *              with dynamics in place of independent draws);
 *   milestone  replicas on milestones; from every sample a backward and
 *              a forward run (seed 003, sections 2.4.8-2.4.9, 5.1.4-5.1.5).
 * Replica g (numbered over the whole job, windows or milestones first)
 * draws its random numbers from its own streams, so a replica's output
 * depends on the seed and g only: a job split by window or milestone
 * ranges (GNU parallel) gives the same rows.
 */
#ifndef FEK_MD_H
#define FEK_MD_H

#include "core/fek.h"
#include "stream/grid.h"

#define FEK_MD_TYPES_ONLY
#include "md/replica_eval.h"
#undef FEK_MD_TYPES_ONLY

enum fek_md_mode { FEK_MD_RUN, FEK_MD_UMBRELLA, FEK_MD_MILESTONE };

struct fek_md_job {
	struct fek_md_sys sys;
	enum fek_md_mode mode;
	const char *formula;		/* FEK_POT_EXPR: the user's text */
	const struct fek_grid *dom;	/* the axes (-r) */
	unsigned long long seed;
	long long replicas;		/* run: all; else per window or
					   milestone */
	long long nsteps;		/* run, umbrella: steps after equil */
	long long equil;		/* steps before the first output */
	long long every;		/* steps between frames or samples */
	long long nsamp;		/* milestone: samples per replica */
	long first, last;		/* windows or milestones run, from 0 */
	const struct fek_window *win;	/* umbrella: all windows */
	int want_v, want_u;		/* run: frames need v, u */
	int progress;			/* a progress line on stderr */
};

/* Where results go, in order.  Each returns 0, or -1 with fek_seterr.
 *   frame:   run mode, after `step` steps (from the start, equil
 *            included): x and v (NULL unless want_v) replica-major,
 *            R x D; u (NULL unless want_u) the potential energies;
 *   window:  umbrella mode, window w (from 0): nrep x nsamp x D samples,
 *            replica after replica, each in time order;
 *   records: milestone mode, milestone m (from 0): n records of
 *            FEK_MD_NREC numbers (start end t valid id bend bt nself),
 *            replica after replica, each in sample order. */
struct fek_md_sink {
	void *ctx;
	int (*frame)(void *ctx, long long step, const double *x,
	    const double *v, const double *u, long long R);
	int (*window)(void *ctx, long w, const double *x, long long nrep,
	    long long nsamp);
	int (*records)(void *ctx, long m, const double *rec, long long n);
	/* optional: the fraction of the job done */
	void (*progress)(void *ctx, double done);
};

/* replica_pot.c: a -p argument: "dw[:Eb]" (sum over axes of Eb (x^2 - 1)^2,
 * Eb = 1), "mb[:scale]" (Mueller-Brown, 2-D), "torsion[:a1,...,a6]" (sum
 * over axes of sum_n a_n (1 + cos(n x)), x in degrees; a = 0.6,0,1.4 the
 * butane-like default), or a libmatheval formula in the axes' names.
 * Sets s->pot and s->par; *formula is a malloc'd libmatheval text of the
 * potential (the user's text for a formula).  -1 with fek_seterr(64). */
int	fek_md_potential_parse(const char *arg, int ndim,
	    struct fek_md_sys *s, char **formula);

/* replica_input.c: -M as "m0,m1,..." (increasing) or "lo:hi:step" (*out
 * malloc'd, *n points); -x as D comma-separated numbers; a text table of
 * rows of ncol numbers ('#' comments and blank lines skipped; what names
 * the rows in messages; NULL on error).  -1 or NULL with fek_seterr: 64
 * for options, 65 for a malformed file, 66 for one that cannot be read. */
int	fek_md_parse_points(const char *arg, double **out, int *n);
int	fek_md_parse_point(const char *arg, int D, double *x);
double	*fek_md_load_table(const char *path, int ncol, const char *what,
	    long *n);

/* md.c: the derived constants of s (mu, sig, c1, c2, hdtm). */
void	fek_md_prepare(struct fek_md_sys *s);
/* Run job on the CPU, in threads over replicas.  0, or -1 with
 * fek_seterr (the sink's error, or 70). */
int	fek_md_run_cpu(const struct fek_md_job *job,
	    const struct fek_md_sink *sink);

/* Diagnostics of a GPU run, for -v and benchmarks. */
struct fek_gpu_md_stats {
	int cache_hit;		/* the compiled kernels came from the cache */
	double compile_ms;	/* NVRTC, or reading the cache */
	double kernel_ms;	/* dynamics on the device, all launches */
	double copy_ms;		/* device to host copies */
	double sink_ms;		/* time in the sinks (writing) */
	int normals64;		/* double-precision normals */
	char device[128];	/* the device's name */
};

/* engine.c: job on use (FEK_DEV_CPU or FEK_DEV_GPU, as
 * fek_device_resolve gave it): fek_md_run_cpu or its GPU twin
 * (kernels/md/replica.cu), the same rows to sink in the same order.  st
 * (may be NULL) gets the GPU's timings, zeros on the CPU.  0, or -1 with
 * fek_seterr as the engine's. */
int	fek_md_run(const struct fek_md_job *job, enum fek_device use,
	    const struct fek_md_sink *sink, struct fek_gpu_md_stats *st);


#endif
