/*
 * tpi_output.h - tpi-gpu's per-frame results as fek(5) sections
 * (lib/tpi/output.c): tpisums and tpihist, or insertions and deletions.
 */
#ifndef FEK_TPI_OUTPUT_H
#define FEK_TPI_OUTPUT_H

#include <stdio.h>

#include "stream/stream.h"
#include "tpi/tpi.h"

struct fek_tpi_out {
	struct fek_writer w;
	const struct fek_tpi_par *par;
	struct fek_header keys;		/* keys every section carries (the
					   caller adds them: TEMP, INSERT,
					   PAIR, TAIL ...) */
	const char *prov;		/* this run's PROV line, or NULL */
	char vunit[32];			/* the V column's unit */
	int raw;			/* a row a move */
};

void	fek_tpi_out_init(struct fek_tpi_out *o, FILE *fp, int text,
	    const struct fek_tpi_par *par, const char *vunit, int raw);
void	fek_tpi_out_free(struct fek_tpi_out *o);
/* Frame id's sections; fkeys: the frame's header (its PROV lines are
 * carried on), or NULL.  -1 with fek_seterr(74) on a write error. */
int	fek_tpi_out_frame(struct fek_tpi_out *o, long long id, double V,
	    const struct fek_tpi_result *r, const struct fek_header *fkeys);

#endif
