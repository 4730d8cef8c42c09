/*
 * tpi.h - test-particle insertion and test deletion on stored frames
 * (tpi-gpu): Daly, Benziger, Debenedetti and Panagiotopoulos, Comput.
 * Phys. Commun. 183, 2054 (2012), Algorithm 1, for particles with pair
 * potentials (LJ per type pair, truncated, shifted or force-shifted, or
 * tables: lib/particles/pair.c).
 *
 * Per frame: n_ins insertions of a particle of type t at uniformly random
 * positions (tpi_eval.h says how they are drawn), and a deletion of every
 * particle of type t; each move's energy u = U(N+1) - U(N) (the tail
 * difference included when asked for), as beta u.  What a frame gives:
 * the Boltzmann sums of Algorithm 1 (as logarithms), the Boltzmann-
 * weighted mean insertion energy and the mean deletion energy, energy
 * histograms, and optionally every move's energy.
 *
 * The sums are taken over groups of FEK_TPI_GROUP consecutive moves in a
 * fixed tree, and the groups in order, so that a frame's numbers do not
 * depend on threads or launch geometry; the CPU and the GPU agree to
 * rounding (their exp and fused multiply-adds differ in the last bit).
 */
#ifndef FEK_TPI_H
#define FEK_TPI_H

#include <stdint.h>

#include "core/fek.h"
#include "particles/particles.h"
#include "particles/trajin.h"
#include "tpi/tpi_eval.h"

struct fek_tpi_par {
	const struct fek_pairpot *pp;
	int itype;			/* the type inserted and deleted */
	double beta;			/* 1 / kT, per energy unit */
	long long nins;			/* insertions per frame */
	int del;			/* deletions too */
	int tail;			/* add the LJ tail difference */
	uint64_t key;			/* fek_tpi_key(seed) */
	double hlo, hw;			/* histogram: first edge, bin width
					   (kT) */
	long nbins;
	int raw;			/* keep every move's beta u */
	int sub;			/* slices per cutoff (cells), >= 1 */
	int mixed;			/* insertions: single-precision pairs
					   where they are safe (tpi_eval.h) */
};

/* The Philox key of a seed. */
uint64_t fek_tpi_key(uint64_t seed);

/* A frame made ready for the moves: wrapped, sorted by cell. */
struct fek_tpi_frame {
	struct fek_tpi_grid g;
	struct fek_tpi_row *rows;	/* g.nrow */
	struct fek_tpi_atom *atom;	/* n, sorted by cell, each relative
					   to its row's origin */
	struct fek_tpi_atomf *atomf;	/* their single-precision copies */
	int *cstart;			/* g.ncell + 1 */
	double *orig;			/* the rows' origins: 3 for each
					   (cy, cz), cy + ny cz */
	long n;
	long ndel;			/* particles of the inserted type */
	int *delidx;			/* their sorted indices (in the
					   frame's order as read) */
	double *delr;			/* their positions (3 each) */
	double V;
	long count[FEK_PMD_MAXTYPES];	/* particles of each type */
	double du_ins, du_del;		/* the tail differences (energy) */
	struct fek_pair_coef coef[FEK_PMD_MAXTYPES]; /* itype with t */
	struct fek_tpi_coeff cf[FEK_PMD_MAXTYPES];	/* the same, single
							   precision */
	int single;			/* one type, plain LJ */
	int mixed;			/* par->mixed, and every pair plain LJ */
	long cap, capcell, caprow, caporig;
};

/* Prepare f for the moves of par (cells of at least rc / par->sub,
 * the single-precision copies and screen of fek_tpi_energy).
 * -1 with fek_seterr(65) when a particle type has no pair coefficients
 * (type beyond the potential's), when the cell's volume or a width is not
 * positive and finite, when the cutoff is longer than the cell's
 * narrowest width (the work of a move and the rows would grow as
 * (rc / w)^3 without end), when its edges, tilts and origin sum to more
 * than 2^22 cutoffs, or when there are more than INT_MAX particles;
 * nothing is sized before these checks. */
int	fek_tpi_frame_prepare(struct fek_tpi_frame *tf, const struct fek_frame *f,
	    const struct fek_tpi_par *par);
void	fek_tpi_frame_free(struct fek_tpi_frame *tf);
/* The energy loop's view of tf (host pointers). */
void	fek_tpi_frame_view(const struct fek_tpi_frame *tf,
	    const struct fek_tpi_par *par, struct fek_tpi_view *v);

/* What one frame gives. */
struct fek_tpi_result {
	long long n_ins, n_del;
	double lnIT, lnIO;		/* ln sum e^(-beta u), e^(-beta u/2) */
	double uw;			/* <beta u e^-beta u> / <e^-beta u> */
	double lnDT, lnDO;		/* ln sum e^(beta u), e^(beta u/2) */
	double um;			/* mean deletion beta u */
	double umin_ins, umax_del;	/* extremes of beta u */
	long long *hins, *hdel;		/* nbins + 2 counts: [0] below the
					   range, [1 + b] bin b, [nbins + 1]
					   at or above it */
	double *u_ins, *u_del;		/* raw: n_ins and n_del beta u (the
					   deletions in the frame's order) */
	long nbins, capins, capdel;
};

void	fek_tpi_result_init(struct fek_tpi_result *res, const struct fek_tpi_par *par);
void	fek_tpi_result_free(struct fek_tpi_result *res);

/* sums.c: the fixed-order sums. */
/* Group g's share of the n moves bu (beta u; del: deletions). */
void	fek_tpi_group(const double *bu, long n, int del, struct fek_tpi_part *p);
/* The frame's sums from its groups' shares, in order: ln sums, and the
 * mean (weighted for insertions) into res. */
void	fek_tpi_merge(const struct fek_tpi_part *p, long ng, int del,
	    long long n, struct fek_tpi_result *res);
/* Histogram slot of beta u (0 below, nbins + 1 at or above). */
long	fek_tpi_bin(const struct fek_tpi_par *par, double bu);
/* The group shares of n moves bu into p (ceil(n / FEK_TPI_GROUP) of
 * them; OpenMP); their histogram added to h; bu copied to (*dst)[at ..],
 * *dst grown to hold them (*cap). */
void	fek_tpi_groups(const double *bu, long n, int del,
	    struct fek_tpi_part *p);
void	fek_tpi_histogram(const struct fek_tpi_par *par, const double *bu,
	    long n, long long *h);
void	fek_tpi_keep_raw(double **dst, long *cap, long long at,
	    const double *bu, long n);

/* insert.c: one frame on the CPU (OpenMP), frame id fid. */
int	fek_tpi_cpu(const struct fek_tpi_frame *tf, const struct fek_tpi_par *par,
	    uint64_t fid, struct fek_tpi_result *res);

/* ---- the device (engine.c) ---------------------------------------------- */

/* fek_tpi_cpu or its GPU twin, chosen once: the caller never branches on
 * the device. */
struct fek_tpi_engine;

/* Timings, for -v and benchmarks (host wall clock, ms, summed over the
 * frames). */
struct fek_tpi_gpu_stats {
	char device[128];
	double setup_ms;		/* context and buffers */
	double upload_ms;		/* a frame's particles and cells */
	double insert_ms;		/* positions, sort, energies, sums */
	double delete_ms;		/* deletions and their sums */
	double fetch_ms;		/* results copied back */
	int smem;			/* the frame was in shared memory */
};

/* An engine on dev (FEK_DEV_CPU or FEK_DEV_GPU, as fek_device_resolve
 * settled it) for runs of par.  NULL with fek_seterr(69 or 70) when the
 * GPU's context cannot be made. */
struct fek_tpi_engine *fek_tpi_engine_new(const struct fek_tpi_par *par,
	    enum fek_device dev);
/* One frame's moves (fek_tpi_cpu's contract, on the engine's device): the
 * same positions, order of deletions, groups and histogram on either,
 * energies to rounding.  -1 with fek_seterr(70) on a CUDA failure. */
int	fek_tpi_engine_frame(struct fek_tpi_engine *e,
	    const struct fek_tpi_frame *tf, const struct fek_tpi_par *par,
	    uint64_t fid, struct fek_tpi_result *res);
enum fek_device fek_tpi_engine_device(const struct fek_tpi_engine *e);
/* The GPU's timings into st: 1, or 0 (nothing written) on the CPU. */
int	fek_tpi_engine_stats(const struct fek_tpi_engine *e,
	    struct fek_tpi_gpu_stats *st);
void	fek_tpi_engine_free(struct fek_tpi_engine *e);

#endif
