/*
 * milestone.h - Milestoning kinetics (Faradjian & Elber 2004; the seed 003
 * thesis, section 2.4, Eqs. 2.64-2.88): the kernel matrix K and lifetimes
 * tau from trajectory records, the stationary flux q^T (I - K) = 0, the
 * milestone probabilities p_i = q_i tau_i, mean first passage times
 * <t> = e_s (I - K)^-1 tau with absorbing targets, committors, and their
 * bootstrap errors.  Row convention: K_ij = P(i -> j), rows are origins.
 *
 * milestone/count.c  counting records into per-pair sufficient statistics
 * milestone/solve.c  the linear solves with I - K (tridiagonal, banded, dense)
 * milestone/milestone.c the model, boundary conditions, connectivity, q, MFPT,
 *             committor, the recycling identity
 * milestone/kinetics.c  all of it for one model, as qstat-mfpt reports it
 * milestone/boot.c   bootstrap by resampling trajectories from the statistics
 *
 * The library never prints or exits: failures return -1 after
 * fek_seterr() (1: disconnected or singular K; 65: bad data).
 */
#ifndef FEK_MILESTONE_H
#define FEK_MILESTONE_H

#include <gsl/gsl_rng.h>

/* Count, mean and sum of squared deviations of durations (Welford). */
struct fek_milestone_stat {
	double n, mean, m2;
};

void	fek_milestone_stat_add(struct fek_milestone_stat *s, double t);
/* a += b: the statistics of the union of the two samples (Chan et al.) */
void	fek_milestone_stat_merge(struct fek_milestone_stat *a,
	    const struct fek_milestone_stat *b);
/* Standard deviation with divisor n (0 for n < 2). */
double	fek_milestone_stat_sd(const struct fek_milestone_stat *s);

/* ---- milestone/count.c: trajectory records -> per-pair statistics -------- */

struct fek_milestone_counter;

/* Counter for n milestones.  Never NULL (exits 70 out of memory). */
struct fek_milestone_counter *fek_milestone_counter_new(long n);
void	fek_milestone_counter_free(struct fek_milestone_counter *c);
/* One record: start, end (-1 for the time limit), duration t >= 0, valid
 * (0 or 1).  The caller has range-checked them.  Invalid records and
 * time-limited ones are counted per start milestone and not used. */
void	fek_milestone_count(struct fek_milestone_counter *c, long start,
	    long end, double t, int valid);

/* Per-milestone tallies: valid transitions out (stat over durations),
 * time-limited and invalid records. */
struct fek_milestone_tally {
	struct fek_milestone_stat out;
	double nlimit, ninvalid;
};
/* The tallies (n entries, owned by c) and the pairs, sorted by (i, j):
 * *np pairs in malloc'd arrays *pi, *pj, *ps (caller frees). */
const struct fek_milestone_tally *fek_milestone_counter_tallies(
	    const struct fek_milestone_counter *c);
void	fek_milestone_counter_pairs(const struct fek_milestone_counter *c,
	    long *np, long **pi, long **pj, struct fek_milestone_stat **ps);

/* ---- milestone/milestone.c: the model ------------------------------------ */

/* n milestones; the transitions out of milestone i are entries
 * row[i] .. row[i+1]-1 of col/K (and of stat when counts is set), with
 * col ascending.  tau[i] is known where has_tau[i]. */
struct fek_milestone_model {
	long n;
	long *row, *col;
	double *K;
	double *tau;
	unsigned char *has_tau;
	int counts;		/* stat holds the trajectories' statistics */
	struct fek_milestone_stat *stat;
};

/* Build from pairs sorted by (i, j) with no repeats.  With stat, K and tau
 * come from the counts (K_ij = n_ij / n_i, tau_i = sum_j n_ij mean_ij /
 * n_i); otherwise K is kval and tau/has_tau are copied (NULL: unknown). */
void	fek_milestone_model_build(struct fek_milestone_model *m, long n,
	    long np, const long *pi,
	    const long *pj, const struct fek_milestone_stat *stat,
	    const double *kval,
	    const double *tau, const unsigned char *has_tau);
void	fek_milestone_model_copy(struct fek_milestone_model *dst,
	    const struct fek_milestone_model *src);
void	fek_milestone_model_free(struct fek_milestone_model *m);
/* Recompute K and tau from stat (after resampling). */
void	fek_milestone_model_from_stats(struct fek_milestone_model *m);

enum fek_milestone_bc_kind { FEK_MILESTONE_BC_NONE, FEK_MILESTONE_BC_REFLECT,
    FEK_MILESTONE_BC_RECYCLE };
struct fek_milestone_bc {
	enum fek_milestone_bc_kind kind;
	long source;		/* recycle: where the targets' flux goes */
};

/* The boundary condition applied to a copy (dst initialised here):
 * reflect replaces the row of the last milestone by K[n-1][n-2] = 1;
 * recycle replaces each target's row by K[f][source] = 1 with tau_f = 0.
 * *replaced is set to the number of data transitions overwritten. */
void	fek_milestone_apply_bc(struct fek_milestone_model *dst,
	    const struct fek_milestone_model *src,
	    const struct fek_milestone_bc *bc, const unsigned char *is_target,
	    long *replaced);

/* Milestones that can reach a marked milestone (reverse search, through
 * edges K_ij > 0 out of milestones not in stop): reach[i] = 1 for the
 * marked ones and those that reach them.  stop may be NULL. */
void	fek_milestone_reaching(const struct fek_milestone_model *m,
	    const unsigned char *mark,
	    const unsigned char *stop, unsigned char *reach);
/* Milestones reachable from s through edges out of milestones not in stop
 * (s itself included). */
void	fek_milestone_reachable(const struct fek_milestone_model *m, long s,
	    const unsigned char *stop, unsigned char *seen);
/* Irreducibility: 0, or -1 with code 1 and a message naming the
 * milestones with no transitions out or outside the class of 0. */
int	fek_milestone_check_connected(const struct fek_milestone_model *m,
	    const char *what);

/* ---- milestone/solve.c: (I - K_SS) x = b on a subset S ------------------- */

enum fek_milestone_solver { FEK_MILESTONE_SOLVE_AUTO,
    FEK_MILESTONE_SOLVE_TRIDIAG, FEK_MILESTONE_SOLVE_BAND,
	FEK_MILESTONE_SOLVE_DENSE };
int	fek_milestone_solver_parse(const char *s,
	    enum fek_milestone_solver *out);
const char *fek_milestone_solver_name(enum fek_milestone_solver s);

/* Solve (I - K_SS) x = b (trans 0) or (I - K_SS)^T x = b (trans 1), S the
 * milestones with in_set[i], in increasing order; b and x indexed by
 * milestone (entries outside S untouched in x, ignored in b).  The
 * structure decides the method under FEK_MILESTONE_SOLVE_AUTO; *used (may
 * be NULL) gets it.  -1 with code 1 when the system is singular or the solution
 * not finite. */
/* -1 with code 1: "WHAT: I - K is numerically singular", naming the
 * smallest transition probability out of the milestones in_set, through
 * which a nearly closed set of milestones leaks. */
int	fek_milestone_singular(const struct fek_milestone_model *m,
	    const unsigned char *in_set, const char *what);
/* The method FEK_MILESTONE_SOLVE_AUTO would take for the whole of K. */
enum fek_milestone_solver fek_milestone_solver_pick(
	    const struct fek_milestone_model *m, enum fek_milestone_solver how);
int	fek_milestone_solve(const struct fek_milestone_model *m,
	    const unsigned char *in_set,
	    int trans, const double *b, double *x,
	    enum fek_milestone_solver how, enum fek_milestone_solver *used);

/* ---- milestone/milestone.c: the quantities ------------------------------- */

/* Stationary flux of the closed class in_set (irreducible there), by
 * fixing q_ref = 1 and solving the other equations; normalised to sum 1
 * over in_set, 0 elsewhere.  Thesis Eq. 2.70. */
int	fek_milestone_stationary(const struct fek_milestone_model *m,
	    const unsigned char *in_set,
	    long ref, enum fek_milestone_solver how, double *q);

/* MFPT to the target set (rows of targets ignored: absorbing, tau 0):
 * x[i] for every milestone, 0 on targets, +inf where a trajectory from i
 * can reach a milestone that cannot reach the targets, and where tau is
 * unknown on the way: -1 with unknown[i] = 1 (unknown may be NULL).
 * Thesis Eq. 2.87, by a linear solve.  Returns 0, or -1 (code 1) when
 * the system is singular. */
int	fek_milestone_mfpt_all(const struct fek_milestone_model *m,
	    const unsigned char *is_target,
	    enum fek_milestone_solver how, double *x, unsigned char *unknown);
/* MFPT from s to the target set, on the milestones reachable from s only:
 * -1 with code 1 naming the milestones when it is infinite or needs an
 * unknown lifetime. */
int	fek_milestone_mfpt(const struct fek_milestone_model *m, long s,
	    const unsigned char *is_target, enum fek_milestone_solver how,
	    double *t);
/* The same from the recycling identity <t> = sum_i q_i tau_i / sum_f q_f
 * with the target rows sent back to s (tau_f = 0). */
int	fek_milestone_mfpt_recycle(const struct fek_milestone_model *m,
	    long s, const unsigned char *is_target,
	    enum fek_milestone_solver how, double *t);
/* Committor: c[i] = P(reach the targets before s | at milestone i);
 * c[s] = 0, c[f] = 1.  -1 (code 1) naming milestones that reach neither. */
int	fek_milestone_committor(const struct fek_milestone_model *m, long s,
	    const unsigned char *is_target, enum fek_milestone_solver how,
	    double *c);

/* Text list "a b c" of the marked milestones (at most 12, then "..."),
 * in a static buffer. */
const char *fek_milestone_list(const unsigned char *mark, long n);

/* ---- milestone/kinetics.c: everything qstat-mfpt reports ----------------- */

struct fek_milestone_request {
	struct fek_milestone_bc bc;
	long start;			/* -1: no passage-time problem */
	const unsigned char *is_target;	/* n flags, with a start */
	long target;			/* the one target, or -1 for a set */
	enum fek_milestone_solver how;
	double kT;			/* k_B T in the unit of F (1: kT) */
	int cumulative;			/* compute mfpt_from */
};

struct fek_milestone_result {
	long n;
	double *q, *p, *F;		/* stationary flux, p_i, F_i */
	unsigned char *no_tau;		/* lifetime unknown: p 0, F inf */
	long replaced;			/* data rows the BC overwrote */
	/* with a start: */
	double fwd, rec_fwd;		/* MFPT start -> targets, recycling */
	int have_rev;			/* single target: the way back */
	double rev, rec_rev;
	char rev_why[400];		/* why not, when !have_rev */
	double *committor;		/* to the targets before the start */
	double *mto;			/* MFPT from each milestone to the
					 * targets: inf infinite, -1 unknown */
	double *mfrom;			/* MFPT start -> milestone m (m made
					 * absorbing); inf where it fails */
	long nfrom_failed;
};

/* Everything for one model: the BC applied, connectivity checked, q, p,
 * F, and with a start the MFPTs both ways, the committor and mfpt_to;
 * with full also the recycling cross-checks and (rq->cumulative)
 * mfpt_from.  -1 with code 1 (disconnected, singular) or 64. */
int	fek_milestone_analyse(const struct fek_milestone_model *m,
	    const struct fek_milestone_request *rq,
	    struct fek_milestone_result *res, int full);
void	fek_milestone_result_free(struct fek_milestone_result *res);

/* Bootstrap spreads: standard deviations over the trials that could be
 * analysed (inf where a quantity was infinite or unknown in any); the
 * others (a disconnected or singular K) are counted and the first one's
 * message kept. */
struct fek_milestone_spread {
	long trials, failed;
	char why[400];			/* the first failure's message */
	double *sd_q, *sd_p, *sd_F, *sd_committor, *sd_mto;
	double sd_fwd, lo_fwd, hi_fwd;	/* sd and the 2.5 and 97.5 % points */
	double sd_rev, lo_rev, hi_rev;
};

/* trials bootstrap copies of m (which has counts) analysed as point was;
 * reproducible from seed.  progress (may be NULL) is called before each
 * trial and at the end, with the trials done.  -1 with code 1 when fewer
 * than two trials succeed. */
int	fek_milestone_bootstrap(const struct fek_milestone_model *m,
	    const struct fek_milestone_request *rq,
	    const struct fek_milestone_result *point, long trials,
	    unsigned long long seed, struct fek_milestone_spread *out,
	    void (*progress)(long done, long total));
void	fek_milestone_spread_free(struct fek_milestone_spread *s);

/* ---- milestone/boot.c: resampling ---------------------------------------- */

/* A bootstrap copy of src (which has counts) into dst (same structure,
 * from fek_milestone_model_copy): per milestone the n_i trajectories are
 * redrawn, so the counts are multinomial(n_i, K_i.) and each pair's summed
 * duration is Gamma-distributed with the mean and variance of the sum of
 * that many durations drawn from the pair's sample (exact for
 * exponential durations).  dst's K and tau are recomputed. */
void	fek_milestone_resample(struct fek_milestone_model *dst,
	    const struct fek_milestone_model *src, gsl_rng *rng);

#endif
