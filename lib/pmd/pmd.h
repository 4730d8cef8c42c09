/*
 * pmd.h - md-gpu's particle engine: batches of periodic boxes of N
 * particles with pair potentials, neighbour lists and thermostats, run on
 * the CPU (the C files of lib/pmd, the double-precision reference) or the GPU
 * (kernels/pmd/run.cu).  The arithmetic both share is lib/pmd/pmd_eval.h.
 *
 * The split, for the molecular force fields that follow (bonded terms,
 * PME, constraints): a system (struct fek_psys: particles, types, masses,
 * cells and the integrators' state) is moved by an integrator (struct
 * fek_pmd_par) under forces from a pair potential (struct fek_pairpot)
 * over a neighbour list (struct fek_nlist); results go to a sink.
 *
 * Units: the engine computes in one consistent set (length, energy, mass;
 * time = length sqrt(mass / energy)); lib/md/units.c converts what the
 * user gives and reads (reduced LJ units, or real units).
 *
 * A batch is nbox boxes of the same n particles with the same types: one
 * box is an ordinary simulation; many are independent replicas (their own
 * cells, velocities, thermostats and barostats) run together.  Particle i
 * of box b is row b n + i of x, v and f.
 */
#ifndef FEK_PMD_H
#define FEK_PMD_H

#include <stdint.h>

#include "pmd/pmd_eval.h"

/* ---- pair potentials (pair.c) ------------------------------------------ */

struct fek_pairpot {
	int style;			/* FEK_PAIR_LJ or FEK_PAIR_TABLE */
	int ntypes;
	int shift;			/* LJ: shifted to 0 at each cutoff */
	int fshift;			/* LJ: force-shifted too */
	int tail;			/* LJ: analytic tail beyond the cutoff */
	int wca;			/* LJ cut at 2^(1/6) sigma, shifted */
	double rcmax;			/* the largest cutoff */
	/* per type pair (ntypes x ntypes, symmetric) */
	struct fek_pair_coef coef[FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES];
	double eps[FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES];
	double sig[FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES];
	double rc[FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES];
	int given[FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES];	/* not mixed */
	double *tab;			/* table nodes: (u, du/dr) pairs */
	long ntab;			/* nodes in all */
	char *tabname;			/* the table file */
};

/* An "I:J:eps:sigma[:rc]" or "eps:sigma[:rc]" option into pp (types from
 * 0, rc <= 0: the global one).  -1 with fek_seterr(64). */
int	fek_pair_parse_lj(struct fek_pairpot *pp, const char *arg);
/* Read a table file for type pair (i, j) (columns r u [f], r increasing,
 * f = -du/dr, '#' comments): the nodes are resampled on nnode uniform
 * points from its first r to rc by GSL's cubic spline (f integrated
 * where it is given, else u differentiated).  -1 with fek_seterr(66 or
 * 65, naming file and line). */
int	fek_pair_read_table(struct fek_pairpot *pp, int i, int j,
	    const char *path, double rc, long nnode);
/* Fill in the coefficients for ntypes types: given pairs, the rest mixed
 * (Lorentz-Berthelot: arithmetic sigma, geometric eps; geometric = 1:
 * both geometric), cutoff rc where none was given, WCA cutoffs, shifts.
 * -1 with fek_seterr(64) when a type pair has no parameters. */
int	fek_pair_finish(struct fek_pairpot *pp, int ntypes, double rc,
	    int geometric);
/* The analytic tail of the LJ pairs beyond their cutoffs, for count[t]
 * particles of type t in volume V: energy and pressure (Allen and
 * Tildesley, Eqs. 2.144-2.145, per type pair).  0 without -tail. */
void	fek_pair_tail(const struct fek_pairpot *pp, const long *count,
	    double V, double *utail, double *ptail);
/* One header line per type pair, for the output sections. */
int	fek_pair_describe(const struct fek_pairpot *pp, int i, int j,
	    char *buf, size_t len);
void	fek_pair_free(struct fek_pairpot *pp);
/* The LJ potential an md-gpu frames header describes (its PAIR lines, as
 * fek_pair_describe writes them, and TAIL: *tail 1, 0, or -1 without the
 * key); pp is cleared first and left for fek_pair_finish.  -1 with
 * fek_seterr(65) when there are none, a table, or a line is malformed. */
struct fek_header;
int	fek_pair_from_keys(struct fek_pairpot *pp, const struct fek_header *h,
	    int *tail);

/* ---- the system -------------------------------------------------------- */

struct fek_psys {
	long n;				/* particles per box */
	int nbox;
	int ntypes;
	int *type;			/* n, shared by the boxes */
	long long *id;			/* n: ids as read (output order) */
	double mass[FEK_PMD_MAXTYPES];
	char tname[FEK_PMD_MAXTYPES][16]; /* type names as read, or "" */
	double *x, *v;			/* nbox n x 3 */
	struct fek_box *box;		/* nbox */
	int have_v;			/* velocities were read */
	int copied;			/* one configuration, copied to every
					   box */
	long long step;
	/* the integrators' state, per box */
	struct fek_nhc *nhc;		/* Nose-Hoover chains */
	double *twoK;			/* 2K after the last end-of-step half */
	double *dvmax;			/* barostat: largest volume move */
	long *natt, *nacc;		/* barostat: tries, accepted */
	long *nacc0;			/* barostat: accepted at the last
					   adjustment of dvmax */
	/* where the neighbour lists were built (an exact restart rebuilds
	 * them from here) */
	double *xref;			/* nbox n x 3 */
	struct fek_box *boxref;		/* nbox */
	int have_ref;
	uint64_t seed;			/* of the run that wrote a checkpoint */
};

/* Allocate a batch (x, v, xref zero, types 0, masses 1); free it. */
void	fek_psys_alloc(struct fek_psys *s, long n, int nbox, int ntypes);
void	fek_psys_free(struct fek_psys *s);
/* Set a box's inverse edges; check what the minimum image needs for
 * separations up to rmax: tilts at most half an edge, every perpendicular
 * width at least 2 rmax.  -1 with fek_seterr(65) naming what fails. */
int	fek_box_set(struct fek_box *b);
int	fek_box_check(const struct fek_box *b, double rmax, const char *what);
double	fek_box_volume(const struct fek_box *b);
/* The perpendicular widths of the cell (between opposite faces). */
void	fek_box_widths(const struct fek_box *b, double *w);
/* nlist.c: the cell grid of a box for pairs within rl: the stencil's
 * reach (2: cells at least rl / 2 wide, 5 x 5 x 5 of them searched; 1:
 * cells at least rl wide, 3 x 3 x 3) and the cells along each edge nc[]
 * (at most 1024), or 0 when a dimension has fewer than 3 cells of rl
 * (all pairs searched). */
int	fek_cell_grid(const struct fek_box *b, double rl, long *nc);
/* Edges and tilts times sc (the origin kept). */
void	fek_box_scale(struct fek_box *b, double sc);

/* lattice.c: box 0 filled with the lattice ("fcc", "bcc", "sc") of
 * cells[3] unit cells at number density rho; every box gets the same
 * positions.  -1 with fek_seterr(64). */
int	fek_lattice_fill(struct fek_psys *s, const char *kind,
	    const long *cells, double rho);
/* Particles a lattice kind puts in one unit cell (0: unknown kind). */
int	fek_lattice_basis(const char *kind);
/* Maxwell-Boltzmann velocities at kT for every box from Philox (seed,
 * box, particle), the centre-of-mass motion removed and the kinetic
 * energy set to nf kT / 2 exactly (nf: the run's, fek_pmd_nf). */
void	fek_psys_velocities(struct fek_psys *s, double kT, uint64_t key,
	    double nf);
/* Remove the centre-of-mass velocity of box b. */
void	fek_psys_zero_momentum(struct fek_psys *s, int b);
/* Twice the kinetic energy of box b. */
double	fek_psys_twoK(const struct fek_psys *s, int b);

/* config.c: a configuration read from path ("-": stdin) in fek frames
 * (one frames section per box; a BOX key), GROMACS .gro or LAMMPS data
 * format (format NULL: by the name's suffix, else by content), lengths
 * times lscale (nm -> A for .gro in real units, say), velocities times
 * vscale.  Fills a fresh s (nbox from the file, or copies to nbox when
 * the file has one box and nbox > 1).  -1 with fek_seterr: 66 cannot
 * open, 65 malformed (file and line or section named). */
int	fek_config_read(struct fek_psys *s, const char *path,
	    const char *format, double lscale, double vscale, int nbox);
/* The format fek_config_read reads path in: format, or its guess ("fek",
 * "gro", "lammps"; NULL with fek_seterr when path cannot be read). */
const char *fek_config_format(const char *path, const char *format);

/* ---- neighbour lists (nlist.c) ----------------------------------------- */

/* A row entry: j (the low 25 bits) and the image of j that is i's
 * neighbour, as the lattice vectors n_x a + n_y b + n_z c to add to r_j
 * (n from -2 to 2: code (n_x + 2) + 5 (n_y + 2) + 25 (n_z + 2)). */
#define FEK_NL_JBITS 25
#define FEK_NL_JMASK ((1 << FEK_NL_JBITS) - 1)
#define FEK_NL_NCODE 125

struct fek_nlist {
	double rc;			/* the potential's largest cutoff */
	double skin;			/* rlist = rc + skin */
	long maxnb;			/* row length */
	int *nb;			/* nbox n x maxnb: j > i, with its image */
	int *cnt;			/* nbox n */
	double *shift;			/* nbox x 125 x 3: each code's vector */
	long long nbuild;		/* lists built, all boxes */
	int allpairs;			/* 1: no cells (a small box) */
	/* cells, for one box at a time */
	long ncell, cellcap;
	int *cstart, *cidx, *cof;
};

void	fek_nlist_init(struct fek_nlist *nl, const struct fek_psys *s,
	    double rc, double skin);
void	fek_nlist_free(struct fek_nlist *nl);
/* Build box b's list from s->xref (every pair i < j of its particles
 * closer than rc + skin, in i's row, with the image of j as it was in
 * xref), growing the rows as needed.  The positions must not be wrapped
 * again until the next build, so that r_i - (r_j + shift) stays the
 * minimum image (lib/pmd/run.c wraps them at the builds only).  -1 with
 * fek_seterr(65) when the box is too small or holds more than 2^25
 * particles. */
int	fek_nlist_build(struct fek_nlist *nl, const struct fek_psys *s, int b);

/* ---- forces (force.c) -------------------------------------------------- */

/* Per-thread sums of the half rows' forces (and energies, virials). */
struct fek_force_scratch {
	int nthr;
	long n;
	double *f, *e, *w;		/* nthr x n (x 3 for f) */
};
void	fek_force_scratch_init(struct fek_force_scratch *fs, long n);
void	fek_force_scratch_free(struct fek_force_scratch *fs);
/* Pair forces on box b's particles into f (n x 3, overwritten); with
 * e_i and w_i (else NULL) also each particle's half of its pairs'
 * energies and of their virial r_ij . f_ij.  The sums are the same for
 * the same number of threads.  -1 with fek_seterr(1) when a separation
 * falls below a table's first point. */
int	fek_pmd_forces(const struct fek_pairpot *pp, const struct fek_nlist *nl,
	    const struct fek_psys *s, int b, struct fek_force_scratch *fs,
	    double *f, double *e_i, double *w_i);
/* The sum of a[0 .. n-1] in an order that does not depend on the number
 * of threads (blocks of 1024, then the blocks in order). */
double	fek_pmd_sum(const double *a, long n);

/* ---- the run ----------------------------------------------------------- */

enum fek_pmd_integ { FEK_PMD_VERLET, FEK_PMD_BAOAB, FEK_PMD_NHC };

struct fek_pmd_par {
	int integ;
	double dt;			/* time step */
	double kT;			/* target (thermostats, barostat) */
	double gamma;			/* BAOAB friction (1 / time) */
	double tau;			/* Nose-Hoover: period of the chain */
	int chain, nc, nys;		/* Nose-Hoover: length, Trotter, S-Y */
	int baro;			/* Monte Carlo barostat */
	double pressure;
	long baro_every;		/* steps between volume moves */
	long zero_every;		/* steps between momentum removals */
	double skin;
	uint64_t seed;
	long long nsteps;		/* steps to run */
	long long equil;		/* steps before the first frame */
	long long every;		/* steps between frames (0: none) */
	long long thermo_every;		/* steps between log rows (0: none) */
	long long ckpt_every;		/* steps between checkpoints (0: end) */
	int want_f;			/* frames carry forces, energies */
	int restart;			/* s is a checkpoint */
};

/* What a log row holds for one box. */
struct fek_pmd_thermo {
	double K, U, Utail;		/* kinetic, pair, tail energy */
	double W;			/* virial sum r_ij . f_ij */
	double Ptail;			/* tail pressure */
	double V;			/* volume */
	double T;			/* 2K / nf (kT units) */
	double P;			/* (2K + W) / 3V + Ptail */
	double H;			/* the conserved quantity */
	double acc;			/* barostat acceptance so far */
	long long nbuild;		/* neighbour lists built (all boxes) */
};

/* Where results go.  Each returns 0 or -1 with fek_seterr. */
struct fek_pmd_sink {
	void *ctx;
	/* box b at step s->step: x (and v, f, u_i when asked for) of its n
	 * particles, in the particles' order */
	int (*frame)(void *ctx, const struct fek_psys *s, int b,
	    const double *x, const double *v, const double *f,
	    const double *u_i);
	int (*thermo)(void *ctx, long long step, int b,
	    const struct fek_pmd_thermo *t);
	/* the whole batch, for a restart (v as at the step's end) */
	int (*checkpoint)(void *ctx, const struct fek_psys *s);
	/* optional: the fraction done and the speed (steps/s) */
	void (*progress)(void *ctx, double done, double rate);
};

/* Degrees of freedom of one box: 3n - 3 where the momentum is zero and
 * stays so (Verlet, Nose-Hoover, BAOAB with zero_every), else 3n. */
double	fek_pmd_nf(const struct fek_psys *s, const struct fek_pmd_par *par);
/* The Nose-Hoover chain's parameters for par and s. */
void	fek_pmd_nhc_par(const struct fek_pmd_par *par,
	    const struct fek_psys *s, struct fek_nhc_par *p);
/* Philox's key for a seed. */
uint64_t fek_pmd_key(uint64_t seed);

/* Run par->nsteps steps of s on the CPU (OpenMP over particles).  0, or
 * -1 with fek_seterr (the sink's, 1 for a numerical failure, 65 for a
 * box too small for the cutoff). */
int	fek_pmd_run_cpu(struct fek_psys *s, const struct fek_pairpot *pp,
	    const struct fek_pmd_par *par, const struct fek_pmd_sink *sink);

/* Particles of each type in a box. */
void	fek_pmd_counts(const struct fek_psys *s, long *count);

/* barostat.c: the Monte Carlo barostat's decisions, for the CPU run and
 * the GPU's host alike. */
struct fek_baro_move {
	double V0, V1, dV;		/* volume before, tried, change */
	double sc;			/* edge factor (V1 / V0)^(1/3), or 0 */
	double u;			/* the acceptance test's uniform */
	struct fek_box box;		/* the cell scaled */
};
/* Box b's try at step t (counted): 1 when the scaled cell is a volume and
 * still holds rmax (else the try fails at once). */
int	fek_baro_propose(struct fek_psys *s, uint64_t key, int b, long long t,
	    double rmax, struct fek_baro_move *m);
/* Whether the try is accepted, from the pair energies before and after. */
int	fek_baro_accept(const struct fek_pmd_par *par,
	    const struct fek_pairpot *pp, const long *count, long n,
	    const struct fek_baro_move *m, double U0, double U1);
/* The try's outcome: the counts, and every 10 tries the largest move. */
void	fek_baro_done(struct fek_psys *s, int b, int accepted);

#endif
