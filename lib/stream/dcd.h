/*
 * dcd.h - a writer of CHARMM/NAMD DCD trajectories (the binary layout
 * that VMD's dcdplugin, mdtraj and MDAnalysis read; seed 003 section
 * 5.1.4 wrote its samples as MOIL dcd files): little-endian, Fortran
 * records, the CHARMM flavour (version 24), each frame the X, Y and Z
 * float32 arrays of all atoms, after the unit cell record when the file
 * has one (fek_dcd_open_cell).
 */
#ifndef FEK_DCD_H
#define FEK_DCD_H

#include <stdio.h>

struct fek_dcd {
	FILE *fp;
	char *path;
	long natom;
	long istart, nsavc;
	long nframes;
	int cell;			/* frames carry the unit cell */
	float *buf;
};

/* Create path for natom atoms; the first frame is step istart and frames
 * are nsavc steps apart, delta the time step (stored as given; CHARMM
 * would use AKMA units).  NULL with fek_seterr (74: cannot write, or not
 * a file that can be rewritten, since the frame count in the header is
 * updated after each frame). */
struct fek_dcd *fek_dcd_open(const char *path, long natom, long istart,
	    long nsavc, double delta, const char *title);
/* As fek_dcd_open, for frames with the unit cell (fek_dcd_frame_cell). */
struct fek_dcd *fek_dcd_open_cell(const char *path, long natom, long istart,
	    long nsavc, double delta, const char *title);
/* Append a frame: x holds natom rows of D coordinates; the first three
 * are X, Y, Z (0 for missing ones).  -1 with fek_seterr(74). */
int	fek_dcd_frame(struct fek_dcd *f, const double *x, int D);
/* Append a frame with its unit cell: cell = a, gamma, b, beta, alpha, c
 * (lengths, angles in degrees: the order CHARMM writes and VMD's
 * dcdplugin, mdtraj and MDAnalysis read). */
int	fek_dcd_frame_cell(struct fek_dcd *f, const double *x, int D,
	    const double *cell);
/* Close; -1 with fek_seterr(74) if a write failed.  Frees f. */
int	fek_dcd_close(struct fek_dcd *f);

#endif
