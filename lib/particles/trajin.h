/*
 * trajin.h - trajectories read one frame at a time (lib/particles/trajin.c),
 * for the analysis stages that post-process stored configurations (tpi-gpu's
 * Widom insertion and test deletion, Daly et al. 2012).
 *
 * Formats:
 *   fek    fek(5) frames sections (md-gpu's output; one section a frame;
 *          BOX required; columns x y z, optional type and id; keys STEP,
 *          REPLICA, UNITS, TEMP, NTYPES, TYPE, PAIR, TAIL kept in the
 *          frame's header for the caller)
 *   dcd    CHARMM/NAMD DCD with the unit cell record (little- or
 *          big-endian, 32- or 64-bit record markers; a file without cells
 *          is an error: the box is needed)
 *   gro    GROMACS .gro trajectories (frames one after another, each a
 *          title line, a count, atom lines and a box line; the precision
 *          of each frame found as config.c does)
 *   lammpsdump  LAMMPS text dump files ("dump atom" or "dump custom" with
 *          the columns id type and x y z, or xs ys zs, or xu yu zu, or
 *          xsu ysu zsu; orthogonal or triclinic boxes)
 *
 * Every frame's positions, cell and origin are in the file's length unit
 * times lscale (the caller's choice: .gro is nm, DCD and LAMMPS real units
 * A), the positions wrapped into the cell (fek_box_wrap).  Particles keep
 * the file's order (the fek id column, where there is one, is not used to
 * reorder), except in a LAMMPS dump with an id column, whose atoms are
 * sorted by id (dumps of several MPI ranks are in no order).  Frame sizes
 * may differ from frame to frame: the caller decides whether they may.
 * Messages count frames from 1.
 */
#ifndef FEK_TRAJIN_H
#define FEK_TRAJIN_H

#include "stream/stream.h"
#include "particles/particles.h"

struct fek_frame {
	long n;				/* particles */
	double *x;			/* n x 3, wrapped into the cell */
	int *type;			/* n, from 0; all 0 where the format
					   has no types (DCD) */
	int ntypes;			/* 1 + the largest type, at least 1;
					   fek: at least NTYPES; .gro: the
					   names met so far in the file */
	char tname[FEK_PMD_MAXTYPES][16]; /* type names as read, or "" */
	struct fek_box box;		/* with fek_box_set done */
	long long step;			/* fek STEP, LAMMPS TIMESTEP, DCD
					   istart + k nsavc, .gro "step=" in
					   the title; -1 when the frame has
					   none */
	int replica, nreplica;		/* fek REPLICA b n (from 1); 1 1 */
	long ordinal;			/* frames read before this one in
					   this file, from 0 */
	struct fek_header hdr;		/* fek: the section's header (keys
					   only matter); other formats: an
					   empty header of kind "frames" */
	long cap;			/* room in x and type */
};

struct fek_trajin;

/* Open path ("-": stdin; not for DCD, which is read with seeks) in
 * format ("fek", "dcd", "gro", "lammpsdump"; NULL: by the file name's
 * suffix .fek .dcd .gro .lammpstrj .dump, else by the first bytes; stdin
 * is fek), positions and cells to be multiplied by lscale (> 0).  NULL
 * with fek_seterr: 66 cannot open, 65 unknown format or a malformed DCD
 * header (a DCD's size is checked here too), 64 an unknown format name,
 * a bad lscale or DCD on stdin. */
struct fek_trajin *fek_trajin_open(const char *path, const char *format,
	    double lscale);
/* Change the length scale before the first frame is read. */
void	fek_trajin_set_lscale(struct fek_trajin *t, double lscale);
/* Before the first frame: a .gro file's atom names are not types (every
 * particle type 0, any number of names), for molecules, whose types come
 * from a topology. */
void	fek_trajin_set_untyped(struct fek_trajin *t);
/* The format being read ("fek", ...). */
const char *fek_trajin_format(const struct fek_trajin *t);
/* The next frame into f (f zeroed before the first call; its arrays are
 * reused and grown).  1: a frame; 0: the end; -1 with fek_seterr(65,
 * naming the file and the frame, section or line) on malformed input
 * (a type not below FEK_PMD_MAXTYPES, a position not finite, a section
 * of another KIND, ...); once it has returned 0 or -1 it returns the
 * same again. */
int	fek_trajin_next(struct fek_trajin *t, struct fek_frame *f);
void	fek_trajin_close(struct fek_trajin *t);
void	fek_frame_free(struct fek_frame *f);

#endif
