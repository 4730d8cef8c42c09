/*
 * output.h - where md-gpu's particle runs write (lib/pmd/output.c): frames
 * sections (fek(5), with the cell), the thermodynamic log, a DCD file with
 * its unit cell, and checkpoints; and the checkpoint reader.
 */
#ifndef FEK_PMD_OUTPUT_H
#define FEK_PMD_OUTPUT_H

#include <stdio.h>

#include "core/progress.h"
#include "stream/dcd.h"
#include "stream/stream.h"
#include "pmd/pmd.h"
#include "particles/units.h"

struct fek_pmd_output {
	/* set by the caller */
	const struct fek_md_units *units;
	const struct fek_pairpot *pp;
	const struct fek_pmd_par *par;
	const char *cmd;		/* the command line (PROV) */
	const char *integ_name;		/* verlet, baoab, nh */
	int text;			/* the text twin on stdout */
	int want_v;			/* frames carry velocities */
	int verbose;
	struct fek_progress *progress;	/* the run's steps on stderr (its
					   total is equil + nsteps), or
					   NULL */
	/* opened by fek_pmd_output_open */
	struct fek_writer wr;
	struct fek_dcd *dcd;
	FILE *logfp;
	struct fek_writer lw;
	const char *logpath, *ckpt_path;
	double *buf;
	long long bufcap;
	double *dcdbuf;			/* one DCD frame: every box */
	long nparticles;		/* per box */
	int nbox;
	long long nframes;
};

/* Open the DCD (dcdpath, else none: frames of n atoms of every box, the
 * first at step istart, nsavc apart) and the log (logpath, else none),
 * and check the checkpoint's path (ckpt_path, else none:
 * fek_pmd_checkpoint_check); frames go to stdout.  -1 with
 * fek_seterr(74). */
int	fek_pmd_output_open(struct fek_pmd_output *o, const struct fek_psys *s,
	    const char *dcdpath, long long istart, long long nsavc,
	    const char *logpath, const char *ckpt_path);
/* The sink that writes to o. */
void	fek_pmd_output_sink(struct fek_pmd_output *o, struct fek_pmd_sink *k);
/* Close everything (stdout flushed by the caller).  -1 with fek_seterr. */
int	fek_pmd_output_close(struct fek_pmd_output *o);

/* Write the batch s as a checkpoint to path (path.tmp, then renamed:
 * an interrupted write leaves the last one), each of them absent or a
 * regular file (fek_pmd_checkpoint_check).  -1 with fek_seterr(74). */
/* Whether path may take checkpoints: path and path.tmp each absent or a
 * regular file, since the rename replaces whatever path is (a device
 * node, a FIFO, a symbolic link).  0, or -1 with fek_seterr(74). */
int	fek_pmd_checkpoint_check(const char *path);
int	fek_pmd_checkpoint_write(const struct fek_psys *s, uint64_t seed,
	    const char *units, const char *path);
/* Read a checkpoint into a fresh s (s->seed, step, the integrators' and
 * lists' state).  -1 with fek_seterr(66 or 65). */
int	fek_pmd_checkpoint_read(struct fek_psys *s, const char *path,
	    char *units, size_t ulen);

/* The keys BOX and ORIGIN of a frames section (fek(5)) for cell bx. */
void	fek_box_keys(struct fek_header *h, const struct fek_box *bx);

#endif
