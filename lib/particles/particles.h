/*
 * particles.h - systems of particles in periodic boxes, as md-gpu's
 * particle engine (lib/pmd), tpi-gpu (lib/tpi) and the configuration and
 * trajectory readers use them: pair potentials by type (pair.c; their
 * arithmetic is pair_eval.h), the system and its boxes (system.c;
 * box_eval.h), lattices (lattice.c) and configurations read from files
 * (config.c).  A batch is nbox boxes of the same n particles with the
 * same types; particle i of box b is row b n + i of x and v.
 */
#ifndef FEK_PARTICLES_H
#define FEK_PARTICLES_H

#include <stdint.h>

#include "particles/box_eval.h"
#include "particles/nhc_eval.h"
#include "particles/pair_eval.h"

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
/* The first fault of b for a cutoff rmax, widths into w: 0 none, 1 a tilt
 * beyond half the edge it leans along, 2 + d narrower than 2 rmax (or
 * not a number) along axis d. */
int	fek_box_fault(const struct fek_box *b, double rmax, double *w);
int	fek_box_check(const struct fek_box *b, double rmax, const char *what);
double	fek_box_volume(const struct fek_box *b);
/* The perpendicular widths of the cell (between opposite faces). */
void	fek_box_widths(const struct fek_box *b, double *w);
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

#endif
