/*
 * rmsd - how far a PMF is from an analytic formula or from another PMF
 * (Potgieter 2014, section 5.1.2, Table 6.1): RMSD after the optimal
 * constant shift and the largest deviation, over bins with data, optionally
 * only where the reference is within a cutoff of its minimum (lib/wham/rmsd.c).
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "wham/pmf.h"
#include "stream/stream.h"

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: rmsd [-q] [-c cutoff[kT]] [-E kcal|kJ] "
	    "[--fail-above value] [-u kcal|kJ|kT]\n"
	    "            -p formula | -f reference [file]\n");
	exit(code);
}

struct table {
	long n;
	int ndim;		/* coordinate columns before F */
	double *coord;		/* n x ndim */
	double *F;		/* in the output unit */
	double temp;		/* 0 when the file does not say */
};

/* Read a PMF: a fek pmf section (binary or text), or plain whitespace
 * columns x1..xD F (D = columns - 1; '#' lines skipped). */
static void
read_table(const char *path, enum fek_unit unit, double temp_default,
    struct table *t)
{
	struct fek_reader r;
	struct fek_header h;
	enum fek_unit fu = unit;
	double *rows, scale = 1;
	long long n, i;
	int fcol, d, plain;

	if (fek_reader_open(&r, path) < 0)
		fek_die();
	r.allow_plain = 1;
	if (fek_next_section(&r, &h) <= 0)
		fek_die();
	plain = strcmp(h.kind, "plain") == 0;
	if (!plain && strcmp(h.kind, "pmf") != 0)
		fek_errx(FEK_EX_DATA, "%s: section 1: KIND %s, expected pmf",
		    r.name, h.kind);
	fcol = plain ? h.ncols - 1 : fek_hdr_col(&h, "F");
	if (fcol < 1)
		fek_errx(FEK_EX_DATA, "%s: expected coordinate columns then F",
		    r.name);
	t->temp = 0;
	if (!plain) {
		if (fek_hdr_get(&h, "TEMP", 0) &&
		    fek_temp_read(&r, &h, &t->temp) < 0)
			fek_die();
		if (fek_unit_parse(h.cols[fcol].unit, &fu) < 0)
			fek_errx(FEK_EX_DATA, "%s: column F: unit '%s' is not "
			    "kcal/mol, kJ/mol or kT", r.name,
			    h.cols[fcol].unit);
	}
	if (fu != unit) {
		double T = t->temp > 0 ? t->temp : temp_default;

		if ((fu == FEK_KT || unit == FEK_KT) && !(T > 0))
			fek_errx(FEK_EX_USAGE, "%s: converting to or from kT "
			    "needs TEMP in the file", r.name);
		scale = fek_unit_in_kcal(fu, T) / fek_unit_in_kcal(unit, T);
	}
	if ((n = fek_read_all(&r, &h, &rows)) < 0)
		fek_die();
	if (n == 0)
		fek_errx(FEK_EX_DATA, "%s: no rows", r.name);
	t->n = (long)n;
	t->ndim = fcol;
	t->coord = fek_alloc((size_t)n * fcol, sizeof(double));
	t->F = fek_alloc((size_t)n, sizeof(double));
	for (i = 0; i < n; i++) {
		for (d = 0; d < fcol; d++)
			t->coord[i * fcol + d] = rows[i * h.ncols + d];
		t->F[i] = rows[i * h.ncols + fcol] * scale;
	}
	free(rows);
	fek_hdr_free(&h);
	fek_reader_close(&r);
}

int
main(int argc, char **argv)
{
	enum { OPT_FAIL = 256 };
	static const struct option longopts[] = {
		{ "fail-above", required_argument, NULL, OPT_FAIL },
		{ "units", required_argument, NULL, 'u' },
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	const char *formula = NULL, *reffile = NULL, *cutarg = NULL;
	struct table t, rt;
	struct fek_rmsd res;
	struct fek_common com = { 0 };
	enum fek_unit unit = FEK_KCAL, eunit = FEK_KCAL;
	fek_expr *e = NULL;
	double cutoff = HUGE_VAL, fail = HUGE_VAL, *ref, scale;
	long i;
	int c, nerr = 0, d, cut_kT = 0;

	fek_setprogname(argv[0]);
	while ((c = getopt_long(argc, argv, "c:E:f:hp:qu:", longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'c': {
			size_t len = strlen(optarg);
			char buf[64];

			cutarg = optarg;
			if (len > 2 && strcmp(optarg + len - 2, "kT") == 0 &&
			    len < sizeof buf) {
				memcpy(buf, optarg, len - 2);
				buf[len - 2] = '\0';
				cut_kT = 1;
				nerr += fek_opt_double(buf, 0, HUGE_VAL, "-c",
				    &cutoff);
			} else
				nerr += fek_opt_double(optarg, 0, HUGE_VAL,
				    "-c", &cutoff);
			break;
		}
		case 'E':
			nerr += fek_opt_unit(optarg, 0, "-E", &eunit);
			break;
		case 'f':
			reffile = optarg;
			break;
		case 'p':
			formula = optarg;
			break;
		case 'u':
			nerr += fek_opt_unit(optarg, 1, "-u", &unit);
			break;
		case OPT_FAIL:
			nerr += fek_opt_double(optarg, 0, HUGE_VAL,
			    "--fail-above", &fail);
			break;
		default:	/* -q -h --version */
			nerr += fek_opt_common(c, optarg, &com, usage);
			break;
		}
	}
	if ((formula != NULL) == (reffile != NULL)) {
		fek_warnx("give one reference: -p formula or -f file");
		nerr++;
	}
	if (argc - optind > 1) {
		fek_warnx("one input file at most");
		nerr++;
	}
	if (nerr)
		usage(FEK_EX_USAGE);
	read_table(optind < argc ? argv[optind] : "-", unit, 0, &t);
	if (cut_kT) {
		if (!(t.temp > 0))
			fek_errx(FEK_EX_USAGE, "-c %s: the PMF file gives no "
			    "TEMP", cutarg);
		cutoff *= FEK_KB_KCAL * t.temp / fek_unit_in_kcal(unit, t.temp);
	}
	ref = fek_alloc(t.n, sizeof(double));
	if (formula) {
		if ((e = fek_expr_parse(formula, t.ndim)) == NULL)
			fek_errx(FEK_EX_USAGE, "-p: %s", fek_errmsg());
		if (unit == FEK_KT && !(t.temp > 0))
			fek_errx(FEK_EX_USAGE, "-u kT: the PMF file gives no "
			    "TEMP");
		scale = fek_unit_in_kcal(eunit, t.temp) /
		    fek_unit_in_kcal(unit, t.temp);
		for (i = 0; i < t.n; i++) {
			ref[i] = scale * fek_expr_eval(e, t.coord + i * t.ndim);
			if (!isfinite(ref[i]))
				fek_errx(FEK_EX_USAGE, "-p: the formula is not "
				    "finite at row %ld", i + 1);
		}
		fek_expr_free(e);
	} else {
		read_table(reffile, unit, t.temp, &rt);
		if (rt.n != t.n || rt.ndim != t.ndim)
			fek_errx(FEK_EX_DATA, "%s: %ld rows of %d coordinates, "
			    "the PMF has %ld of %d", reffile, rt.n, rt.ndim,
			    t.n, t.ndim);
		for (i = 0; i < t.n; i++) {
			for (d = 0; d < t.ndim; d++)
				if (fabs(rt.coord[i * t.ndim + d] -
				    t.coord[i * t.ndim + d]) > 1e-9 *
				    (1 + fabs(t.coord[i * t.ndim + d])))
					fek_errx(FEK_EX_DATA, "%s: row %ld: "
					    "coordinates differ from the "
					    "PMF's", reffile, i + 1);
			/* bins empty in the reference are left out */
			ref[i] = rt.F[i];
			if (!isfinite(ref[i]))
				t.F[i] = HUGE_VAL;
		}
	}
	if (fek_rmsd(t.n, t.F, ref, cutoff, &res) < 0)
		fek_die();
	printf("units %s\n", fek_unit_name(unit));
	printf("bins %ld of %ld\n", res.n, t.n);
	printf("shift %.6g\n", res.shift);
	printf("max %.6g at", res.maxdev);
	for (d = 0; d < t.ndim; d++)
		printf(" %.6g", t.coord[res.at * t.ndim + d]);
	printf("\nRMSD %.6g\n", res.rmsd);
	fek_fshut(stdout, "stdout");
	free(t.coord);
	free(t.F);
	free(ref);
	if (reffile) {
		free(rt.coord);
		free(rt.F);
	}
	if (res.rmsd > fail) {
		fek_warnx("RMSD %.6g is above --fail-above %g", res.rmsd, fail);
		return FEK_EX_NUMERIC;
	}
	return 0;
}
