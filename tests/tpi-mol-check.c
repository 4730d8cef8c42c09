/*
 * tpi-mol-check - the configurations of tpi-gpu --top's moves, for the
 * exactness test (tests/tpi-mol.sh): frame FID (from 0) of FRAMES with
 * insertion K (seed SEED; FID is also the frame's id, as for frames
 * without steps) added, and with the molecule of its kind number D (from
 * 0) taken away, each as a .gro of full precision, so that md-gpu --top
 * --rerun of them (with the topology's molecule count changed by one)
 * gives U(N+1) and U(N-1) of the very configurations the moves' energies
 * u are for (mol.h).  The frame itself is written too.  For FID > 0 each
 * file holds frame 0 first (with the same molecule added or taken away),
 * so that a rerun, like tpi-gpu, keeps frame 0's PME grid; the energies
 * wanted are its last row.  Also prints the inserted molecule's site
 * distances (the settle's, to check the template).  Frames that lack
 * the topology's last molecule (the one inserted, GROMACS's convention)
 * get no DEL.gro; TPI_MOL_CONFIG names tpi-gpu's --config where set.
 *
 *   tpi-mol-check TOP MDP FRAMES SEED FID K D N.gro INS.gro DEL.gro
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "particles/trajin.h"
#include "tpi/setup.h"

/* Atoms [0, nat) of the topology at x, and the ns of the molecule at xm
 * (may be NULL), but those from skip to skip + ns (skip < 0: none). */
static long nat;

static void
gro(const char *path, const char *mode, const struct fek_mm_top *t,
    const struct fek_box *b, const double *x, long skip, int ns,
    const double *xm, long first)
{
	FILE *fp = fopen(path, mode);
	long n = 0;

	if (fp == NULL)
		fek_errx(FEK_EX_IOERR, "%s: cannot create", path);
	fprintf(fp, "tpi-mol-check\n%ld\n", nat + (xm ? ns : 0) -
	    (skip >= 0 ? ns : 0));
	for (long i = 0; i < nat; i++) {
		if (skip >= 0 && i >= skip && i < skip + ns)
			continue;
		fprintf(fp, "%5d%-5.5s%5.5s%5ld%22.15f%22.15f%22.15f\n",
		    (t->mol[i] + 1) % 100000, t->resname[i], t->aname[i],
		    (++n) % 100000, x[3 * i], x[3 * i + 1], x[3 * i + 2]);
	}
	for (int s = 0; xm && s < ns; s++)
		fprintf(fp, "%5ld%-5.5s%5.5s%5ld%22.15f%22.15f%22.15f\n",
		    (t->nmol + 1) % 100000, t->resname[first + s],
		    t->aname[first + s], (++n) % 100000, xm[3 * s],
		    xm[3 * s + 1], xm[3 * s + 2]);
	if (b->xy != 0 || b->xz != 0 || b->yz != 0)
		fprintf(fp, "%.15f %.15f %.15f 0 0 %.15f 0 %.15f %.15f\n",
		    b->lx, b->ly, b->lz, b->xy, b->xz, b->yz);
	else
		fprintf(fp, "%.15f %.15f %.15f\n", b->lx, b->ly, b->lz);
	if (fclose(fp) != 0)
		fek_errx(FEK_EX_IOERR, "%s: write error", path);
}

int
main(int argc, char **argv)
{
	struct fek_tpi_molsys ms;
	struct fek_trajin *tin;
	struct fek_frame fr;
	struct fek_box b0;
	double *xm, *x0;
	long d, fid;
	const char *cfg;

	fek_setprogname(argv[0]);
	if (argc != 11)
		fek_errx(FEK_EX_USAGE, "usage: tpi-mol-check TOP MDP FRAMES "
		    "SEED FID K D N.gro INS.gro DEL.gro");
	cfg = getenv("TPI_MOL_CONFIG");
	if (fek_tpi_molsys_load(&ms, argv[1], argv[2], NULL, cfg && *cfg ?
	    cfg : NULL) < 0)
		fek_die();
	if ((tin = fek_trajin_open(argv[3], NULL, 1)) == NULL)
		fek_die();
	fek_trajin_set_untyped(tin);
	memset(&fr, 0, sizeof fr);
	fid = atol(argv[5]);
	x0 = fek_alloc(3 * (size_t)ms.t.n, sizeof *x0);
	for (long f = 0; f <= fid; f++) {
		if (fek_trajin_next(tin, &fr) != 1)
			fek_errx(FEK_EX_DATA, "%s: no frame %ld", argv[3], f);
		if (fr.n != ms.t.n && fr.n != ms.t.n - ms.m.ns)
			fek_errx(FEK_EX_DATA, "%s: %ld atoms, topology %ld",
			    argv[3], fr.n, ms.t.n);
		nat = fr.n;
		if (f == 0) {
			memcpy(x0, fr.x, 3 * (size_t)fr.n * sizeof *x0);
			b0 = fr.box;
		}
	}
	/* the molecule inserted into frames that lack it: no deletion */
	d = atol(argv[7]);
	if (nat < ms.t.n)
		d = -1;
	else if (d < 0 || d >= ms.m.nkind)
		fek_errx(FEK_EX_USAGE, "D %ld: not below %ld", d, ms.m.nkind);
	xm = fek_alloc(3 * (size_t)ms.m.ns, sizeof *xm);
	fek_tpi_mol_place(&ms.m, &fr.box, fek_tpi_key(strtoull(argv[4],
	    NULL, 10)), strtoull(argv[5], NULL, 10), strtoull(argv[6], NULL,
	    10), xm);
	if (fid > 0) {
		gro(argv[8], "w", &ms.t, &b0, x0, -1, ms.m.ns, NULL, 0);
		gro(argv[9], "w", &ms.t, &b0, x0, -1, ms.m.ns, xm,
		    ms.m.first);
		if (d >= 0)
			gro(argv[10], "w", &ms.t, &b0, x0, ms.m.kind[d],
			    ms.m.ns, NULL, 0);
	}
	gro(argv[8], fid ? "a" : "w", &ms.t, &fr.box, fr.x, -1, ms.m.ns,
	    NULL, 0);
	gro(argv[9], fid ? "a" : "w", &ms.t, &fr.box, fr.x, -1, ms.m.ns, xm,
	    ms.m.first);
	if (d >= 0)
		gro(argv[10], fid ? "a" : "w", &ms.t, &fr.box, fr.x,
		    ms.m.kind[d], ms.m.ns, NULL, 0);
	/* the inserted sites' distances */
	for (int a = 0; a < ms.m.ns; a++)
		for (int b = a + 1; b < ms.m.ns; b++) {
			double r2 = 0;

			for (int c = 0; c < 3; c++)
				r2 += (xm[3 * a + c] - xm[3 * b + c]) *
				    (xm[3 * a + c] - xm[3 * b + c]);
			printf("dist %s %s %.12f\n", ms.t.aname[ms.m.first + a],
			    ms.t.aname[ms.m.first + b], sqrt(r2));
		}
	fek_trajin_close(tin);
	fek_frame_free(&fr);
	free(xm);
	free(x0);
	fek_tpi_molsys_free(&ms);
	return 0;
}
