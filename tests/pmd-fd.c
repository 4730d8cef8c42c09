/*
 * pmd-fd.c - tests/pmd.sh's check of md-gpu's pair forces against the
 * energies they come from: for a configuration read by fek_config_read
 * and a pair potential given as md-gpu's options would give it, the force
 * on a particle against the central difference of the total pair energy,
 *   F_i,d ~ -(U(x + h e_i,d) - U(x - h e_i,d)) / 2h,
 * for every coordinate of the first 40 particles; and the virial sum
 * r_ij . f_ij against -3 V dU/dV by scaling the configuration.
 *
 *   pmd-fd config potential rc h
 * potential: lj, shift, fshift, wca, mix (types 0, 1: --lj 0:0:1:1
 * --lj 1:1:0.5:0.88 mixed by Lorentz-Berthelot) or table:FILE.
 * Prints "force RELERR virial RELERR": the largest |F - F_FD| over the
 * RMS force, and |W - W_FD| / |W|.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "pmd/pmd.h"

static struct fek_nlist nl;
static struct fek_force_scratch fsc;

/* The pair energy of box 0 at s->x, with a fresh list. */
static double
energy(const struct fek_pairpot *pp, struct fek_psys *s, double *f,
    double *e, double *w, double *virial)
{
	memcpy(s->xref, s->x, 3 * s->n * sizeof *s->x);
	s->boxref[0] = s->box[0];
	if (fek_nlist_build(&nl, s, 0) < 0 || fek_pmd_forces(pp, &nl, s, 0,
	    &fsc, f, e, w) < 0)
		fek_die();
	if (virial)
		*virial = fek_pmd_sum(w, s->n);
	return fek_pmd_sum(e, s->n);
}

int
main(int argc, char **argv)
{
	struct fek_pairpot pp;
	struct fek_psys s;
	double rc, h, *f, *f2, *e, *w, W, err = 0, ss = 0, U1, U2;
	long nchk;

	fek_setprogname(argv[0]);
	if (argc != 5)
		fek_errx(64, "usage: pmd-fd config potential rc h");
	rc = atof(argv[3]);
	h = atof(argv[4]);
	if (fek_config_read(&s, argv[1], NULL, 1, 1, 1) < 0)
		fek_die();
	memset(&pp, 0, sizeof pp);
	pp.style = FEK_PAIR_LJ;
	if (strcmp(argv[2], "mix") == 0) {
		if (fek_pair_parse_lj(&pp, "0:0:1:1") < 0 ||
		    fek_pair_parse_lj(&pp, "1:1:0.5:0.88") < 0)
			fek_die();
		pp.shift = 1;
	} else if (strncmp(argv[2], "table:", 6) == 0) {
		pp.style = FEK_PAIR_TABLE;
		for (int i = 0; i < s.ntypes; i++)
			for (int j = i; j < s.ntypes; j++)
				if (fek_pair_read_table(&pp, i, j, argv[2] + 6, rc,
				    2000) < 0)
					fek_die();
	} else {
		fek_pair_parse_lj(&pp, "1:1");
		pp.shift = strcmp(argv[2], "shift") == 0;
		pp.fshift = strcmp(argv[2], "fshift") == 0;
		pp.wca = strcmp(argv[2], "wca") == 0;
	}
	if (fek_pair_finish(&pp, s.ntypes, rc, 0) < 0)
		fek_die();
	fek_nlist_init(&nl, &s, pp.rcmax, 0.5);
	fek_force_scratch_init(&fsc, s.n);
	f = fek_alloc(3 * s.n, sizeof *f);
	f2 = fek_alloc(3 * s.n, sizeof *f2);
	e = fek_alloc(s.n, sizeof *e);
	w = fek_alloc(s.n, sizeof *w);
	energy(&pp, &s, f, e, w, &W);
	nchk = s.n < 40 ? s.n : 40;
	for (long i = 0; i < s.n; i++)
		for (int d = 0; d < 3; d++)
			ss += f[3 * i + d] * f[3 * i + d];
	for (long i = 0; i < nchk; i++)
		for (int d = 0; d < 3; d++) {
			double x0 = s.x[3 * i + d], fd;

			s.x[3 * i + d] = x0 + h;
			U1 = energy(&pp, &s, f2, e, w, NULL);
			s.x[3 * i + d] = x0 - h;
			U2 = energy(&pp, &s, f2, e, w, NULL);
			s.x[3 * i + d] = x0;
			fd = -(U1 - U2) / (2 * h);
			if (fabs(fd - f[3 * i + d]) > err)
				err = fabs(fd - f[3 * i + d]);
		}
	/* W = -3 V dU/dV: positions and the cell scaled by (1 +- h)^(1/3) */
	{
		struct fek_box b0 = s.box[0];
		double *x0 = fek_alloc(3 * s.n, sizeof *x0), V0 = fek_box_volume(
		    &b0), Up[2];

		memcpy(x0, s.x, 3 * s.n * sizeof *x0);
		for (int k = 0; k < 2; k++) {
			double sc = cbrt(1 + (k ? -h : h));
			struct fek_box *b = &s.box[0];

			for (long i = 0; i < 3 * s.n; i++)
				s.x[i] = b0.lo[i % 3] + (x0[i] - b0.lo[i % 3]) *
				    sc;
			*b = b0;
			fek_box_scale(b, sc);
			Up[k] = energy(&pp, &s, f2, e, w, NULL);
		}
		printf("force %.3g virial %.3g\n", err / sqrt(ss / (3 * s.n)),
		    fabs(W + 3 * V0 * (Up[0] - Up[1]) / (2 * h * V0)) / fabs(W));
		free(x0);
	}
	return 0;
}
