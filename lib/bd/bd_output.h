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

#endif
