/*
 * pert.h - test-particle insertion and deletion data, grouped by
 * configuration: the input of the chemical-potential estimators of Daly,
 * Benziger, Debenedetti & Panagiotopoulos, Comput. Phys. Commun. 183, 2054
 * (2012), Eqs. 1-10, and of Bennett's acceptance ratio on general work
 * values (pymbar's w_F, w_R).
 *
 * The two sides of a perturbation:
 *   insertions (FEK_INS)  test insertions into N-particle configurations:
 *                         the forward direction, w_F = beta u;
 *   deletions  (FEK_DEL)  test deletions from N+1-particle configurations:
 *                         the reverse direction, w_R = -beta u.
 * On both sides u = U(N+1) - U(N), the energy of the test particle with the
 * rest, in kT (the seed's Algorithm 2 computes it so for deletions; its
 * text calls it "the change in the potential energy" for both moves, which
 * read literally flips the sign of the deletions in Eqs. 2, 3, 8 and 9).
 *
 * Per configuration a side holds its number of moves n, the Boltzmann
 * sums of the seed's Algorithm 1 as logarithms,
 *   lnS1 = ln sum exp(-u) (I_T)      insertions
 *          ln sum exp(+u) (D_T)      deletions
 *   lnS2 = ln sum exp(-u/2) (I_O)    insertions
 *          ln sum exp(+u/2) (D_O)    deletions
 * (-inf for an empty sum), and, when the input had them, the samples: raw
 * energies (weight 1) or histogram bins (the bin centre, weight = count).
 * Configurations are kept in increasing id, which is the order blocking
 * and convergence traces take as time.
 *
 * Input kinds (fek(5)): insertions, deletions (one row per move),
 * tpisums (one row per configuration) and tpihist (per configuration,
 * sparse histogram rows).
 */
#ifndef FEK_PERT_H
#define FEK_PERT_H

#include "stream/stream.h"

enum { FEK_INS = 0, FEK_DEL = 1 };

struct fek_pside {
	long nconf;		/* configurations with moves on this side */
	long *conf;		/* [nconf] their index in fek_pert.id */
	double *n;		/* [nconf] moves */
	double *lnS1;		/* [nconf] see above; valid when have_S1 */
	double *lnS2;		/* [nconf] */
	int have_S1;		/* lnS1 known for every configuration */
	int detail;		/* samples for every configuration */
	long *first;		/* [nconf+1] samples of configuration k */
	long nsamp;
	double *x;		/* [nsamp] u in kT (after fek_pert_npt: x) */
	double *w;		/* [nsamp] multiplicity */
	double *xe;		/* NULL, or [nsamp]: x with a histogram's
				 * out-of-range samples (x = +-inf) put at the
				 * edge of the range they fell beyond */
	double ntot;		/* sum of n */
};

struct fek_pert {
	long nconf;		/* configurations on either side */
	long long *id;		/* [nconf] ascending */
	double *V;		/* [nconf] volume, 0 where not given */
	char vunit[32];		/* the COL unit of V */
	double temp;		/* TEMP in K, 0 when no section gave it */
	int aligned;		/* both sides hold the same configurations */
	int npt;		/* fek_pert_npt applied */
	int work;		/* from work values (fek_pert_from_work) */
	double lnVref;		/* ln <V> over the insertion configurations */
	struct fek_pside s[2];
	/* histogram input: the range of u in kT (for messages) */
	int have_hist;
	double hist_lo, hist_hi;
};

struct fek_pert_input;

struct fek_pert_input *fek_pert_input_new(void);
/* Read one section (header h, from fek_next_section) of kind insertions,
 * deletions, tpisums or tpihist, payload included.  -1 with a message
 * naming stream, section, row or key (code 65) on bad data. */
int	fek_pert_input_section(struct fek_pert_input *in, struct fek_reader *r,
	    const struct fek_header *h);
/* Group what was read by configuration into p.  -1 (65) when a
 * configuration's data contradict each other. */
int	fek_pert_build(struct fek_pert_input *in, struct fek_pert *p);
void	fek_pert_input_free(struct fek_pert_input *in);

/* read.c: the files paths[0 .. nfiles-1] in turn (standard input when
 * nfiles is 0, or for "-") as one stream, through the functions above,
 * into p.  -1 with the reader's message (65, 66) or fek_pert_build's. */
int	fek_pert_read(int nfiles, char **paths, struct fek_pert *p);
/* read.c: every value of a file of work values in kT: plain numbers, one
 * a line, or fek(5) sections of one column; malloc'd, their number in *n.
 * NULL with fek_seterr(65) for other columns or none at all, (66) when the
 * file cannot be opened. */
double	*fek_work_read(const char *path, long *n);

/* Work values in kT (pymbar's convention): forward w_F from state A's
 * samples, reverse w_R from B's.  Each value is its own configuration;
 * the two series are independent (not aligned).  -1 (65) on -inf. */
int	fek_pert_from_work(const double *wF, long nF, const double *wR,
	    long nR, struct fek_pert *p);

/* The NPT forms (Daly 2012, Eqs. 7-9): x = u - ln(V/<V>) per
 * configuration, with <V> the mean volume of the insertion configurations
 * (of the deletion ones when there are none).  -1 (65) when a
 * configuration has no volume. */
int	fek_pert_npt(struct fek_pert *p);

void	fek_pert_free(struct fek_pert *p);

/* ln sum_i w_i exp(a_i) over n terms (w_i >= 0, a_i may be -inf); -inf
 * for an empty or all-zero sum. */
double	fek_logsumexp(const double *a, const double *w, long n, double scale);

#endif
