/*
 * bd.h - rigid-body Brownian dynamics of two solutes and their
 * association rate (bd-step, bd-rate): Sakalli (2008), the seed of this
 * stage; the NAM method of Northrup, Allison and McCammon, J. Chem.
 * Phys. 80, 1517 (1984).  What a step does is in bd_eval.h, shared with
 * the GPU (kernels/bd/run.cu); this header is the host side: reading PQR and
 * OpenDX files, building the solutes (centres, exclusion grids,
 * diffusion constants), the reaction criterion, the CPU run, the rate.
 *
 * Units: Angstrom, ps, e, kT (and kT/e for potentials, as APBS writes
 * them); rates in A^3/ps inside, M^-1 s^-1 on output.
 */
#ifndef FEK_BD_H
#define FEK_BD_H

#include <stdint.h>
#include <stdio.h>

#include "core/fek.h"
#include "bd/bd_eval.h"

/* 1 A^3/ps in M^-1 s^-1: N_A 1e-27 L 1e12 /s. */
#define FEK_BD_A3PS_TO_MS 6.02214076e8

/* ---- dx.c: OpenDX scalar grids (APBS) ---------------------------------- */

/* A grid that owns its values; same layout as struct fek_bd_pgrid. */
struct fek_bd_grid {
	int n[3];
	double o[3], h[3];
	double *v;
};

/* Read an OpenDX regular-grid file as APBS writes it (also gzip'd: zlib
 * reads either).  -1 with fek_seterr(66: cannot open; 65: malformed, with
 * the file and line). */
int	fek_bd_dx_read(const char *path, struct fek_bd_grid *g);
/* Write g as APBS does (3 values a line, %12.6e).  -1 with
 * fek_seterr(74). */
int	fek_bd_dx_write(FILE *fp, const char *name, const struct fek_bd_grid *g,
	    const char *comment);
void	fek_bd_grid_free(struct fek_bd_grid *g);

/* ---- pqr.c: PQR files (pdb2pqr, APBS) ----------------------------------- */

struct fek_bd_atom {
	long serial;
	char name[8], resname[8];
	long resseq;
	double x[3], q, r;		/* A, e, A */
};

struct fek_bd_pqr {
	long n;
	struct fek_bd_atom *atom;
};

/* Read the ATOM and HETATM records (whitespace-separated: serial, name,
 * residue name, [chain], residue number, x, y, z, charge, radius).  -1
 * with fek_seterr(66 or 65 naming file and line). */
int	fek_bd_pqr_read(const char *path, struct fek_bd_pqr *m);
void	fek_bd_pqr_free(struct fek_bd_pqr *m);
/* The atoms a spec names, into idx (at most max): "SERIAL", or
 * "[RESNAME]RESSEQ:NAME[,NAME...]" (e.g. "83:NH1,NH2", "ARG83:NE").
 * Returns the count (0: none), -1 on a malformed spec. */
int	fek_bd_pqr_select(const struct fek_bd_pqr *m, const char *spec,
	    int *idx, int max);

/* ---- solute.c: a rigid solute ------------------------------------------- */

struct fek_bd_solute {
	struct fek_bd_pqr pqr;
	double centre[3];		/* geometric centre, file frame */
	double *a;			/* 3 n body-frame coordinates */
	double *q;
	double qnet;			/* e */
	double reach;			/* max |a_i| + r_i (A) */
	double rg;			/* radius of gyration (A) */
	int has_pot;
	struct fek_bd_grid pot;		/* origin moved to the body frame */
	unsigned char *xv;		/* exclusion grid values */
	struct fek_bd_xgrid excl;
	double dh_radius;		/* A */
	double D, Dr;			/* A^2/ps, rad^2/ps */
};

/* Read the PQR and (dx may be NULL) the potential grid, and centre both
 * on the atoms' geometric centre.  -1 with fek_seterr. */
int	fek_bd_solute_load(struct fek_bd_solute *s, const char *pqr,
	    const char *dx);
/* Build the exclusion grid: nodes h apart within r_i + probe of an atom
 * centre.  -1 with fek_seterr(65 naming name, the PQR file, when its
 * radii make the grid too large for memory; 64 when the spacing does). */
int	fek_bd_solute_exclusion(struct fek_bd_solute *s, const char *name,
	    double probe, double h);
void	fek_bd_solute_free(struct fek_bd_solute *s);
/* The view bd_eval.h works on.  kappa, lB: the far field. */
void	fek_bd_solute_body(const struct fek_bd_solute *s, double kappa,
	    double lB, struct fek_bd_body *b);

/* ---- physics.c: constants of the medium and the diffusion limit --------- */

/* The Bjerrum length (A) at T (K) in a dielectric eps. */
double	fek_bd_bjerrum(double T, double eps);
/* The inverse Debye length (1/A) at ionic strength I (mol/L) for
 * Bjerrum length lB (A); 0 for I = 0. */
double	fek_bd_kappa(double I, double lB);
/* The viscosity of water at T (K), Pa s (Vogel's fit, 273-373 K). */
double	fek_bd_water_viscosity(double T);
/* Stokes-Einstein translational (A^2/ps) and Stokes-Einstein-Debye
 * rotational (rad^2/ps) diffusion of a sphere of radius a (A). */
double	fek_bd_stokes_D(double T, double eta, double a);
double	fek_bd_stokes_Dr(double T, double eta, double a);
/* The steady-state rate of reaching r from infinity (A^3/ps),
 * k_D(r) = [ int_r^inf e^{U(s)/kT} / (4 pi D s^2) ds ]^-1 for
 * U(s)/kT = c e^{-kappa s} / s.  -1 with fek_seterr(1) if GSL's
 * quadrature fails. */
int	fek_bd_kd(double D, double c, double kappa, double r, double *kd);

/* ---- rxn.c: the reaction criterion -------------------------------------- */

struct fek_bd_rxnset {
	int ncontact, npair;
	int *gstart, *ia, *ib;
	char **label;			/* each contact's line, for -v */
};

/* Read contacts from path: one a line, "SPEC_A SPEC_B" (fek_bd_pqr_select
 * specs); '#' starts a comment.  -1 with fek_seterr(66, 65). */
int	fek_bd_rxn_read(const char *path, const struct fek_bd_pqr *A,
	    const struct fek_bd_pqr *B, struct fek_bd_rxnset *x);
void	fek_bd_rxn_free(struct fek_bd_rxnset *x);

/* ---- system.c: the two solutes, the medium, the schedule ---------------- */

/* What bd-step is asked for; 0 (or the have_ flags) for the defaults
 * that bd-step(1) documents. */
struct fek_bd_opts {
	const char *pqr[2], *dx[2], *rxn;
	double T, eps;			/* K; relative permittivity */
	double ionic;			/* mol/L */
	int have_ionic;
	double radius[2];		/* hydrodynamic radii (A) */
	int have_radius;
	double D[2], Dr[2];
	int have_D, have_Dr;
	double eta;			/* Pa s; 0: water at T */
	double dh_radius[2];
	int have_dh;
	double b, q;			/* 0: defaults */
	double dtmin, dtmax, r1, r2;
	int have_range;
	long long maxsteps;
	double probe, xh;		/* exclusion: probe radius, spacing */
	double rxn_dist;
	int need;
	uint64_t seed;
};

struct fek_bd_system {
	struct fek_bd_solute s[2];
	struct fek_bd_rxnset rxn;
	struct fek_bd_sys sys;
	double lB, kappa;		/* A, 1/A */
	double ucoef;			/* U(r)/kT = ucoef e^{-kappa r} / r */
	double hydro[2];		/* hydrodynamic radii used (A) */
	double kdb, kdq;		/* k_D(b), k_D(q) (A^3/ps) */
};

/* o zeroed, then bd-step(1)'s defaults: 298.15 K, water's permittivity
 * 78.54, time steps of 0.5 to 20 ps, a probe of 1.4 A on an exclusion
 * grid of 0.5 A, a reaction distance of 5.5 A, 10^7 steps at most and
 * two contacts. */
void	fek_bd_opts_default(struct fek_bd_opts *o);
/* Read both solutes and the contacts, and fill x->sys.  -1 with
 * fek_seterr (64 for settings that cannot work, 65/66 for files). */
int	fek_bd_system_build(struct fek_bd_system *x, const struct fek_bd_opts *o);
void	fek_bd_system_free(struct fek_bd_system *x);

/* ---- run.c: trajectories on the CPU ------------------------------------- */

/* Each accepted configuration of a logged trajectory, for --log/--dcd. */
typedef int (*fek_bd_logfn)(void *ctx, int64_t traj,
    const struct fek_bd_state *st);

/* The interaction at (r, qa, qb) summed as the GPU does: sum[FEK_BD_NSUM]
 * (U, F, torque on A, torque on B, scaled), return 1 on overlap. */
int	fek_bd_eval(const struct fek_bd_sys *s, const double *r,
	    const double *qa, const double *qb, double *sum);
/* One trajectory: the outcome; log (may be NULL) sees every accepted
 * configuration.  Returns log's nonzero value if it fails. */
int	fek_bd_trajectory(const struct fek_bd_sys *s, int64_t traj,
	    struct fek_bd_outcome *out, fek_bd_logfn log, void *ctx);
/* Trajectories first .. first + n - 1 into out[n], OpenMP over them.
 * progress (may be NULL) is called with the count done, by the first
 * thread after each of its trajectories (not by the others), and at the
 * end. */
void	fek_bd_run_cpu(const struct fek_bd_sys *s, int64_t first, int64_t n,
	    struct fek_bd_outcome *out, void (*progress)(int64_t done,
	    int64_t n));

/* The GPU's timings of a run (fek_bd_run). */
struct fek_bd_gpu_stats {
	char device[128];
	double setup_ms;		/* context, uploads */
	double run_ms;			/* trajectories */
	int warps;			/* resident warps of the launch */
	int tailblocks;			/* resident blocks that take over
					   the end */
	long long parked;		/* trajectories warps handed over */
	long long inblocks;		/* trajectories blocks finished */
};

/* engine.c: fek_bd_run_cpu or its GPU twin on dev (FEK_DEV_CPU or
 * FEK_DEV_GPU, as fek_device_resolve settled it): the same trajectories,
 * outcomes equal to rounding.  st (may be NULL) gets the GPU's timings
 * (all zero on the CPU).  -1 with fek_seterr(69 or 70) on the GPU. */
int	fek_bd_run(const struct fek_bd_sys *s, enum fek_device dev,
	    int64_t first, int64_t n, struct fek_bd_outcome *out,
	    void (*progress)(int64_t done, int64_t n),
	    struct fek_bd_gpu_stats *st);

/* ---- rate.c: the NAM rate ----------------------------------------------- */

struct fek_bd_rate {
	double dist;			/* reaction distance (A) */
	long long n, reacted, escaped, stuck, nostart;
	double beta, beta_lo, beta_hi;	/* Clopper-Pearson 95 % */
	double beta_inf;
	double k, k_lo, k_hi;		/* M^-1 s^-1 */
};

/* From the counts: beta = reacted / (reacted + escaped); beta_inf =
 * beta / (1 - (1 - beta) Omega), Omega = k_D(b) / k_D(q); k = k_D(b)
 * beta_inf; the interval maps beta's. */
void	fek_bd_rate_compute(struct fek_bd_rate *r, double kdb, double kdq);

#endif
