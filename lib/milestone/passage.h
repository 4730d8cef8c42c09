/*
 * passage.h - direct mean first passage times between two core sets A
 * and B of one collective variable, counted on time series of unbiased
 * dynamics (milestone/passage.c): the reference that Milestoning MFPTs
 * are checked against (seed 003 thesis, section 4.1.4, its long MD).
 * Transition-based (core-set) assignment after Buchete and Hummer, J.
 * Phys. Chem. B 112, 6057 (2008): a trajectory is committed to the core
 * it visited last.  The MFPT is the maximum-likelihood mean of
 * exponential waiting times with censored stays, T / n, with the
 * chi-square interval of Epstein and Sobel, J. Am. Stat. Assoc. 48, 486
 * (1953).
 *
 * The library never prints or exits: failures return -1 after
 * fek_seterr() (64: cores that do not fit the axis; 65: bad data; 66: no
 * file).
 */
#ifndef FEK_MS_PASSAGE_H
#define FEK_MS_PASSAGE_H

#include <stdio.h>

#include "stream/stream.h"

/* Core c of the two, 0 (A) and 1 (B): the closed interval [lo, hi] of
 * the coordinate or, on a periodic axis with lo > hi, the arc from lo
 * across the period to hi. */
struct fek_passage_core {
	double lo, hi;
};

/* The cores and the axis of the coordinate: periodic with the domain
 * [lo, hi), or open. */
struct fek_passage_cores {
	struct fek_passage_core c[2];
	int periodic;
	double lo, hi;
};

/* The cores against the axis: lo > hi only on a periodic axis, whose
 * domain [lo, hi] holds the bounds there, and no point in both cores.
 * unit names the coordinate's unit in the message.  -1 with code 64. */
int	fek_passage_cores_check(const struct fek_passage_cores *cs,
	    const char *unit);
/* The core of x: 0 (A), 1 (B) or -1 (neither).  Periodic coordinates
 * are compared modulo the period. */
int	fek_passage_core_of(const struct fek_passage_cores *cs, double x);

/* One trajectory's commitment, between its samples. */
struct fek_passage_traj {
	int state;		/* -1: no core visited yet; 0 A; 1 B */
	int entered;		/* the commitment began at an entry (not at
				 * the first sample) */
	long long seen;		/* samples so far */
	double t_prev;		/* the time of the last sample */
	double t_enter;		/* when the commitment began */
};

/* The tallies over all trajectories, by direction d: 0 is A -> B (the
 * time committed to A), 1 is B -> A. */
struct fek_passage_tally {
	double n[2];		/* commitments switched d's way */
	double time[2];		/* time committed to d's start core */
	double passages[2];	/* complete passages: entry to entry */
	double passage_time[2];	/* their summed durations */
	double visits[2];	/* samples in A and in B */
	double span;		/* time between first and last samples */
	long long trajectories, samples;
};

void	fek_passage_traj_init(struct fek_passage_traj *tr);
/* The next sample of trajectory tr into tl: at time t (later than the
 * last), in core (0, 1, or -1 for neither, from fek_passage_core_of).
 * The interval since the last sample counts to the core committed to
 * then; entering the other core switches the commitment. */
void	fek_passage_sample(struct fek_passage_tally *tl,
	    struct fek_passage_traj *tr, double t, int core);
/* Trajectory tr ends (its trailing stay stays counted, censored). */
void	fek_passage_traj_end(struct fek_passage_tally *tl,
	    struct fek_passage_traj *tr);

/* One direction's answer, in the time unit of the series. */
struct fek_passage_estimate {
	double mfpt;		/* time / n; inf for n = 0 */
	double rate;		/* n / time; 0 for n = 0 */
	double sd;		/* mfpt / sqrt(n); inf for n = 0 */
	double lo95, hi95;	/* 2 T / chi2_0.975(2n), 2 T / chi2_0.025(2n);
				 * for n = 0, 2 T / chi2_0.975(2) and inf */
	double n, time;		/* transitions, committed time */
	double passages;	/* complete passages */
	double mean_passage;	/* their mean duration; inf for none */
};

/* Direction d (0 A -> B, 1 B -> A) of tl into e. */
void	fek_passage_estimate(const struct fek_passage_tally *tl, int d,
	    struct fek_passage_estimate *e);

/* ---- the input: samples and frames sections -------------------------- */

struct fek_passage_request {
	const char *column;	/* the coordinate; NULL: the first column */
	double dt;		/* > 0: the time between samples; 0: from
				 * the keys */
	struct fek_passage_core core[2];	/* A and B */
};

struct fek_passage_input {
	struct fek_passage_tally tl;
	struct fek_passage_cores cores;	/* as requested, with the axis */
	char column[FEK_NAMELEN];	/* the coordinate and its unit */
	char unit[FEK_NAMELEN];
	char tunit[FEK_NAMELEN];	/* the time unit ("1" unknown) */
	char *axis;			/* the coordinate's AXIS line, or NULL */
	struct fek_header keys;		/* the first section's keys */
	long sections;
	double dt_lo, dt_hi;		/* the shortest and longest time
					 * between samples */
};

/* Count the time series of path ("-" for stdin) into in: samples
 * sections (each replica's rows in turn, REPLICAS of them; the time
 * between rows SAMPLING's every times TIMESTEP, or rq->dt) and frames
 * sections of replicas in a model potential (one section a time, a row
 * a replica; the time TIME, or rq->dt per section), binary or text.  A
 * biased (WINDOW) section, a particle system's frames, another kind, a
 * missing column or time and no samples at all are refused: -1 with
 * code 65 naming the stream, section and key (66: no file; 64: cores
 * that do not fit the coordinate's axis, or no time between samples). */
int	fek_passage_read(struct fek_passage_input *in,
	    const struct fek_passage_request *rq, const char *path);
void	fek_passage_input_free(struct fek_passage_input *in);

/* The mfpt section (A -> B, then B -> A) to fp, binary or the text twin,
 * with the cores, the column, the time unit and the number of
 * trajectories as keys, the first section's TEMP and PROV and one PROV
 * of argv.  -1 with code 74 on a write error. */
int	fek_passage_write(FILE *fp, int text,
	    const struct fek_passage_input *in,
	    const struct fek_passage_estimate est[2], int argc, char **argv);

#endif
