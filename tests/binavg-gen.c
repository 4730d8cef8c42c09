/*
 * binavg-gen - noise-free umbrella histograms of an analytic PMF, for
 * tests/binavg.sh: every window's expected counts n_hb = N P_hb, with
 *   P_hb = int_b exp(-beta (F(x) + V_h(x))) dx / int exp(-beta (F + V_h)),
 * V_h the harmonic bias of Potgieter 2014, Eq. 3.5 (minimum image on a
 * periodic axis), each bin integrated by Gauss-Legendre (GSL's fixed
 * tables, 16 points a side: exact to rounding for these smooth integrands
 * on bins up to 2 sigma of a window wide), and the exact F at the bin
 * centres beside them.  What binning and the bias evaluation alone do to
 * the WHAM PMF is then the whole error.
 *
 *   binavg-gen case nx [ny] ref > histograms
 *
 * Cases (ENERGY kJ/mol, TEMP 300 K, N = 1e5 a window):
 *   quartic  1-D, the peer case of scripts/bench-sampler-drift:
 *            F = 20((x-5)^2/6.25-1)^2 on [0, 10] nm (open), 100 windows
 *            at 0.05, 0.15, ... 9.95, k = 1000 kJ/mol/nm^2 (sigma = 0.05,
 *            windows 2 sigma apart);
 *   sep      2-D, separable: F = 10((x-2)^2-1)^2 + 4 cos y + 2 sin 2y,
 *            x on [0, 4] nm (open), y on [-pi, pi) rad (periodic);
 *            40 x 16 windows at the centres of 40 x 16 cells, k_x = 1000
 *            kJ/mol/nm^2, k_y = 65 kJ/mol/rad^2 (about 2 sigma apart);
 *   nonsep   2-D, sep plus the coupling 3 (x - 2) sin y;
 *   flat     1-D, F = 0 on [0, 10] nm, 101 windows at 0, 0.1, ... 10,
 *            k = 1000: windows cut in half by the ends of the axis;
 *   thesis   1-D, the thesis case (Potgieter 2014, section 5.1; ENERGY
 *            kcal/mol): F = 0.6(1+cos x)+1.4(1+cos 3x) on [-180, 180)
 *            degrees (periodic), 7 windows at -180, -120, ... 180 (the
 *            two ends the same point), k = 0.001 kcal/mol/deg^2, N = 4e5.
 * The histograms go to stdout as fek(5) text (bins within 0.8 nm of a
 * window's centre on x, all bins on y and in the thesis case; counts below
 * 1e-250 left out), the
 * reference "x [y] F" (kJ/mol, zero at its minimum) to the file ref.
 * Exit 64 on bad arguments, 74 when a write fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_integration.h>

#define KB	0.00831446261815324	/* kJ/mol/K */
#define KB_KCAL	0.0019872042586408316	/* kcal/mol/K */
#define TEMP	300.0
#define NSAMP	1e5
#define GL	16

static int ncase2d;	/* 0 quartic, 1 sep, 2 nonsep, 3 flat, 4 thesis */

static double
pmf(double x, double y)
{
	double f;

	if (ncase2d == 0)
		return 20 * pow((x - 5) * (x - 5) / 6.25 - 1, 2);
	if (ncase2d == 3)
		return 0;
	if (ncase2d == 4)
		return 0.6 * (1 + cos(x * M_PI / 180)) + 1.4 * (1 + cos(3 * x *
		    M_PI / 180));
	f = 10 * pow((x - 2) * (x - 2) - 1, 2) + 4 * cos(y) + 2 * sin(2 * y);
	if (ncase2d == 2)
		f += 3 * (x - 2) * sin(y);
	return f;
}

static double
min_image(double d, double period)
{
	return d - period * nearbyint(d / period);
}

static void
usage(void)
{
	fprintf(stderr, "usage: binavg-gen quartic|flat|thesis|sep|nonsep nx "
	    "[ny] ref\n");
	exit(64);
}

int
main(int argc, char **argv)
{
	const gsl_integration_glfixed_table *tab;
	double lo[2], hi[2], k[2], wx, wy, beta = 1 / (KB * TEMP);
	double gx[GL], gwx[GL], gy[GL], gwy[GL], *lw, top, z, fmin;
	double reach = 0.8, nsamp = NSAMP;
	long nw[2], nb[2] = { 1, 1 }, h0, h1, i, j, a, c, rows;
	int D, periodic_y, periodic_x = 0;
	const char *energy = "kJ/mol", *xunit = "nm";
	FILE *ref;

	if (argc < 4)
		usage();
	if (strcmp(argv[1], "quartic") == 0)
		ncase2d = 0;
	else if (strcmp(argv[1], "sep") == 0)
		ncase2d = 1;
	else if (strcmp(argv[1], "nonsep") == 0)
		ncase2d = 2;
	else if (strcmp(argv[1], "flat") == 0)
		ncase2d = 3;
	else if (strcmp(argv[1], "thesis") == 0)
		ncase2d = 4;
	else
		usage();
	D = ncase2d == 1 || ncase2d == 2 ? 2 : 1;
	if (argc != 3 + D)
		usage();
	for (i = 0; i < D; i++)
		if ((nb[i] = atol(argv[2 + i])) < 1 || nb[i] > 100000)
			usage();
	if (D == 1) {
		lo[0] = 0, hi[0] = 10, k[0] = 1000, nw[0] = 100;
		lo[1] = 0, hi[1] = 1, k[1] = 0, nw[1] = 1;
	} else {
		lo[0] = 0, hi[0] = 4, k[0] = 1000, nw[0] = 40;
		lo[1] = -M_PI, hi[1] = M_PI, k[1] = 65, nw[1] = 16;
	}
	periodic_y = D == 2;
	if (ncase2d == 3)	/* windows on the ends of the axis too */
		nw[0] = 101;
	if (ncase2d == 4) {	/* degrees, kcal/mol, every bin */
		lo[0] = -180, hi[0] = 180, k[0] = 0.001, nw[0] = 7;
		periodic_x = 1;
		reach = 360;
		nsamp = 4e5;
		beta = 1 / (KB_KCAL * TEMP);
		energy = "kcal/mol";
		xunit = "deg";
	}
	wx = (hi[0] - lo[0]) / nb[0];
	wy = (hi[1] - lo[1]) / nb[1];
	tab = gsl_integration_glfixed_table_alloc(GL);
	lw = malloc(nb[0] * nb[1] * sizeof *lw);
	if (lw == NULL)
		return 70;
	for (h0 = 0; h0 < nw[0]; h0++)
		for (h1 = 0; h1 < nw[1]; h1++) {
			double cx = ncase2d == 3 ? lo[0] + 0.1 * h0 :
			    ncase2d == 4 ? -180 + 60.0 * h0 : lo[0] + (h0 +
			    0.5) * (hi[0] - lo[0]) / nw[0];
			double cy = lo[1] + (h1 + 0.5) * (hi[1] - lo[1]) / nw[1];
			long i0 = (long)floor((cx - reach - lo[0]) / wx);
			long i1 = (long)floor((cx + reach - lo[0]) / wx);

			if (i0 < 0)
				i0 = 0;
			if (i1 > nb[0] - 1)
				i1 = nb[0] - 1;
			/* ln P of each bin, shifted by the largest integrand
			 * value at the bin centres (the sums stay near 1) */
			top = -HUGE_VAL;
			for (i = i0; i <= i1; i++)
				for (j = 0; j < nb[1]; j++) {
					double x = lo[0] + (i + 0.5) * wx;
					double y = lo[1] + (j + 0.5) * wy;
					double dy = periodic_y ? min_image(y -
					    cy, hi[1] - lo[1]) : 0;
					double dx = periodic_x ? min_image(x -
					    cx, hi[0] - lo[0]) : x - cx;
					double l = -beta * (pmf(x, y) + 0.5 *
					    k[0] * dx * dx + 0.5 * k[1] * dy *
					    dy);

					if (l > top)
						top = l;
				}
			z = 0;
			rows = 0;
			for (i = i0; i <= i1; i++)
				for (j = 0; j < nb[1]; j++) {
					double s = 0;

					for (a = 0; a < GL; a++) {
						gsl_integration_glfixed_point(
						    lo[0] + i * wx, lo[0] +
						    (i + 1) * wx, a, &gx[a],
						    &gwx[a], tab);
						gsl_integration_glfixed_point(
						    lo[1] + j * wy, lo[1] +
						    (j + 1) * wy, a, &gy[a],
						    &gwy[a], tab);
					}
					for (a = 0; a < GL; a++)
						for (c = 0; c < (D == 2 ? GL :
						    1); c++) {
							double x = gx[a];
							double y = D == 2 ?
							    gy[c] : 0;
							double dy = D == 2 ?
							    min_image(y - cy,
							    hi[1] - lo[1]) : 0;
							double dx =
							    periodic_x ?
							    min_image(x - cx,
							    hi[0] - lo[0]) :
							    x - cx;
							double l = -beta *
							    (pmf(x, y) + 0.5 *
							    k[0] * dx * dx +
							    0.5 * k[1] * dy *
							    dy);

							s += gwx[a] * (D == 2 ?
							    gwy[c] : 1) *
							    exp(l - top);
						}
					lw[i * nb[1] + j] = s;
					z += s;
				}
			for (i = i0; i <= i1; i++)
				for (j = 0; j < nb[1]; j++)
					if (nsamp * lw[i * nb[1] + j] / z >
					    1e-250)
						rows++;
			printf("#FEK 1\n#KIND histogram\n#ROWS %ld\n"
			    "#COL bin i32 1\n#COL count f64 1\n", rows);
			if (D == 1)
				printf("#WINDOW %.17g %.17g\n", cx, k[0]);
			else
				printf("#WINDOW %.17g %.17g %.17g %.17g\n", cx,
				    cy, k[0], k[1]);
			printf("#TEMP %g\n#ENERGY %s\n#AXIS x %.17g %.17g "
			    "%s %s\n", TEMP, energy, lo[0], hi[0], periodic_x ?
			    "periodic" : "open", xunit);
			if (D == 2)
				printf("#AXIS y %.17g %.17g periodic rad\n"
				    "#BINS %ld %ld\n", lo[1], hi[1], nb[0],
				    nb[1]);
			else
				printf("#BINS %ld\n", nb[0]);
			printf("#NSAMPLES %.0f\n#END\n", nsamp);
			for (i = i0; i <= i1; i++)
				for (j = 0; j < nb[1]; j++) {
					double v = nsamp * lw[i * nb[1] + j] /
					    z;

					if (v > 1e-250)
						printf("%ld %.17g\n", i * nb[1] +
						    j, v);
				}
		}
	if ((ref = fopen(argv[argc - 1], "w")) == NULL) {
		perror(argv[argc - 1]);
		return 74;
	}
	fmin = HUGE_VAL;
	for (i = 0; i < nb[0]; i++)
		for (j = 0; j < nb[1]; j++) {
			double f = pmf(lo[0] + (i + 0.5) * wx, D == 2 ? lo[1] +
			    (j + 0.5) * wy : 0);

			if (f < fmin)
				fmin = f;
		}
	for (i = 0; i < nb[0]; i++)
		for (j = 0; j < nb[1]; j++) {
			double x = lo[0] + (i + 0.5) * wx;

			if (D == 1)
				fprintf(ref, "%.17g %.17g\n", x, pmf(x, 0) -
				    fmin);
			else {
				double y = lo[1] + (j + 0.5) * wy;

				fprintf(ref, "%.17g %.17g %.17g\n", x, y,
				    pmf(x, y) - fmin);
			}
		}
	free(lw);
	if (fclose(ref) != 0 || fflush(stdout) != 0 || ferror(stdout))
		return 74;
	return 0;
}
