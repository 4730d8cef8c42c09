/*
 * bd_output.h - bd-step's "bdtraj" stream section (fek(5)): one row per
 * trajectory (id, fate, steps, time in ps, the smallest need-th contact
 * distance and centre distance reached, in A; -1 for a trajectory that
 * found no start) after keys naming the
 * run: TEMP, IONIC, BSURF, QSURF, KDB, KDQ (A^3/ps), RXNDIST, RXNNEED,
 * DTRANS, SEED, PROV.
 */
#ifndef FEK_BD_OUTPUT_H
#define FEK_BD_OUTPUT_H

#include "stream/stream.h"
#include "bd/bd.h"

void	fek_bd_outcome_header(struct fek_header *h,
	    const struct fek_bd_system *x, const struct fek_bd_opts *o,
	    int argc, char **argv);
/* The section: -1 with fek_seterr(74) on a write error. */
int	fek_bd_write_outcomes(struct fek_writer *w, struct fek_header *h,
	    const struct fek_bd_outcome *out, long n);
/* trajlog.c (--log, --dcd): trajectories first .. first + n - 1 into
 * out[n] on the CPU, one by one, their configurations every every steps
 * written as a bdlog section to logpath (NULL: none; text: its text twin;
 * keys: the run's, copied) and as solute B's atoms in A's frame to the DCD
 * file dcdpath (NULL: none).  -1 with fek_seterr: 74 when logpath cannot
 * be written, else the stream's or the DCD writer's error. */
int	fek_bd_run_logged(const struct fek_bd_system *x, int64_t first, long n,
	    struct fek_bd_outcome *out, const char *logpath,
	    const char *dcdpath, long every, int text,
	    const struct fek_header *keys);

#endif
