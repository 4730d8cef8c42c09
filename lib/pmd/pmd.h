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

#include "particles/particles.h"
#include "pmd/pmd_eval.h"

/* ---- neighbour lists (nlist.c) ----------------------------------------- */

/* nlist.c: cells along the edges of widths w (between opposite faces)
 * at least cw wide: floor(w / cw) each, at most 1024, and, where that
 * makes more than max(2 n, minc^3) cells for n particles (a dilute or a
 * huge box), fewer and wider ones, the longest edge's count halved first,
 * none below minc.  Returns 1, or 0 when an edge has room for fewer than
 * minc (or w is not a number). */
int	fek_cell_counts(const double *w, double cw, long n, int minc, long *nc);
/* The cell grid of box b of n particles for pairs within rl: the
 * stencil's reach (2: cells at least rl / 2 wide, 5 x 5 x 5 of them
 * searched; 1: cells at least rl wide, 3 x 3 x 3) and the cells along
 * each edge nc[] (fek_cell_counts'), or 0 when a dimension has fewer than
 * 3 cells of rl (all pairs searched). */
int	fek_cell_grid(const struct fek_box *b, double rl, long n, long *nc);


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

/* Diagnostics of a GPU run, for -v and benchmarks. */
struct fek_gpu_pmd_stats {
	char device[128];		/* the device's name */
	double setup_ms;		/* context, buffers, first lists */
	double run_ms;			/* the steps, host wall */
	double sink_ms;			/* copies down and writing */
	long long nbuild;		/* lists built, all boxes */
	long long replays;		/* chunks run again after a list grew */
	int tpp;			/* threads per particle in the forces */
	long maxnb;			/* the lists' row length at the end */
};

/* engine.c: par->nsteps steps of s on use (FEK_DEV_CPU or FEK_DEV_GPU, as
 * fek_device_resolve gave it): fek_pmd_run_cpu or its GPU twin
 * (kernels/pmd/run.cu), the same frames to sink.  st (may be NULL) gets
 * the GPU's diagnostics, zeros on the CPU.  0, or -1 with fek_seterr as
 * the engine's. */
int	fek_pmd_run(struct fek_psys *s, const struct fek_pairpot *pp,
	    const struct fek_pmd_par *par, const struct fek_pmd_sink *sink,
	    enum fek_device use, struct fek_gpu_pmd_stats *st);

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
