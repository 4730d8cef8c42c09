/*
 * mol.h - test insertions and test deletions of a rigid molecule (tpi-gpu
 * --top, issue 27) in stored frames of a molecular system that a GROMACS
 * topology describes: Daly, Benziger, Debenedetti and Panagiotopoulos,
 * Comput. Phys. Commun. 183, 2054 (2012), Algorithm 1, with the energies
 * of lib/mm (md-gpu --top): Lennard-Jones per type pair within rvdw, the
 * real-space Ewald Coulomb within rcoulomb (or a reaction field), the
 * dispersion correction, and smooth PME (Essmann et al., J. Chem. Phys.
 * 103, 8577 (1995)) for the reciprocal part.
 *
 * The energy of a move is u = U(N+1) - U(N) (insertion) or U(N) - U(N-1)
 * (deletion of molecule k), U the system's energy as md-gpu --top --rerun
 * computes it, less the bonded terms of the molecule (constant for a rigid
 * one).  With PME, writing Q for the charges spread on the grid and
 * theta for the grid kernel (E_rec = 1/2 Q theta Q):
 *
 *   insertion  u_rec = Q_m phi_N + 1/2 Q_m theta Q_m
 *   deletion   u_rec = Q_k phi_N - 1/2 Q_k theta Q_k
 *
 * with phi_N = theta Q_N the frame's reciprocal potential on the grid,
 * computed once a frame (FFTW), and the molecule's own term by the
 * separable sum over pairs of its sites (mol.c), so that u equals the
 * difference of two PME energies on the same grid to rounding; plus the
 * molecule's real-space pairs with the frame, its excluded pairs'
 * corrections and self terms, and the changes of the dispersion
 * correction and of the neutralising background.
 *
 * The molecule inserted is a rigid copy of the topology's last molecule
 * (or the last whose residue is --molecule), built from its settles
 * (O, H, H at dOH, dHH) and virtual sites, with its centre of mass at a
 * uniformly random point of the cell and a uniformly random orientation
 * (Shoemake's quaternion); the deletions are of every molecule of the
 * same kind (the same atoms, types and charges).  Insertion k of frame f
 * depends on the seed, f and k only (Philox, as the particles' moves).
 */
#ifndef FEK_TPI_MOL_H
#define FEK_TPI_MOL_H

#include <stdint.h>

#include "mm/erfc_table.h"
#include "mm/mm.h"
#include "mm/nonbonded_eval.h"
#include "particles/trajin.h"
#include "tpi/mol_eval.h"
#include "tpi/tpi.h"

/* The system and the molecule moved. */
struct fek_tpi_mol {
	const struct fek_mm_top *t;
	const struct fek_mm_opt *o;
	struct fek_mm_nbpar nb;
	double rmax;			/* the longer cut-off, nm */
	int pme;			/* coulombtype PME */
	/* the molecule: ns sites, those of t from first */
	int ns;
	long first;
	double *tmpl;			/* ns x 3, nm, about its centre of
					   mass */
	double *q;			/* ns, e */
	int *type;			/* ns */
	int nxp;			/* its excluded pairs (sites) */
	int *xp;			/* 2 nxp */
	double qm;			/* its net charge */
	char name[8];			/* its first atom's residue */
	/* the molecules of its kind in the frames (deletions) */
	long nkind;
	long *kind;			/* their first atoms */
	/* the dispersion correction's counts: atoms of each type in the
	 * frame's system and in the molecule; excluded pairs and the sum
	 * of their C6, in the system and in the molecule */
	long *cnt, *mcnt;
	double nexcl, c6excl, mnexcl, mc6excl;
	double qsum;			/* the frames' net charge */
	int absent;			/* the molecule, the topology's last,
					   is not in the frames */
	int framed;			/* a frame has been made ready */
	/* the pair lists' classes: sites with LJ terms, and the types that
	 * have one with a site */
	char *ljsite, *ljpart;
	struct fek_erfc_table erfc;	/* erfc(beta r), r < rcoulomb */
	/* the screen (fek_tpi_mol_screen): the squared overlap distances
	 * per type pair (ntype x ntype); NULL: none */
	double *ov2;
	/* PME: made on the first frame, its grid kept (as a rerun) */
	struct fek_mm_pme *p;
	int n[3], order;
};

/* The frame's atoms that one class of the molecule's sites meets, sorted
 * by cell, coordinates apart (a loop over them reads three arrays): the
 * Lennard-Jones partners (atoms of a type with a C6 or C12 for one of the
 * molecule's types) or the charged atoms. */
struct fek_tpi_plist {
	long n, cap, capcell;
	long *cstart;			/* nc0 nc1 nc2 + 1 */
	double *x, *y, *z;		/* nm */
	double *q;			/* charges, e (charged atoms) */
	int *type;			/* LJ types (LJ partners) */
	int *atom;			/* indices in the frame */
};

/* One frame made ready: its atoms sorted by cell into the two lists, the
 * reciprocal potential and kernel of its cell, the constant parts of the
 * moves. */
struct fek_tpi_molframe {
	struct fek_box box;
	double V;
	long n;
	int nc[3];			/* cells along a, b, c */
	struct fek_tpi_plist lj, ch;
	double *xf;			/* n x 3, the frame's order */
	double *phi, *theta;		/* PME grids (n0 n1 n2 each) */
	double du_ins, du_del;		/* dispersion correction and
					   background changes, kJ/mol */
	long cap, capgrid;
	struct fek_tpi_molview v;	/* the molecule and this frame, as
					   one move reads them (mol_eval.h) */
};

/* The molecule of t to move (name: a residue name, or NULL for the last
 * molecule) under options o, its rigid geometry from the configuration
 * cfg (its last atoms, as many as the molecule has) where that is not
 * NULL, else from its settle and virtual sites (or a single atom).  -1
 * with fek_seterr(65) when it has atoms that neither cfg, a settle nor a
 * virtual site places, when it is missing, or when o's electrostatics
 * are not PME, reaction field or cut-off.  When the first frame has the
 * topology's atoms less those of its last molecule, and that is the
 * molecule, it is inserted into frames that lack it (GROMACS's tpi
 * convention): no deletions then (m->absent). */
int	fek_tpi_mol_new(struct fek_tpi_mol *m, const struct fek_mm_top *t,
	    const struct fek_mm_opt *o, const char *name,
	    const struct fek_frame *cfg);
void	fek_tpi_mol_free(struct fek_tpi_mol *m);

/* The overlap screen of the insertions (tpi-gpu --screen): an insertion
 * that brings one of the molecule's LJ sites closer to a frame atom than
 * the distance r_ov at which their pair's C12/r^12 - C6/r^6 reaches
 * w / beta counts as u = +inf, its other terms not computed (its
 * Boltzmann factor is below e^-w but for what the rest of its pairs give
 * back); w 0: no screen.  -1 with fek_seterr(64) when an r_ov is wider
 * than the narrowest cell a frame may have (rmax / FEK_TPI_MOL_SUB: w
 * too small for the potential). */
int	fek_tpi_mol_screen(struct fek_tpi_mol *m, double w, double beta);
/* tpi-gpu's w, kT */
#define FEK_TPI_SCREEN_DEFAULT 300

/* Frame fr made ready (what names it in messages): -1 with
 * fek_seterr(65) for a wrong atom count or a box the cut-offs do not
 * fit (fek_mm_box_check). */
int	fek_tpi_mol_frame(struct fek_tpi_mol *m, struct fek_tpi_molframe *mf,
	    const struct fek_frame *fr, const char *what);
void	fek_tpi_mol_frame_free(struct fek_tpi_molframe *mf);

/* Insertion k of frame fid: the molecule's sites into x (ns x 3, nm). */
void	fek_tpi_mol_place(const struct fek_tpi_mol *m, const struct fek_box *b,
	    uint64_t key, uint64_t fid, uint64_t k, double *x);
/* u (kJ/mol) of the molecule at x (ns x 3): inserted (del < 0), or the
 * frame's molecule whose first atom is del, deleted. */
double	fek_tpi_mol_energy(const struct fek_tpi_mol *m,
	    const struct fek_tpi_molframe *mf, const double *x, long del);

/* Within mol.c and mol_pairs.c: cells at least rmax / FEK_TPI_MOL_SUB
 * wide (mol_eval.h); list L filled with the n atoms i of the frame at x that have
 * want[i], sorted by cell[i] (of ncell); the molecule's real-space pairs
 * at x with the frame (those of the molecule from atom del left out), LJ
 * added to *elj, Coulomb to *ec. */
void	fek_tpi_plist_fill(struct fek_tpi_plist *L, const struct fek_mm_top *t,
	    const double *x, const long *cell, long ncell, const char *want,
	    long n);
void	fek_tpi_plist_free(struct fek_tpi_plist *L);
void	fek_tpi_mol_pairs(const struct fek_tpi_mol *m,
	    const struct fek_tpi_molframe *mf, const double *x, long del,
	    double *elj, double *ec);

/* One frame's moves on the CPU (OpenMP): fek_tpi_cpu's contract. */
int	fek_tpi_mol_cpu(const struct fek_tpi_mol *m,
	    const struct fek_tpi_molframe *mf, const struct fek_tpi_par *par,
	    uint64_t fid, struct fek_tpi_result *res);

/* The moves on the device the run chose (mol_engine.c): dev FEK_DEV_CPU
 * or FEK_DEV_GPU, as fek_device_resolve settled it; NULL with
 * fek_seterr(69 or 70) when the GPU's context cannot be made.  A frame:
 * fek_tpi_mol_cpu's contract on either; -1 with fek_seterr(70) on a CUDA
 * failure. */
struct fek_tpi_mol_engine;
struct fek_tpi_mol_engine *fek_tpi_mol_engine_new(const struct fek_tpi_mol *m,
	    const struct fek_tpi_par *par, enum fek_device dev);
int	fek_tpi_mol_engine_frame(struct fek_tpi_mol_engine *e,
	    const struct fek_tpi_mol *m, const struct fek_tpi_molframe *mf,
	    const struct fek_tpi_par *par, uint64_t fid,
	    struct fek_tpi_result *res);
enum fek_device fek_tpi_mol_engine_device(const struct fek_tpi_mol_engine *e);
/* The GPU's timings into st: 1, or 0 on the CPU. */
int	fek_tpi_mol_engine_stats(const struct fek_tpi_mol_engine *e,
	    struct fek_tpi_gpu_stats *st);
void	fek_tpi_mol_engine_free(struct fek_tpi_mol_engine *e);

#endif
