/*
 * sample.h - the umbrella-sampling test harness of Potgieter 2014 (section
 * 5.1.1): independent samples of exp(-(W(x) + V_h(x))/kT) for an analytic
 * PMF W and a harmonic window V_h = 1/2 sum_d k_d (x_d - c_d)^2, and a
 * correlated variant (overdamped Langevin dynamics in W + V_h).
 */
#ifndef FEK_SAMPLE_H
#define FEK_SAMPLE_H

#include <gsl/gsl_rng.h>

#include "stream/grid.h"

struct fek_envelope;

/* An upper bound of exp(-W/kT) on a grid of cells over the domain g (its
 * nbins are ignored): W is evaluated on a sub-grid of each cell and the
 * cell minimum lowered by a margin.  beta in 1/(kcal/mol); the formula in
 * kcal/mol.  NULL with an error when W is not finite somewhere. */
struct fek_envelope *fek_envelope_new(fek_expr *pmf,
	    const struct fek_grid *g, double beta);
void	fek_envelope_free(struct fek_envelope *env);
/* The envelope's geometry for ndim dimensions: cells per axis, and lattice
 * points per cell edge at which W is evaluated (shared with the GPU
 * sampler, kernels/wham/sample.cu, so both build the same envelope). */
long	fek_envelope_cells_per_axis(int ndim);
int	fek_envelope_lattice_points(int ndim);

struct fek_sample_stats {
	double proposals;	/* trial points drawn */
	long restarts;		/* envelope raised after a clipped point */
};

/* Draw n exact independent samples (n x ndim doubles into out) by
 * rejection from a piecewise envelope: cells chosen by the envelope mass,
 * points uniform in a cell, accepted with f(x)/M_cell.  The bias part of
 * M_cell is its exact maximum over the cell; the PMF part is a bound that
 * is checked at every trial point: if f(x) > M_cell ever happens, the
 * bound is raised for that cell and the window starts again, so no sample
 * is ever drawn under a clipped density.  Deterministic for a given rng
 * state.  Springs in kcal/mol per axis unit^2. */
int	fek_sample_exact(struct fek_envelope *env, const struct fek_window *w,
	    gsl_rng *rng, long n, double *out, struct fek_sample_stats *st);

/* Correlated samples: overdamped Langevin dynamics (Euler-Maruyama) in
 * W + V_h, started from one exact sample, recorded at intervals of
 * tau/corr where tau = 1/(beta max_d k_d) is the relaxation time of the
 * window's spring, so the integrated autocorrelation time of the series
 * is about corr samples.  Open axes reflect at their ends; periodic axes
 * wrap. */
int	fek_sample_langevin(struct fek_envelope *env,
	    const struct fek_window *w, gsl_rng *rng, long n, double corr,
	    double *out, struct fek_sample_stats *st);

#endif
