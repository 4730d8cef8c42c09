/*
 * setup.h - a particle run (pmd.h) as md-gpu is asked for it
 * (lib/pmd/setup.c): where it starts (a checkpoint, a configuration file or
 * a lattice), its pair potential, and the run's parameters from what the
 * user gave in the units of --units, with the defaults of those units.
 */
#ifndef FEK_PMD_SETUP_H
#define FEK_PMD_SETUP_H

#include "pmd/pmd.h"
#include "particles/units.h"

/* Where a run starts: one of the three. */
struct fek_pmd_start {
	const char *restart;		/* a checkpoint */
	const char *config, *format;	/* a configuration file (format
					   NULL: guessed) */
	const char *lattice;		/* a lattice (the option as given) */
	char kind[8];			/* sc, bcc, fcc */
	long cells[3];			/* unit cells along each edge */
	double rho;			/* number density */
	long replicas;			/* boxes */
};

/* --lattice "kind:n" or "kind:nxnyxnz" into st (n from 1 to 10000).  -1
 * with fek_seterr(64). */
int	fek_pmd_lattice_parse(struct fek_pmd_start *st, const char *arg);
/* md-gpu -m: "mass" (every type) or "type:mass" into mass[] and given[];
 * 0, or a warning and 1, counted like fek_opt_long's (core/options.c). */
int	fek_pmd_opt_mass(const char *arg, double *mass, int *given);

/*
 * The system of st into a fresh s: a checkpoint written in units u
 * (its boxes replicas, unless replicas is 1; *seed its seed where
 * *seed < 0); a configuration file (a .gro's nm and nm/ps made A and
 * A/fs in real units, nm/ps the engine's velocity in gmx units; other
 * formats' velocities in u's time unit), one box copied to every
 * replica; or a lattice.  -1 with fek_seterr: 64 for a checkpoint of
 * other units or replicas, 65, 66 for the files.
 */
int	fek_pmd_start_read(struct fek_psys *s, const struct fek_pmd_start *st,
	    const struct fek_md_units *u, long *seed);

/* Pair tables (--table): file[k] for the types ti[k], tj[k] (ti[k] < 0:
 * every pair), resampled on points nodes. */
struct fek_pmd_tables {
	long n;
	const char *file[FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES];
	int ti[FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES];
	int tj[FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES];
	long points;
};

/* --table "file" or "i:j:file" added to tb.  -1 with fek_seterr(64). */
int	fek_pmd_tables_add(struct fek_pmd_tables *tb, const char *arg);

/*
 * The pair potential pp for ntypes types: the tables of tb, or LJ with
 * the nlj pairs fek_pair_parse_lj put into pp (none: eps = sigma = 1,
 * reduced units only), cut at rc (< 0: 2.5 times the largest sigma;
 * tables need it), the rest mixed (Lorentz-Berthelot, or geometric).
 * *sigmax: the largest sigma given, else the largest cutoff / 2.5.  -1
 * with fek_seterr: 64 for what is missing, 65, 66 for a table.
 */
int	fek_pmd_pair_setup(struct fek_pairpot *pp, const struct fek_md_units *u,
	    int nlj, const struct fek_pmd_tables *tb, double rc, int ntypes,
	    int geometric, double *sigmax);

/* A run as the user gives it, in the units of --units; a negative time
 * step, temperature, tau, friction, skin, every or thermo is "not
 * given". */
struct fek_pmd_user {
	int integ;			/* enum fek_pmd_integ */
	double dt, temp;
	double tau, gamma;		/* thermostats */
	long chain;			/* Nose-Hoover chain length */
	int baro;			/* the Monte Carlo barostat at */
	double pressure;
	long baro_every, zero_every;
	double skin;
	long seed;
	long nsteps, equil, every, thermo, ckpt_every;
	int log, ckpt;			/* a log, checkpoints asked for */
	int want_f, restart;
};

/*
 * par from w in units u: the unit system's time step (0.005 reduced, 1
 * fs real, 0.001 ps gmx) and temperature (1 reduced, else 300 K) where
 * none is given, times and pressure in the engine's units, kT; the
 * thermostats' tau 100 steps and BAOAB's friction 1 / tau; a neighbour
 * list skin of 0.3 sigmax; frames at the end (the start of a run of 0
 * steps); a log row every 100 steps with a log; checkpoints at the end
 * unless every is given.
 */
void	fek_pmd_par_setup(struct fek_pmd_par *par, const struct fek_md_units *u,
	    const struct fek_pmd_user *w, double sigmax);

#endif
