/*
 * mm-gpu-check.c - md-gpu --top's forces on the GPU (kernels/mm/energy.cu)
 * against the CPU reference (lib/mm/energy.c) on one system:
 *
 *   mm-gpu-check [-M] [-n reps] [-m file.mdp] file.top file.gro
 *
 * places the virtual sites and evaluates every term, the forces and the
 * virial on both devices, and prints "ok NAME" / "FAIL NAME: ..." lines:
 * each term within 1e-9 relative (1e-9 kJ/mol absolute near zero), the
 * largest force difference within 1e-9 of the largest force, the virial
 * within 1e-9 of its largest component, and -n evaluations on the GPU
 * giving the same bits (its fixed-point sums do not depend on thread
 * order).  With -M the GPU's pairs run in mixed precision (md-gpu
 * --precision mixed) and the limits are 1e-5 instead of 1e-9.  Also the
 * positions a little off the virtual sites' places, so
 * that the spread is tested away from exact construction.  Exit 0 if all
 * passed, 1 if any failed, 69 without a GPU, 65/66 on bad input.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fek.h"
#include "mm/mm.h"
#include "mm/mm_output.h"
#include "mm/mm_gpu.h"

#include "check.h"

int
main(int argc, char **argv)
{
	struct fek_mm_top t;
	struct fek_mm_opt o;
	struct fek_mm_conf c;
	struct fek_mm_force *fc;
	struct fek_mm_gpu *g;
	struct fek_mm_energy ec, eg, e2;
	double *xc, *xg, *fcpu, *fgpu, *f2, fmax = 0, dmax = 0, vmax = 0;
	double dv = 0;
	const char *mdp = NULL;
	long reps = 3;
	int ch, mixed = 0;
	double lim = 1e-9;

	fek_setprogname(argv[0]);
	while ((ch = getopt(argc, argv, "Mm:n:")) != -1) {
		switch (ch) {
		case 'M':
			mixed = 1;
			lim = 1e-5;
			break;
		case 'm':
			mdp = optarg;
			break;
		case 'n':
			reps = atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: mm-gpu-check [-M] [-n reps] "
			    "[-m file.mdp] file.top file.gro\n");
			return 64;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: mm-gpu-check [-M] [-n reps] "
		    "[-m file.mdp] file.top file.gro\n");
		return 64;
	}
	fek_mm_opt_default(&o);
	if ((mdp != NULL && fek_mm_opt_read(&o, mdp) < 0) ||
	    fek_mm_top_read(&t, argv[optind], NULL, NULL) < 0 ||
	    fek_mm_gro_read(argv[optind + 1], &c) < 0)
		fek_die();
	fek_mm_top_constrain(&t, o.constraints);
	o.mixed = mixed;
	if (c.n != t.n)
		fek_errx(FEK_EX_DATA, "%s: %ld atoms, the topology %ld",
		    argv[optind + 1], c.n, t.n);
	if ((g = fek_mm_gpu_new(&t, &o, &c.box)) == NULL)
		fek_die();
	if ((fc = fek_mm_force_new(&t, &o, &c.box)) == NULL)
		fek_die();
	xc = fek_alloc(3 * t.n, sizeof *xc);
	xg = fek_alloc(3 * t.n, sizeof *xg);
	fcpu = fek_alloc(3 * t.n, sizeof *fcpu);
	fgpu = fek_alloc(3 * t.n, sizeof *fgpu);
	f2 = fek_alloc(3 * t.n, sizeof *f2);

	for (int pass = 0; pass < 2; pass++) {
		const char *tag = pass == 0 ? "placed" : "off-site";
		int place = pass == 0;
		char name[128];

		memcpy(xc, c.x, 3 * t.n * sizeof *xc);
		if (pass == 1)	/* move every site a little off its place */
			for (long i = 0; i < t.n; i++)
				if (t.ptype[i] == 'V')
					for (int d = 0; d < 3; d++)
						xc[3 * i + d] += 0.003 * (d +
						    1) * (i % 2 ? 1 : -1);
		memcpy(xg, xc, 3 * t.n * sizeof *xg);
		if (fek_mm_force_eval(fc, &c.box, place, xc, fcpu, &ec) < 0 ||
		    fek_mm_gpu_eval(g, &c.box, place, xg, fgpu, &eg) < 0)
			fek_die();
		for (int k = 0; k < FEK_MM_NTERM; k++) {
			double a = fabs(ec.term[k]), d = fabs(ec.term[k] -
			    eg.term[k]) / (a > 1 ? a : 1);

			if (ec.term[k] == 0 && eg.term[k] == 0)
				continue;
			printf("# %s %-15s cpu %.12g gpu %.12g\n", tag,
			    fek_mm_term_name(k), ec.term[k], eg.term[k]);
			snprintf(name, sizeof name, "%s-term-%s", tag,
			    fek_mm_term_name(k));
			for (char *p = name; *p; p++)
				if (*p == ' ')
					*p = '_';
			check_le(name, d, lim);
		}
		fmax = dmax = 0;
		for (long i = 0; i < 3 * t.n; i++) {
			fmax = fmax > fabs(fcpu[i]) ? fmax : fabs(fcpu[i]);
			dmax = dmax > fabs(fcpu[i] - fgpu[i]) ? dmax :
			    fabs(fcpu[i] - fgpu[i]);
		}
		printf("# %s forces: largest %.6g, largest difference %.3g\n",
		    tag, fmax, dmax);
		snprintf(name, sizeof name, "%s-forces", tag);
		check_le(name, dmax / (fmax > 0 ? fmax : 1), lim);
		vmax = dv = 0;
		for (int k = 0; k < 9; k++) {
			vmax = vmax > fabs(ec.vir[k]) ? vmax : fabs(ec.vir[k]);
			dv = dv > fabs(ec.vir[k] - eg.vir[k]) ? dv :
			    fabs(ec.vir[k] - eg.vir[k]);
		}
		printf("# %s virial: largest %.6g, largest difference %.3g\n",
		    tag, vmax, dv);
		snprintf(name, sizeof name, "%s-virial", tag);
		check_le(name, dv / (vmax > 0 ? vmax : 1), lim);
		if (place) {
			double dx = 0;

			for (long i = 0; i < 3 * t.n; i++)
				dx = dx > fabs(xc[i] - xg[i]) ? dx :
				    fabs(xc[i] - xg[i]);
			check_le("placed-sites", dx, 1e-12);
		}
		/* the same bits again */
		for (long r = 0; r < reps; r++) {
			int same;

			memcpy(xg, xc, 3 * t.n * sizeof *xg);
			if (fek_mm_gpu_eval(g, &c.box, place, xg, f2, &e2) < 0)
				fek_die();
			same = memcmp(f2, fgpu, 3 * t.n * sizeof *f2) == 0 &&
			    memcmp(e2.term, eg.term, sizeof e2.term) == 0 &&
			    memcmp(e2.vir, eg.vir, sizeof e2.vir) == 0;
			snprintf(name, sizeof name, "%s-same-bits-%ld", tag,
			    r + 1);
			check_le(name, same ? 0 : 1, 0);
		}
	}
	fek_mm_gpu_free(g);
	fek_mm_force_free(fc);
	fek_mm_conf_free(&c);
	fek_mm_top_free(&t);
	free(xc);
	free(xg);
	free(fcpu);
	free(fgpu);
	free(f2);
	return check_status();
}
