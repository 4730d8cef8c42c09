/*
 * sample_out.h - sample-gen's output sections (fek(5)): a window's
 * samples (kind samples), or with -b its histogram as histogram(1) would
 * make it of them (kind histogram), or with -P the windows' histograms
 * pooled (kinds pooled and windows, lib/wham/pool.c).  The sinks of
 * fek_sample_run (sample.h), for the CPU and GPU runs alike.
 */
#ifndef FEK_SAMPLE_OUT_H
#define FEK_SAMPLE_OUT_H

#include "core/fek.h"
#include "stream/stream.h"
#include "wham/pool.h"
#include "wham/sample.h"

/* What every window's section needs.  Pointers are borrowed. */
struct fek_sample_out {
	struct fek_writer wr;
	const struct fek_grid *dom;	/* the domain (-r), its axes named */
	const struct fek_grid *hgrid;	/* -b's histogram grid, or NULL */
	const struct fek_window *win;	/* all windows, from window 1 */
	long first;			/* the run's first window (-j) */
	const char *unit;		/* -u, the axes' unit */
	const char *formula;		/* -p, the PMF */
	const char *cmd;		/* the command line, for PROV */
	enum fek_unit eunit;		/* -E */
	double temp, corr;		/* -t, -c (0: exact samples) */
	struct fek_pool *pool;		/* -P: the pool, else NULL */
	/* Called after window (from 1) is written or pooled, with its
	 * trial points; may be NULL. */
	void	(*progress)(void *ctx, long window, double proposals);
	void	*ctx;
};

/* The sinks that write o's sections (or pool them, with o->pool) window
 * after window; each returns -1 with fek_seterr for a window with no
 * sample inside the histogram grid (65) or a failed write. */
void	fek_sample_out_sink(struct fek_sample_out *o,
	    struct fek_gpu_sample_sink *sink);
/* -P, after the run: the pooled histogram and the table of its windows
 * (their centres, springs, samples, mean positions and overlap groups),
 * with a warning when the windows fall into groups that share no bin.
 * 0, or -1 with fek_seterr for a failed write. */
int	fek_sample_out_pool(struct fek_sample_out *o);

#endif
