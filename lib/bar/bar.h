/*
 * bar.h - excess chemical potentials (free-energy differences) from test
 * insertions and deletions: Daly, Benziger, Debenedetti & Panagiotopoulos,
 * Comput. Phys. Commun. 183, 2054 (2012):
 *   TPI  Eq. 1   beta mu = -ln <exp(-x)>_N             (Widom)
 *   DEL          beta mu =  ln <exp(+x)>_N+1           (test deletion)
 *   OS   Eq. 2   beta mu = -ln <exp(-x/2)>_N + ln <exp(x/2)>_N+1
 *   BAR  Eqs. 3-6: C solves sum_ins f(x - C) = sum_del f(C - x),
 *        f(a) = 1/(1 + e^a), and beta mu = C - ln(n_del/n_ins) (Eq. 5)
 * with x = beta u (NVT) or x = beta u - ln(V/<V>) (NPT, Eqs. 7-9; see
 * fek_pert_npt), all in kT.  On work values (fek_pert_from_work) the same
 * numbers are pymbar's EXP forward, -EXP reverse, and BAR(w_F, w_R).
 *
 * Errors: the standard deviation from Flyvbjerg-Petersen blocking of each
 * configuration's linear influence on the estimate (the delta method;
 * core/blocking.h), and the one for independent moves: the exponential-average
 * variance, and for BAR Bennett's asymptotic variance (Bennett 1976,
 * Eq. 10a with the denominator n <f>^2, as in pymbar).
 */
#ifndef FEK_BAR_H
#define FEK_BAR_H

#include <stddef.h>
#include <stdio.h>

#include "core/blocking.h"
#include "core/fek.h"
#include "bar/pert.h"

enum fek_method { FEK_M_TPI, FEK_M_DEL, FEK_M_OS, FEK_M_BAR, FEK_NMETHOD };

struct fek_estimate {
	double value;		/* beta mu_ex, or dF, in kT */
	double sd;		/* blocked over configurations, kT; +inf with
				 * fewer than two configurations */
	double sd_iid;		/* independent moves, kT; -1: no samples */
	double n_eff;		/* the smallest effective number of moves
				 * (or configurations) the estimate rests on */
	int n_eff_conf;		/* n_eff counts configurations */
	int nser;		/* blocked series: 1, or 2 (one per side) */
	int ser_side[2];	/* FEK_INS, FEK_DEL, or -1 for both */
	struct fek_blocking blk[2];
	/* with samples on both sides (OS and BAR): */
	int have_bar;
	double C;		/* beta C of Eq. 5 */
	double bar;		/* the BAR estimate */
	double n_ovl;		/* sum_ins f(x - C) = sum_del f(C - x) */
	double overlap;		/* the MBAR overlap scalar, 0..1 */
	double s_ins, s_del;	/* relative entropies <x>_ins - bar and
				 * bar - <x>_del (Wu & Kofke 2005) */
	double range;		/* BAR's shift when histogram samples beyond
				 * the range sit at its edge; 0 if none */
};

const char *fek_method_name(int m, int work);	/* "TPI" or "EXP_F" ... */
/* 1 if the data hold what method m needs, else 0 and why. */
int	fek_method_possible(const struct fek_pert *p, int m, char *why,
	    size_t len);

/* Method m on the first k[FEK_INS] insertion and k[FEK_DEL] deletion
 * configurations of p (-1, or a count above the total: all of them).
 * 0, or -1 with fek_seterr(1) when the estimate does not exist (every
 * insertion overlaps, BAR has no root, ...). */
int	fek_estimate(const struct fek_pert *p, int m, const long *k,
	    struct fek_estimate *e);

/* The prefixes of a convergence trace: ten per decade of configurations
 * (the same fraction of each side's), ascending, from two configurations
 * a side to all of the data; pairs (k_ins, k_del) in *out (malloc'd),
 * their number returned (0 with fewer than two configurations). */
long	fek_trace_points(const struct fek_pert *p, long **out);

/* trace.c (bar-solve -c): the estimates of the methods in want
 * (FEK_NMETHOD flags) with their sd over each of fek_trace_points'
 * prefixes, as one fek(5) convergence section (text) to fp, PROV from
 * argc, argv; a prefix where a method has no estimate is left out.
 * progress (may be NULL) is called with each row and its count, and with
 * row -1 at the end.  -1 with fek_seterr(74) on a write error. */
int	fek_trace_write(FILE *fp, const struct fek_pert *p, const int *want,
	    int argc, char **argv, void (*progress)(long row, long n));
/* The same section into the file path, made whole before the file is
 * opened.  -1 with fek_seterr(74) when path cannot be written, (70) when
 * the trace cannot be buffered. */
int	fek_trace_save(const char *path, const struct fek_pert *p,
	    const int *want, int argc, char **argv,
	    void (*progress)(long row, long n));

/* check.c: each of the estimates est[m] of the methods in want judged on
 * its own: ok[m] 1 when it passes, 0 when n_eff < nmin (a poor overlap),
 * when TPI or DEL is biased beyond its sd by the share of the other
 * side's moves that its own never reach (fek_bar_coverage), when DEL
 * cannot be so checked (no moves of one side), or when why_est (may be
 * NULL) gives a reason (the estimate does not exist).  0, or -1 with
 * fek_seterr(1) naming every method that fails and why, on one line;
 * warnings for blocking without a plateau and for a BAR that the samples
 * beyond a histogram's range could move, of the methods that pass. */
int	fek_bar_check(const struct fek_pert *p, const int *want,
	    const struct fek_estimate *est, double nmin,
	    const char *const *why_est, int *ok);
/* The coverage of one-sided method m (FEK_M_TPI or FEK_M_DEL) by the other
 * side: for DEL, X the largest deletion x and miss the share of the
 * insertions above it; for TPI, X the smallest insertion x and miss the
 * share of the deletions below it; bias = -ln(1 - miss), by which the
 * estimate is off (DEL low, TPI high).  All NaN without the moves
 * (energies or histograms) of both sides. */
void	fek_bar_coverage(const struct fek_pert *p, int m, double *bias,
	    double *X, double *miss);

/* report.c: bar-solve's report of the estimates est[m] of the methods in
 * want: a header, one row per method, the overlap line and the blocking
 * line. */
struct fek_bar_report {
	const struct fek_pert *p;
	const int *want;		/* [FEK_NMETHOD] flags */
	const struct fek_estimate *est;	/* [FEK_NMETHOD] */
	int have_unit;			/* mu and sd_mu columns, */
	enum fek_unit unit;		/* in this unit, */
	double kT;			/* the size of kT in it */
	int have_f;			/* f and sd_f columns (Eq. 10): */
	double fscale;			/* f = fscale exp(beta mu) */
	int f_bar;			/* f in bar, else f/kT in rho's unit */
};
/* -1 with fek_seterr(70) when a value to write is NaN. */
int	fek_bar_report_write(FILE *fp, const struct fek_bar_report *r);
/* The blocking curve of method m's estimate e, one "prog: " line a
 * level (bar-solve -v). */
void	fek_bar_blocking_write(FILE *fp, const struct fek_pert *p,
	    const struct fek_estimate *e, int m);

#endif
