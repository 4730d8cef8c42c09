/*
 * replica_run.h - a replica job (replica.h) as md-gpu runs it: its axes,
 * mode and defaults from what the user gave (replica_setup.c), and where
 * its results go (replica_output.c): frames, samples and trajectories
 * sections (fek(5)) on stdout, a DCD file and an energy log.
 */
#ifndef FEK_MD_REPLICA_RUN_H
#define FEK_MD_REPLICA_RUN_H

#include <stdio.h>

#include "stream/dcd.h"
#include "stream/stream.h"
#include "md/replica.h"

/* ---- set up (replica_setup.c) ------------------------------------------ */

/* The axes of dom named x, y, z (up to three) or x1, x2, ..., each in
 * unit; s's D, lo, hi, period and start point x0 (the middle) from
 * them. */
void	fek_md_axes(struct fek_grid *dom, const char *unit,
	    struct fek_md_sys *s);

/* What the user asked of job->mode; negative numbers are "not given". */
struct fek_md_request {
	/* umbrella: windows from a file, or count^D on a grid (-g, -k) */
	const char *winfile;
	long gridn;
	double spring;			/* also Voronoi milestones' (-k) */
	/* milestone: points on the first axis (-M, malloc'd: the job
	   keeps them), or Voronoi anchors and pairs (-A, -I) */
	double *mpos;
	int nm;
	const char *anchfile, *pairfile;
	int nobridge;			/* -B */
	long maxself;			/* -F (-2: not given) */
	long nsteps, every;		/* -n, -e */
	long first, last;		/* -j, from 1 */
};

/*
 * job->mode's part of job and of job->sys from rq, with its defaults:
 * umbrella: the windows (*nwin of them), 10000 steps, a sample every
 * 10; milestone: the milestones (points, or anchor pairs with the
 * restraint of Eq. 2.90), backward runs of Brownian dynamics bridged,
 * first hitting points checked (-1 for Brownian dynamics, else 1 of a
 * trajectory's own), at most 10^6 steps a run, a sample every 100
 * steps; run: 1000 steps, a frame at the end.  job->nsteps, every,
 * first and last (from 0) are set.  -1 with fek_seterr: 64 for what
 * the options ask that cannot be, 65 or 66 for the files.
 */
int	fek_md_mode_setup(struct fek_md_job *job, struct fek_md_request *rq,
	    long *nwin);
/* The stiffest restraint of job (its windows', nwin of them, or its
 * milestones') into *kmax, and the integrator's stability number for
 * it: D dt k / kT for Euler-Maruyama (stable below 2), dt sqrt(k / m)
 * for Verlet and BAOAB (omega dt < 2); above 1 is near the limit. */
double	fek_md_stability(const struct fek_md_job *job, long nwin,
	    double *kmax);
/* Free what fek_md_mode_setup allocated (windows, milestones). */
void	fek_md_job_free(struct fek_md_job *job);

/* ---- output (replica_output.c) ----------------------------------------- */

struct fek_md_output {
	/* set by the caller */
	const struct fek_md_job *job;
	const char *unit, *tunit;	/* length and time units (-u, -U) */
	enum fek_unit eunit;		/* energies (-E) */
	double temp;			/* K */
	const char *cmd;		/* the command line (PROV) */
	int text;			/* the text twin on stdout */
	/* opened by fek_md_output_open */
	struct fek_writer wr;		/* stdout */
	struct fek_dcd *dcd;
	FILE *logfp;
	struct fek_writer lw;		/* the energy log */
	const char *logpath;
	long long rows_total;		/* milestone: rows in the section */
	int started;			/* milestone: the section begun */
	double *buf;
	long long bufcap;
};

/* Open the DCD file (dcdpath, else none: frames of every replica, the
 * first after equil + every steps) and the energy log (logpath, else
 * none; its header written); sections go to stdout.  -1 with
 * fek_seterr(74). */
int	fek_md_output_open(struct fek_md_output *o, const char *dcdpath,
	    const char *logpath);
/* What fek_md_sink's members write (replica.h), to o: run mode's frame
 * (a frames section, a DCD frame, a log row of the mean energies and
 * the temperature 2 <K> / (D kB)); umbrella window w's samples section,
 * with the largest statistical inefficiency of its axes into *g;
 * milestone m's trajectories records (the one section begun with the
 * first).  Each 0, or -1 with fek_seterr (74; 1 for a trajectory that
 * stopped being finite). */
int	fek_md_output_frame(struct fek_md_output *o, long long step,
	    const double *x, const double *v, const double *u, long long R);
int	fek_md_output_window(struct fek_md_output *o, long w, const double *x,
	    long long nrep, long long nsamp, double *g);
int	fek_md_output_records(struct fek_md_output *o, long m,
	    const double *rec, long long n);
/* End the trajectories section, where one was begun.  -1 with
 * fek_seterr(74). */
int	fek_md_output_finish(struct fek_md_output *o);
/* Close the DCD file and the log (stdout is the caller's).  -1 with
 * fek_seterr(74). */
int	fek_md_output_close(struct fek_md_output *o);

#endif
