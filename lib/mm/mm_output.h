/*
 * mm_output.h - md-gpu --top's configuration file and the writers of a
 * run (output.c): a .gro read and written, fek frames, a DCD file and the
 * mmenergy log (fek(5)).
 */
#ifndef FEK_MM_OUTPUT_H
#define FEK_MM_OUTPUT_H

#include <stdio.h>

#include "stream/dcd.h"
#include "stream/stream.h"
#include "mm/mm.h"

/* A configuration read from a .gro file. */
struct fek_mm_conf {
	long n;
	double *x, *v;			/* n x 3 (nm, nm/ps); v 0 without */
	int have_v;
	struct fek_box box;		/* with fek_box_set done */
	char title[256];
};

/* Read path's first frame (any atom names).  -1 with fek_seterr(66 or
 * 65, naming file and line). */
int	fek_mm_gro_read(const char *path, struct fek_mm_conf *c);
void	fek_mm_conf_free(struct fek_mm_conf *c);
/* Write one frame of t as a .gro (positions to 3 decimals, velocities
 * to 4 when v is not NULL).  -1 with fek_seterr(74) on a write error. */
int	fek_mm_gro_write(FILE *fp, const struct fek_mm_top *t,
	    const char *title, const struct fek_box *b, const double *x,
	    const double *v);

/* The columns and keys of an mmenergy section: frame, step, with run t,
 * the terms, pot, and with run K, E, T, H and V; UNITS, ATOMS, SYSTEM. */
void	fek_mm_energy_header(struct fek_header *h, const struct fek_mm_top *t,
	    int run);

/* The writers of a run; sink is what fek_mm_run is given. */
struct fek_mm_out {
	const struct fek_mm_top *t;
	FILE *fp;			/* frames (NULL: none) */
	FILE *logfp;			/* the log (NULL: none; text) */
	struct fek_writer wr, lw;
	struct fek_dcd *dcd;		/* set by the caller, or NULL */
	const char *cmd;		/* PROV */
	const char *integ_name;
	double dt, temp;		/* for the log's keys */
	long dof;
	long nlog;
	long long last_step;
	struct fek_mm_sink sink;
};

void	fek_mm_out_init(struct fek_mm_out *o, const struct fek_mm_top *t,
	    FILE *fp, FILE *logfp, int text);
/* End the log's section and close the DCD file.  -1 with fek_seterr. */
int	fek_mm_out_finish(struct fek_mm_out *o);

#endif
