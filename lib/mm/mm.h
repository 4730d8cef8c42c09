/*
 * mm.h - molecular systems from GROMACS inputs for md-gpu (issue 16, "md-gpu
 * III"): a topology read from .top/.itp files (top.c, with the C
 * preprocessor's subset that force fields use in cpp.c) and run options
 * from a .mdp file (mdp.c), flattened into one system whose interactions
 * are lists per kind; the CPU reference of their energies and forces
 * (bonded.c, nonbonded.c, pme.c, vsite.c) and a single-point driver
 * (energy.c).  The GPU path comes later and must agree with this one.
 *
 * Units are GROMACS's throughout: nm, ps, kJ/mol, g/mol (amu), e, K.
 * Angles are in radians here (degrees in the files).  The functional
 * forms are those of the GROMACS 2022 reference manual, section
 * "Bonded interactions" and "Non-bonded interactions" (Abraham et al.,
 * GROMACS 2022 manual); smooth PME is Essmann et al., J. Chem. Phys. 103,
 * 8577 (1995).
 */
#ifndef FEK_MM_H
#define FEK_MM_H

#include <stdint.h>

#include "particles/box_eval.h"
#include "particles/nhc_eval.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 / (4 pi eps0) in kJ/mol nm e^-2: GROMACS 2022's ONE_4PI_EPS0 from
 * CODATA 2018 (eps0 8.8541878128e-12 F/m, e and N_A exact). */
#define FEK_MM_ONE_4PI_EPS0 138.93545764438196

/*
 * Interaction kinds.  Each interaction of kind k lists fek_mm_nat[k]
 * atoms (0-based, into the flat system) and fek_mm_npar[k] parameters,
 * in the order given.  The GROMACS function types they come from:
 */
enum fek_mm_kind {
	FEK_MM_BOND,	/* [bonds] 1: b0 (nm), kb (kJ/mol/nm^2);
			   U = kb/2 (r - b0)^2 */
	FEK_MM_ANGLE,	/* [angles] 1: th0 (rad), k (kJ/mol/rad^2);
			   U = k/2 (th - th0)^2 */
	FEK_MM_UB,	/* [angles] 5: th0, kth, r13 (nm), kub (kJ/mol/nm^2);
			   U = kth/2 (th - th0)^2 + kub/2 (r13' - r13)^2,
			   r13' the 1-3 distance */
	FEK_MM_PDIH,	/* [dihedrals] 1 and 9 (one entry per term of a 9):
			   phi0 (rad), k (kJ/mol), n (multiplicity);
			   U = k (1 + cos(n phi - phi0)) */
	FEK_MM_PIDIH,	/* [dihedrals] 4 (periodic improper): as PDIH */
	FEK_MM_RB,	/* [dihedrals] 3: C0..C5 (kJ/mol);
			   U = sum_n Cn cos^n(psi), psi = phi - pi */
	FEK_MM_IDIH,	/* [dihedrals] 2: xi0 (rad), k (kJ/mol/rad^2);
			   U = k/2 (xi - xi0)^2, xi - xi0 taken in (-pi, pi] */
	FEK_MM_PAIR,	/* [pairs] 1: c6 (kJ/mol nm^6), c12 (kJ/mol nm^12),
			   qq = fudgeQQ qi qj (e^2); U_LJ14 = c12/r^12 -
			   c6/r^6, U_C14 = ONE_4PI_EPS0 qq / (eps_r r) */
	FEK_MM_CONSTR,	/* [constraints] 1 and 2, and bonds made constraints
			   (mdp constraints): d (nm) */
	FEK_MM_SETTLE,	/* [settles]: atoms O, H, H; dOH, dHH (nm) */
	FEK_MM_VSITE3,	/* [virtual_sites3] 1: atoms s, i, j, k; a, b;
			   x_s = x_i + a (x_j - x_i) + b (x_k - x_i) */
	FEK_MM_NKIND
};

/* Atoms and parameters of one interaction of each kind. */
extern const int fek_mm_nat[FEK_MM_NKIND];
extern const int fek_mm_npar[FEK_MM_NKIND];

/* The interactions of one kind. */
struct fek_mm_ilist {
	long n, cap;
	int *atoms;			/* n fek_mm_nat[k] */
	double *par;			/* n fek_mm_npar[k] */
};

/* Append one interaction (out of memory: exits 70). */
void	fek_mm_ilist_add(struct fek_mm_ilist *il, int kind, const int *atoms,
	    const double *par);

/*
 * Energy terms, as GROMACS's gmx energy names them (fek_mm_term_name),
 * so that a single point can be compared term by term.
 */
enum fek_mm_term {
	FEK_MM_E_BOND,		/* "Bond" */
	FEK_MM_E_ANGLE,		/* "Angle" */
	FEK_MM_E_UB,		/* "U-B" */
	FEK_MM_E_PDIH,		/* "Proper Dih." */
	FEK_MM_E_PIDIH,		/* "Per. Imp. Dih." */
	FEK_MM_E_RB,		/* "Ryckaert-Bell." */
	FEK_MM_E_IDIH,		/* "Improper Dih." */
	FEK_MM_E_LJ14,		/* "LJ-14" */
	FEK_MM_E_COUL14,	/* "Coulomb-14" */
	FEK_MM_E_LJSR,		/* "LJ (SR)" */
	FEK_MM_E_DISPCORR,	/* "Disper. corr." */
	FEK_MM_E_COULSR,	/* "Coulomb (SR)" */
	FEK_MM_E_COULRECIP,	/* "Coul. recip." */
	FEK_MM_NTERM
};

const char *fek_mm_term_name(int term);

/* The flat system: every molecule of [ molecules ] expanded, in order. */
struct fek_mm_top {
	long n;				/* atoms, virtual sites included */
	double *mass;			/* g/mol; 0 for virtual sites */
	double *q;			/* charge, e */
	int *type;			/* LJ (atom) type, 0 .. ntype - 1 */
	char *ptype;			/* 'A' atom, 'V' virtual site (and 'D'
					   dummy, read as 'V') */
	int *resnr;			/* residue number as in [ atoms ] */
	char (*resname)[8];		/* residue name */
	char (*aname)[8];		/* atom name */
	int *mol;			/* molecule (block of [ molecules ]
					   expanded) each atom belongs to */
	long nmol;
	int ntype;
	char (*tname)[16];		/* atom type names */
	double *c6, *c12;		/* ntype x ntype LJ coefficients
					   (kJ/mol nm^6, kJ/mol nm^12), from
					   [ nonbond_params ] or the
					   combination rule */
	struct fek_mm_ilist il[FEK_MM_NKIND];
	/* exclusions: atom i's excluded partners (both ways, not i itself,
	   sorted) are xlist[xstart[i] .. xstart[i + 1]) */
	long *xstart;
	int *xlist;
	int comb;			/* [ defaults ] comb-rule (1, 2, 3) */
	double fudge_lj, fudge_qq;	/* [ defaults ] */
	char system[128];		/* [ system ] title */
};

/*
 * Read a topology: path (.top), with #include files found beside the
 * including file, then in each directory of incdirs (':'-separated; may
 * be NULL), then in $GMXLIB and $GMXDATA/top, then /usr/share/gromacs/top,
 * as grompp does; defines: "-DNAME[=VALUE] ..." as grompp's mdp "define"
 * (may be NULL).  On error -1 with fek_seterr(66, cannot open) or
 * fek_seterr(65, "FILE:LINE: what"), naming the file and line where the
 * fault is (an unknown directive, a missing parameter type, a bad
 * number, an atom index out of range, an unsupported function type, a
 * molecule name [ molecules ] does not know ...); t is then freed.
 */
int	fek_mm_top_read(struct fek_mm_top *t, const char *path,
	    const char *incdirs, const char *defines);
void	fek_mm_top_free(struct fek_mm_top *t);

/* Run options: the .mdp keys md-gpu reads (mdp.c), GROMACS's defaults. */
enum { FEK_MM_COUL_CUT, FEK_MM_COUL_RF, FEK_MM_COUL_PME };
enum { FEK_MM_DISP_NO, FEK_MM_DISP_ENER, FEK_MM_DISP_ENERPRES };
enum { FEK_MM_CONSTR_NONE, FEK_MM_CONSTR_HBONDS, FEK_MM_CONSTR_ALLBONDS };
struct fek_mm_opt {
	int coulombtype;		/* cut-off (= reaction-field with
					   epsilon-rf 1, as GROMACS's Verlet
					   scheme), reaction-field, PME */
	int coul_shift;			/* coulomb-modifier potential-shift
					   (default) or none */
	int vdw_shift;			/* vdw-modifier potential-shift
					   (default) or none */
	double rcoulomb, rvdw;		/* nm (defaults 1, 1) */
	double epsilon_r, epsilon_rf;	/* 1, 0 (= infinity) */
	double ewald_rtol;		/* 1e-5 */
	int pme_order;			/* 4 */
	double fourierspacing;		/* 0.12 nm */
	int fourier_n[3];		/* fourier-nx, -ny, -nz (0: from the
					   spacing) */
	int dispcorr;			/* no, Ener, EnerPres */
	int constraints;		/* none, h-bonds, all-bonds */
	char define[512];		/* "define" */
	char include[512];		/* "include": -I dirs */
	/* dynamics (read, used by later increments) */
	double dt, tinit;
	long nsteps;
	double ref_t, tau_t, ref_p, tau_p, compressibility;
	char integrator[32], tcoupl[32], pcoupl[32];
	int gen_vel;			/* gen-vel: velocities from a
					   Maxwell-Boltzmann distribution */
	double gen_temp;		/* gen-temp, K (300) */
	long gen_seed;			/* gen-seed (-1: md-gpu's -s) */
	long nh_chain;			/* nh-chain-length (10) */
	long nstpcouple;		/* nstpcouple (-1: md-gpu's 25) */
	double skin;			/* the GPU's pair list: buffer beyond
					   the cut-offs, nm (md-gpu --skin;
					   0.12); speed only */
	int mixed;			/* the GPU's non-bonded pairs in
					   single precision (md-gpu
					   --precision mixed); 0: double */
};

/* GROMACS's defaults into o. */
void	fek_mm_opt_default(struct fek_mm_opt *o);
/* Read a .mdp file into o (over its defaults): "key = value" lines,
 * ';' comments, '-' and '_' the same in keys; keys md-gpu does not use
 * are ignored, values it cannot honour (an integrator, coulombtype or
 * constraint algorithm it lacks) are refused.  -1 with fek_seterr(66) or
 * fek_seterr(65, "FILE:LINE: ..."). */
int	fek_mm_opt_read(struct fek_mm_opt *o, const char *path);

/* Bonds to hydrogen (an atom whose name starts with H, as grompp) or
 * all bonds made constraints of their b0, as mdp constraints asks. */
void	fek_mm_top_constrain(struct fek_mm_top *t, int mode);

/* ---- the CPU reference of energies and forces ---------------------------- */

/* A single point's results: energy terms (kJ/mol), the virial
 * -1/2 sum r (x) f (kJ/mol, 3 x 3, row-major), forces (n x 3, kJ/mol/nm)
 * on the atoms after virtual-site forces are spread. */
struct fek_mm_energy {
	double term[FEK_MM_NTERM];
	double pot;			/* their sum */
	double vir[9];
};

/* Bonded kinds and pairs (BOND .. PAIR) at x (n x 3, nm) in box b
 * (distances by minimum image): energies added into e->term, forces
 * into f (n x 3), virial into e->vir.  eps_r: the pairs' dielectric. */
void	fek_mm_bonded(const struct fek_mm_top *t, const struct fek_box *b,
	    double eps_r, const double *x, double *f, struct fek_mm_energy *e);

/* Virtual sites: their positions from their constructing atoms, and
 * their forces spread back onto those atoms (f of the sites zeroed). */
void	fek_mm_vsite_place(const struct fek_mm_top *t, const struct fek_box *b,
	    double *x);
void	fek_mm_vsite_spread(const struct fek_mm_top *t, const struct fek_box *b,
	    const double *x, double *f, double *vir);

/* Smooth PME, the reciprocal part (pme.c, FFTW): grid n[3], B-spline
 * order, Ewald splitting beta (1/nm).  fek_mm_pme_new: NULL with
 * fek_seterr(64) for a bad grid or order. */
struct fek_mm_pme;
struct fek_mm_pme *fek_mm_pme_new(const int *n, int order, double beta);
/* Whether a grid n, order and beta will do (the CPU's and the GPU's
 * objects): 0, or -1 with fek_seterr(64). */
int	fek_mm_pme_check(const int *n, int order, double beta);
/* Reciprocal energy of charges q at x (n atoms) in box b, including the
 * self term -beta/sqrt(pi) sum q^2 and, for a net charge Q, the uniform
 * background -pi Q^2 / (2 V beta^2) (both times ONE_4PI_EPS0 / eps_r);
 * GROMACS reports the self term under "Coulomb (SR)" and the rest under
 * "Coul. recip." (energy.c books them so).  Forces added to f, virial to
 * vir. */
double	fek_mm_pme_energy(struct fek_mm_pme *p, const struct fek_box *b,
	    long n, const double *x, const double *q, double eps_r, double *f,
	    double *vir);
void	fek_mm_pme_free(struct fek_mm_pme *p);
/* For insertions (pme.c): the reciprocal potential theta_rec * Q of the
 * charges on the grid into phi (n0 n1 n2, no prefactor); the kernel
 * theta_rec of cell b into theta (n0 n1 n2); the grid's sizes and order.
 * The influence function is made once for frames of one cell. */
void	fek_mm_pme_potential(struct fek_mm_pme *p, const struct fek_box *b,
	    long n, const double *x, const double *q, double *phi);
void	fek_mm_pme_kernel(struct fek_mm_pme *p, const struct fek_box *b,
	    double *theta);
void	fek_mm_pme_shape(const struct fek_mm_pme *p, int *n, int *order);
/* The Ewald beta with erfc(beta rc) = rtol (GROMACS's calc_ewaldcoeff_q). */
double	fek_mm_ewald_beta(double rc, double rtol);
/* Grid points along a box vector of length l for spacing h: the size
 * grompp 2022 picks (pme.c lists them; not every product of 2, 3, 5 and
 * 7).  grompp also makes each at least 2 (pme-order - 1): the caller's. */
int	fek_mm_pme_grid(double l, double h);

/* The PME grid of o for box b (energy.c; the CPU's and the GPU's):
 * fourier-nx, -ny, -nz where given, else grompp's choice for
 * fourierspacing along each box vector's length (fek_mm_pme_grid), at
 * least 2 (pme-order - 1) points.  0, or -1 with fek_seterr(65) for an
 * edge too long for any grid. */
int	fek_mm_pme_grid_of(const struct fek_mm_opt *o, const struct fek_box *b,
	    int *n);

/* Short-range non-bonded (nonbonded.c): LJ within rvdw and Coulomb
 * within rcoulomb (cut-off/reaction-field/PME real space, with the
 * modifiers of o), excluded pairs left out (and with PME their
 * reciprocal-space interaction subtracted), dispersion correction. */
void	fek_mm_nonbonded(const struct fek_mm_top *t, const struct fek_mm_opt *o,
	    const struct fek_box *b, const double *x, double *f,
	    struct fek_mm_energy *e);

/* Whether box b suits o (energy.c): every number finite, the edges
 * positive, each tilt at most half the edge it leans along, and every
 * width between opposite faces at least twice the longer cut-off, as the
 * minimum image needs (gmx grompp and mdrun refuse the same).  0, or -1
 * with fek_seterr(65, "what: ..."). */
int	fek_mm_box_check(const struct fek_mm_opt *o, const struct fek_box *b,
	    const char *what);

/* The forces of a system run by run (energy.c): a context for t with
 * options o in a box of b's size (the PME grid and FFT plans: b's box
 * sets the grid, which later boxes keep), and one evaluation in box b
 * (fek_mm_box_check'ed): with place, virtual sites placed from their
 * atoms first (x updated); every term into e, the forces (sites' spread
 * onto their atoms) into f (n x 3, overwritten).  NULL / -1 with
 * fek_seterr. */
struct fek_mm_force;
struct fek_mm_force *fek_mm_force_new(const struct fek_mm_top *t,
	    const struct fek_mm_opt *o, const struct fek_box *b);
int	fek_mm_force_eval(struct fek_mm_force *c, const struct fek_box *b,
	    int place, double *x, double *f, struct fek_mm_energy *e);
void	fek_mm_force_free(struct fek_mm_force *c);

/* A whole single point (energy.c): with place, virtual sites placed
 * from their atoms first (x updated), else taken as x gives them (as gmx
 * mdrun -rerun does); every term; the sites' forces spread onto their
 * atoms.  f (n x 3) is overwritten.  -1 with fek_seterr on a PME setup
 * failure. */
int	fek_mm_single_point(const struct fek_mm_top *t,
	    const struct fek_mm_opt *o, const struct fek_box *b, int place,
	    double *x, double *f, struct fek_mm_energy *e);

/* ---- constraints (constr.c) ----------------------------------------------- */

/*
 * The constraints of a system: its [ settles ] (SETTLE, Miyamoto and
 * Kollman, J. Comput. Chem. 13, 952 (1992), analytic) and its other
 * FEK_MM_CONSTR bonds (SHAKE, Ryckaert, Ciccotti and Berendsen, J.
 * Comput. Phys. 23, 327 (1977), iterated until every length is within
 * tol relative; their velocities by RATTLE, Andersen, J. Comput. Phys.
 * 52, 24 (1983)), with the masses of t.  NULL with fek_seterr(65) when a
 * constrained atom has no mass or a settle's geometry is impossible.
 */
struct fek_mm_constr;
struct fek_mm_constr *fek_mm_constr_new(const struct fek_mm_top *t,
	    double tol);
/* Degrees of freedom the constraints remove: 3 a settle, 1 a bond. */
long	fek_mm_constr_count(const struct fek_mm_constr *c);
/*
 * Positions: x holds the unconstrained new positions (n x 3), xref the
 * old ones, which satisfy the constraints and give their directions; x
 * is moved (along the constraints, mass-weighted) until they hold.  With
 * v (not NULL) and dt > 0 the displacement / dt is added to v, and with
 * vir the constraint forces' virial -1/2 sum r (x) f_c, f_c = m dx /
 * dt^2.  Distances by minimum image in b.  -1 with fek_seterr(1) when
 * SHAKE does not converge (naming the constraint and its deviation).
 */
int	fek_mm_constrain_x(struct fek_mm_constr *c, const struct fek_box *b,
	    const double *xref, double *x, double *v, double dt, double *vir);
/*
 * Velocities: v (n x 3) made to satisfy the time derivative of every
 * constraint at x (no relative velocity along a constrained bond), the
 * change mass-weighted; with vir (and dt > 0) the virial of the
 * constraint forces m dv / dt.  -1 with fek_seterr(1) as above.
 */
int	fek_mm_constrain_v(struct fek_mm_constr *c, const struct fek_box *b,
	    const double *x, double *v, double dt, double *vir);
void	fek_mm_constr_free(struct fek_mm_constr *c);
/* Its parts, for the GPU (kernels/mm/run.cu): the settles (n of them;
 * settle_eval.h's struct, canonical geometry included) and SHAKE's bonds
 * (n pairs of atoms, their lengths into *len), valid while c is. */
struct fek_mm_settle;
const struct fek_mm_settle *fek_mm_constr_settles(
	    const struct fek_mm_constr *c, long *n);
const int *fek_mm_constr_bonds(const struct fek_mm_constr *c,
	    const double **len, long *n);
/* SHAKE's bonds in connected clusters (atoms joined by bonds: a heavy
 * atom and its hydrogens under h-bonds), clusters in the order of their
 * first bonds, each cluster's bonds in c's order: cluster q's bonds are k
 * = (*start)[q] .. (*start)[q + 1] - 1, of atoms (*at)[2 k], (*at)[2 k +
 * 1] and length (*len)[k].  Returns the number of clusters; the arrays
 * are the caller's to free.  Clusters share no atom, so the GPU
 * constrains them in parallel. */
int	fek_mm_constr_clusters(const struct fek_mm_constr *c, int **start,
	    int **at, double **len);

/* ---- dynamics (run.c) ------------------------------------------------------ */

enum { FEK_MM_INT_VV, FEK_MM_INT_LANGEVIN };
enum { FEK_MM_TC_NONE, FEK_MM_TC_VRESCALE, FEK_MM_TC_NOSEHOOVER };
enum { FEK_MM_PC_NONE, FEK_MM_PC_MC };

/* How to run. */
struct fek_mm_md {
	int integrator;			/* FEK_MM_INT_VV (NVE) or _LANGEVIN */
	double dt;			/* ps */
	double kT;			/* kJ/mol (Langevin) */
	double gamma;			/* friction, 1/ps (Langevin) */
	uint64_t key;			/* the Philox key of the seed */
	long long nsteps;
	long every;			/* frames every so many steps (0: none) */
	long logevery;			/* log rows likewise */
	double t0;			/* time of step 0, ps */
	double constr_tol;		/* SHAKE's relative tolerance */
	int tcoupl;			/* FEK_MM_INT_VV: FEK_MM_TC_VRESCALE
					   (Bussi et al. 2007) or
					   FEK_MM_TC_NOSEHOOVER (a chain,
					   Martyna, Tuckerman and Klein
					   1996) at kT, tau_t */
	double tau_t;			/* ps */
	int nh_chain;			/* Nose-Hoover thermostats in the
					   chain, 1 .. FEK_NHC_MAX */
	int pcoupl;			/* FEK_MM_PC_MC: the Monte Carlo
					   barostat (barostat.c) at kT */
	double ref_p;			/* bar */
	long nstpcouple;		/* steps between its moves */
	long *baro_counts;		/* NULL, or where the run leaves its
					   moves tried and accepted [2] */
};

/* Where a run's results go; each returns -1 (with fek_seterr) to stop it.
 * NULL members are skipped.  log's H: the conserved quantity, E less the
 * energy the thermostat has put in (E itself without one); V the box's
 * volume (nm^3). */
struct fek_mm_sink {
	void *ctx;
	int	(*log)(void *ctx, long long step, double t,
		    const struct fek_mm_energy *e, double K, double T,
		    double H, double V);
	int	(*frame)(void *ctx, long long step, double t,
		    const struct fek_box *b, const double *x, const double *v);
};

/* Kinetic energy of velocities v (n x 3) of t's atoms, kJ/mol. */
double	fek_mm_kinetic(const struct fek_mm_top *t, const double *v);
/* Degrees of freedom: 3 a massive atom, less the constraints of c (may
 * be NULL) and, for FEK_MM_INT_VV (which conserves the momentum), the
 * centre of mass's 3. */
long	fek_mm_dof(const struct fek_mm_top *t, const struct fek_mm_constr *c,
	    int integrator);
/* The Nose-Hoover chain of p (nh_chain, tau_t read as GROMACS reads it,
 * kT) for ndf degrees of freedom, at rest: run.c's and the GPU's. */
void	fek_mm_nhc_setup(struct fek_nhc_par *np, struct fek_nhc *ns,
	    const struct fek_mm_md *p, long ndf);
/* Velocities from the Maxwell-Boltzmann distribution at temp (K), Philox
 * keyed by key, without centre-of-mass motion; 0 for massless sites. */
void	fek_mm_gen_vel(const struct fek_mm_top *t, double temp, uint64_t key,
	    double *v);
/* Where a run's forces come from: eval as fek_mm_force_eval (the GPU's
 * fek_mm_gpu_eval, say). */
struct fek_mm_forcefn {
	void *ctx;
	int	(*eval)(void *ctx, const struct fek_box *b, int place,
		    double *x, double *f, struct fek_mm_energy *e);
};

/*
 * Run p->nsteps steps of t in box b from x, v (n x 3, updated): the
 * constraints first made to hold, then the integrator of p; the log and
 * frames of step 0, every, ... and the last to sink.  Forces from ff, or
 * the CPU's (fek_mm_force_new) when ff is NULL.  -1 with fek_seterr (a
 * constraint that fails to converge: 1; PME: 64).
 */
int	fek_mm_run(const struct fek_mm_top *t, const struct fek_mm_opt *o,
	    const struct fek_mm_md *p, struct fek_box *b, double *x, double *v,
	    const struct fek_mm_sink *sink, const struct fek_mm_forcefn *ff);

/* ---- the Monte Carlo barostat (barostat.c) -------------------------------- */

/* Isotropic volume moves that scale the molecules' centres of mass
 * (t->mol), the box kept wider than twice the longer cut-off, uniforms
 * from Philox. */
struct fek_mm_baro;
/* One move at step: x, the box b, the forces f and energies e (those of x
 * in b) replaced by the new ones when it is accepted (ff evaluates them).
 * 1 accepted, 0 rejected, -1 with fek_seterr (ff's). */
int	fek_mm_baro_try(struct fek_mm_baro *br, const struct fek_mm_top *t,
	    const struct fek_mm_forcefn *ff, long long step, struct fek_box *b,
	    double *x, double *f, struct fek_mm_energy *e);
/* The barostat run p asks for under options o (p->pcoupl: at p->ref_p
 * bar and p->kT), for the host's run (run.c) and the GPU-resident one
 * alike: the same key, so the same uniforms; NULL when p has none. */
struct fek_mm_baro *fek_mm_baro_of(const struct fek_mm_top *t,
	    const struct fek_mm_opt *o, const struct fek_mm_md *p,
	    const struct fek_box *b);
/* The end of a run: its tries and accepted moves into counts[0], [1]
 * (a run's md.baro_counts; NULL: not kept), then br freed (NULL: none). */
void	fek_mm_baro_end(struct fek_mm_baro *br, long *counts);

/* ---- replicas (replicas.c) ------------------------------------------------ */

/*
 * Independent replicas of one small system (a peptide in vacuum, say),
 * run side by side: the collective variables md-gpu samples are
 * torsions, each optionally held by a harmonic umbrella restraint
 * U = k/2 (phi - c)^2, phi - c taken in (-180, 180] degrees, k in
 * kJ/mol/deg^2 (fek(5)'s WINDOW convention).  The restraints add forces,
 * not energy terms: fek_mm_energy's pot leaves them out.
 */
#define FEK_MM_MAXCV 3
struct fek_mm_cvset {
	int ncv;
	int atoms[FEK_MM_MAXCV][4];	/* 0-based */
	char name[FEK_MM_MAXCV][16];
};

/* The torsion of atoms at[0..3] at x in box b, degrees in (-180, 180]
 * (bonded_eval.h's convention; 0 when undefined). */
double	fek_mm_torsion_deg(const struct fek_box *b, const double *x,
	    const int *at);

/* What a batch is: nwin windows of nrep replicas each; replica r = w
 * nrep + i is keyed by fek_mm_replica_key(key, r); window w's restraint
 * centres and springs (degrees, kJ/mol/deg^2) are centre[w ncv ..],
 * spring[w ncv ..] (NULL: none); samples of the CVs at the steps
 * first, first + every, ... <= nsteps (first the smallest multiple of
 * every >= skip). */
struct fek_mm_batch {
	long nrep, nwin;
	const double *centre, *spring;
	long long skip;
	long every;
};

/* Replica r's Philox key (r = 0: key itself, so one replica is the
 * plain run). */
uint64_t fek_mm_replica_key(uint64_t key, long r);
/* The samples per replica of a batch of nsteps steps. */
long long fek_mm_batch_nsamp(const struct fek_mm_batch *bt, long long nsteps);

/*
 * Run every replica of bt on the CPU: replica r from x0 with velocities
 * v0 + r n 3 (n x 3 each, r = 0 .. nwin nrep - 1; generated or copied by
 * the caller), p's integrator (FEK_MM_INT_LANGEVIN or FEK_MM_INT_VV
 * without a thermostat), key fek_mm_replica_key(p->key, r).  The CVs of
 * cv into samples ((nwin nrep) x nsamp x ncv, replica-major), the last
 * positions and velocities into x0 and v0 (each (nwin nrep) x n x 3: x0
 * must have room for them all, its first n x 3 the start).  progress
 * (may be NULL) is called after each replica.  -1 with fek_seterr.
 */
int	fek_mm_replicas_run(const struct fek_mm_top *t,
	    const struct fek_mm_opt *o, const struct fek_mm_md *p,
	    const struct fek_mm_cvset *cv, const struct fek_mm_batch *bt,
	    const struct fek_box *b, double *x, double *v, double *samples,
	    void (*progress)(long done, long total));


#ifdef __cplusplus
}
#endif
#endif
