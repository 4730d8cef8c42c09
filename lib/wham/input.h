/*
 * input.h - wham-gpu's input (wham/input.c): fek(5) sections histogram,
 * logbias, pooled and windows read into the WHAM problem of wham/wham.h
 * (Potgieter 2014, Eqs. 3.3-3.5), the bias built for windows that came
 * without one; and its output (wham/output.c): the prob and winfree
 * sections of the solution.
 */
#ifndef FEK_WHAM_INPUT_H
#define FEK_WHAM_INPUT_H

#include <stdint.h>
#include <stdio.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "wham/bias.h"
#include "wham/wham.h"

struct fek_wham_slab;

struct fek_wham_input {
	struct fek_wham_problem p;	/* what the solvers take */
	struct fek_header first;	/* the first section's keys, carried
					 * to the output */
	enum fek_unit energy;		/* the springs' energy unit (ENERGY) */
	enum fek_bias_eval how;		/* the bias built here (-a, -c, -S,
					 * -w) */
	long built;			/* windows whose bias was built here */
	int check_centre;		/* the default, fine bins: the centre
					 * solve kept unless the bin shape
					 * would matter (FEK_BIAS_SPLINE's
					 * keep_centre, wham/binshape.h) */

	/* the reader's own */
	int how_asked;			/* how was asked for, not the default */
	int keep;			/* keep the histograms (-B) */
	int have_first;
	long cap, nbias;
	long long nnz, nnzcap;
	unsigned char *tobuild;		/* per window: its bias built here */
	struct fek_wham_overlap ov;
	long lnc_cap;			/* windows the lnc table holds */
	double *chunk;			/* rows read at a time */
	/* i32 histograms read whole and summed afterwards, in parallel
	 * (fek_wham_input_finish); the others are summed as they are read */
	struct fek_wham_slab *slabs;	/* where their (bin, count) pairs lie */
	long long pk_n;			/* pairs held */
	int32_t **pk_at;		/* per window: its pairs, NULL if summed */
	long long *pk_len;
	long *section;			/* per window: section, for messages */
	char **sname;			/* per window: its stream's name */
	char **names;			/* the streams' names (owned) */
	long nnames;
	long pool_sec;			/* a pooled section's number, or 0 */
	long pool_win;			/* its WINDOWS */
	double pool_total;		/* its counts, summed */
};

/* An empty input whose windows without a logbias section get the bias
 * how (FEK_BIAS_SPLINE by default), how_asked 1 when an option asked for
 * it (the default may still settle for FEK_BIAS_CENTRE, see
 * fek_wham_input_end); keep 1 keeps every window's histogram in
 * p.hist_start, p.hist_bin and p.hist_count (the bootstrap's, -B). */
void	fek_wham_input_init(struct fek_wham_input *in, enum fek_bias_eval how,
	    int how_asked, int keep);
/* Read the stream path ("-" for standard input) into in: histogram
 * sections (bin, count; WINDOW, TEMP, ENERGY, AXIS/BINS, INEFFICIENCY or
 * CORRTIME), each optionally followed by its logbias (ln c_d, sum_d n_d
 * rows, in kT), or one pooled section followed by its windows section.
 * Streams read in turn add to the same problem; the grid, TEMP (K) and
 * ENERGY must be the first section's.  -1 with fek_seterr: 66 when path
 * cannot be opened, 65 for bad or inconsistent data (naming the stream,
 * section and row), 1 for a pooled window outside the first's overlap
 * group, 70 out of memory. */
int	fek_wham_input_read(struct fek_wham_input *in, const char *path);
/* After the last stream: the bias of the last window without a logbias
 * section, and the bias evaluation settled.  The default (FEK_BIAS_SPLINE
 * not asked for), where every window's bias is built here, goes by the
 * bins' width: *width is set to the widest bins, in window widths
 * sqrt(kT/k) of their axis's stiffest spring; up to one width
 * in->check_centre is set (solve with the centre values first and keep
 * them unless the bin shape would matter), and 1 is returned.  Where some
 * windows came with a logbias section the others get FEK_BIAS_CENTRE
 * (bias-build's default), and 0 is returned, as when the bias was asked
 * for.  -1 with fek_seterr: 65 for an input without histograms, a pooled
 * section without its windows, or FEK_BIAS_SPLINE asked for with logbias
 * sections in the input; 70 out of memory. */
int	fek_wham_input_end(struct fek_wham_input *in, double *width);
/* After fek_wham_input_end: the histograms read whole summed into p.n and
 * p.counts (each row checked), the biases built here written into p.lnc,
 * and the windows checked to share sampled bins, directly or through
 * others.  -1 with fek_seterr: 65 for a bad row or a window without
 * samples, 1 for windows that do not overlap, 70 out of memory. */
int	fek_wham_input_finish(struct fek_wham_input *in);
/* Everything in holds, p included. */
void	fek_wham_input_free(struct fek_wham_input *in);

/* Write the solution res of in's problem to fp (text: the text twin):
 * a prob section (lnp, and sd_lnp after a bootstrap, per bin) and a
 * winfree section (each window's centre, spring, F in kT, n, and sd_F
 * after a bootstrap), with the first section's PMF and PROV keys, the
 * solver's account (tol in kT, the option given) and a PROV line of argv.
 * -1 with fek_seterr(74) on a write error. */
int	fek_wham_output_write(FILE *fp, int text,
	    const struct fek_wham_input *in, const struct fek_wham_result *res,
	    double tol, int argc, char **argv);

#endif
