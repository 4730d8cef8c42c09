/*
 * setup.h - a tpi-gpu run settled by its first frame (setup.c): what the
 * command line asked, completed by the frame's keys (UNITS, PAIR, TAIL,
 * TEMP), into the pair potential, the parameters of the moves, the output
 * and the engine on the chosen device.
 */
#ifndef FEK_TPI_SETUP_H
#define FEK_TPI_SETUP_H

#include <stdio.h>

#include "particles/units.h"
#include "mm/mm.h"
#include "tpi/mol.h"
#include "tpi/tpi.h"
#include "tpi/tpi_output.h"

/* What the command line asks of a run; what it leaves open (negative,
 * NULL) the first frame settles. */
struct fek_tpi_request {
	const char *uname;		/* --units; NULL: the frames' UNITS,
					   else lj */
	const struct fek_pairpot *lj;	/* the --lj pairs (nlj of them) */
	int nlj;			/* 0: the frames' PAIR keys */
	int shift, fshift, geometric;	/* --shift, --force-shift, --mix */
	double rc;			/* --rc; < 0: 2.5 times the largest
					   --lj sigma */
	int tail;			/* 1 --tail, 0 --no-tail, -1: the
					   frames' TAIL (off for --lj) */
	const char *tname;		/* --type (number or name); NULL: 0 */
	double temp;			/* -t; < 0: the frames' TEMP */
	long nins;			/* -n */
	int del;			/* deletions (not --no-deletions) */
	int raw;			/* -E */
	long cells;			/* --cells */
	int mixed;			/* --precision: 1 mixed, 0 double, -1
					   the device's default */
	long seed;			/* -s */
	double hlo, hw;			/* --bins: first edge, width (kT) */
	long nbins;
	double screen;			/* --screen, kT (--top); 0: none */
	enum fek_device dev;		/* resolved: cpu or gpu */
	int text;			/* -T */
	const char *prov;		/* this run's PROV line */
};

/* A run: what its first frame settled. */
struct fek_tpi_run {
	struct fek_pairpot pp;
	struct fek_tpi_par par;		/* par.pp points at pp */
	const struct fek_md_units *units;
	double temp;			/* in units->temp */
	struct fek_tpi_result res;
	struct fek_tpi_out out;		/* writes to fp */
	struct fek_tpi_engine *eng;
	struct fek_tpi_mol_engine *meng;	/* --top's, in place of eng */
};

/* Settle run from rq and the first frame fr, read from path (named in
 * messages), its sections to go to fp.  -1 with fek_seterr: 65 for the
 * frame's bad keys, 64 for options the frames contradict (--type, --tail,
 * no temperature), 69 or 70 for the GPU.  run is zeroed first; free it
 * with fek_tpi_run_free, also after a failure. */
int	fek_tpi_run_start(struct fek_tpi_run *run,
	    const struct fek_tpi_request *rq, const struct fek_frame *fr,
	    const char *path, FILE *fp);
void	fek_tpi_run_free(struct fek_tpi_run *run);
/* -n's insertions (and -E's energies) against half the machine's memory:
 * -1 with fek_seterr(64) when they would need more. */
int	fek_tpi_fits_memory(const struct fek_tpi_request *rq);

/* tpi-gpu --top (mol_setup.c): a molecular system, its molecule moved
 * and the frame at hand. */
struct fek_tpi_molsys {
	struct fek_mm_top t;
	struct fek_mm_opt o;
	struct fek_tpi_mol m;
	struct fek_tpi_molframe mf;
	const char *top;		/* the topology's path */
};

/* The topology top (with the .mdp file mdp's options, GROMACS's
 * defaults without) and the molecule name (NULL: the last) into ms, its
 * geometry from the .gro file config where that is not NULL (mol.h).
 * -1 with fek_seterr(64, 65 or 66).  Free with fek_tpi_molsys_free. */
int	fek_tpi_molsys_load(struct fek_tpi_molsys *ms, const char *top,
	    const char *mdp, const char *name, const char *config);
void	fek_tpi_molsys_free(struct fek_tpi_molsys *ms);
/* A run of molecule moves settled by its first frame fr (for the
 * temperature, -t or its TEMP key): fek_tpi_run_start's contract, with
 * no pair potential and the molecules' engine (meng) on rq's device;
 * the molecule's screen set from rq (fek_tpi_mol_screen). */
int	fek_tpi_mol_run_start(struct fek_tpi_run *run,
	    struct fek_tpi_molsys *ms, const struct fek_tpi_request *rq,
	    const struct fek_frame *fr, const char *path, FILE *fp);

/* report.c: the frame ids a run has seen (zeroed to start; free v):
 * fek_tpi_ids_add adds id, or returns -1 when it was there already. */
struct fek_tpi_ids {
	long long *v;
	long n, cap;		/* cap: a power of two */
};
int	fek_tpi_ids_add(struct fek_tpi_ids *s, long long id);
/* job.c: a run's frames, one at a time: fr (read by the caller) given
 * its id, moved (the run settled by the first: with ms, rq's molecule
 * moves, else its particles'), its section written to standard output;
 * -1 with fek_seterr (64, 65, 69, 70; 1 for a move beyond the
 * histogram's range) on a bad frame or a failure.  Zeroed to start;
 * fek_tpi_job_free frees it. */
struct fek_tpi_job {
	struct fek_tpi_run run;
	struct fek_tpi_frame tf;	/* particles: the frame made ready */
	struct fek_frame fr;		/* the frame at hand */
	struct fek_tpi_ids ids;		/* the frame ids seen */
	long long nframes, nins, ndel;	/* done so far */
};
int	fek_tpi_job_frame(struct fek_tpi_job *j,
	    const struct fek_tpi_request *rq, struct fek_tpi_molsys *ms,
	    const char *path);
void	fek_tpi_job_free(struct fek_tpi_job *j);

/* -v's lines on standard error for nframes frames, nins insertions and
 * ndel deletions in dt s: particles (tf the last frame) and molecules. */
void	fek_tpi_report(const struct fek_tpi_run *run,
	    const struct fek_tpi_frame *tf, long long nframes, long long nins,
	    long long ndel, double dt);
void	fek_tpi_mol_report(const struct fek_tpi_run *run,
	    const struct fek_tpi_molsys *ms, long long nframes,
	    long long nins, long long ndel, double dt);

#endif
