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

/* The command line. */
struct args {
	struct fek_common com;		/* -q */
	const char *formula;		/* -p */
	const char *reffile;		/* -f */
	const char *cutarg;		/* -c, as given */
	double cutoff;			/* -c's value, HUGE_VAL: none */
	int cut_kT;			/* -c ...kT */
	double fail;			/* --fail-above, HUGE_VAL: none */
	enum fek_unit unit;		/* -u */
	enum fek_unit eunit;		/* -E */
	const char *path;		/* the operand, or "-" */
};

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

/* The options and the operand into a; usage(64) after reporting every
 * bad one. */
static void
parse_args(int argc, char **argv, struct args *a)
{
	enum { OPT_FAIL = 256 };
	static const struct option longopts[] = {
		{ "fail-above", required_argument, NULL, OPT_FAIL },
		{ "units", required_argument, NULL, 'u' },
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	int c, nerr = 0;

	memset(a, 0, sizeof *a);
	a->cutoff = HUGE_VAL;
	a->fail = HUGE_VAL;
	a->unit = FEK_KCAL;
	a->eunit = FEK_KCAL;
	while ((c = getopt_long(argc, argv, "c:E:f:hp:qu:", longopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'c': {
			size_t len = strlen(optarg);
			char buf[64];

			a->cutarg = optarg;
			if (len > 2 && strcmp(optarg + len - 2, "kT") == 0 &&
			    len < sizeof buf) {
				memcpy(buf, optarg, len - 2);
				buf[len - 2] = '\0';
				a->cut_kT = 1;
				nerr += fek_opt_double(buf, 0, HUGE_VAL, "-c",
				    &a->cutoff);
			} else
				nerr += fek_opt_double(optarg, 0, HUGE_VAL,
				    "-c", &a->cutoff);
			break;
		}
		case 'E':
			nerr += fek_opt_unit(optarg, 0, "-E", &a->eunit);
			break;
		case 'f':
			a->reffile = optarg;
			break;
		case 'p':
			a->formula = optarg;
			break;
		case 'u':
			nerr += fek_opt_unit(optarg, 1, "-u", &a->unit);
			break;
		case OPT_FAIL:
			nerr += fek_opt_double(optarg, 0, HUGE_VAL,
			    "--fail-above", &a->fail);
			break;
		default:	/* -q -h --version */
			nerr += fek_opt_common(c, optarg, &a->com, usage);
			break;
		}
	}
	if ((a->formula != NULL) == (a->reffile != NULL)) {
		fek_warnx("give one reference: -p formula or -f file");
		nerr++;
	}
	if (argc - optind > 1) {
		fek_warnx("one input file at most");
		nerr++;
	}
	if (nerr)
		usage(FEK_EX_USAGE);
	a->path = optind < argc ? argv[optind] : "-";
}

/* -c in kT: the cutoff in the output unit, from the PMF's TEMP. */
static double
cutoff_in_unit(const struct args *a, const struct table *t)
{
	if (!a->cut_kT)
		return a->cutoff;
	if (!(t->temp > 0))
		fek_errx(FEK_EX_USAGE, "-c %s: the PMF file gives no TEMP",
		    a->cutarg);
	return a->cutoff * FEK_KB_KCAL * t->temp /
	    fek_unit_in_kcal(a->unit, t->temp);
}

/* -p: the formula at the PMF's bins into ref, in the output unit. */
static void
reference_formula(const struct args *a, const struct table *t, double *ref)
{
	fek_expr *e;
	double scale;
	long i;

	if ((e = fek_expr_parse(a->formula, t->ndim)) == NULL)
		fek_errx(FEK_EX_USAGE, "-p: %s", fek_errmsg());
	if (a->unit == FEK_KT && !(t->temp > 0))
		fek_errx(FEK_EX_USAGE, "-u kT: the PMF file gives no TEMP");
	scale = fek_unit_in_kcal(a->eunit, t->temp) /
	    fek_unit_in_kcal(a->unit, t->temp);
	for (i = 0; i < t->n; i++) {
		ref[i] = scale * fek_expr_eval(e, t->coord + i * t->ndim);
		if (!isfinite(ref[i]))
			fek_errx(FEK_EX_USAGE, "-p: the formula is not finite "
			    "at row %ld", i + 1);
	}
	fek_expr_free(e);
}

/* -f: the reference PMF into rt and its F into ref, on the same bins as
 * t; bins empty in the reference are left out of t. */
static void
reference_file(const struct args *a, struct table *t, struct table *rt,
    double *ref)
{
	long i;
	int d;

	read_table(a->reffile, a->unit, t->temp, rt);
	if (rt->n != t->n || rt->ndim != t->ndim)
		fek_errx(FEK_EX_DATA, "%s: %ld rows of %d coordinates, the PMF "
		    "has %ld of %d", a->reffile, rt->n, rt->ndim, t->n,
		    t->ndim);
	for (i = 0; i < t->n; i++) {
		for (d = 0; d < t->ndim; d++)
			if (fabs(rt->coord[i * t->ndim + d] -
			    t->coord[i * t->ndim + d]) > 1e-9 *
			    (1 + fabs(t->coord[i * t->ndim + d])))
				fek_errx(FEK_EX_DATA, "%s: row %ld: coordinates "
				    "differ from the PMF's", a->reffile,
				    i + 1);
		/* bins empty in the reference are left out */
		ref[i] = rt->F[i];
		if (!isfinite(ref[i]))
			t->F[i] = HUGE_VAL;
	}
}

/* The report to standard output. */
static void
print_rmsd(const struct args *a, const struct table *t,
    const struct fek_rmsd *res)
{
	int d;

	printf("units %s\n", fek_unit_name(a->unit));
	printf("bins %ld of %ld\n", res->n, t->n);
	printf("shift %.6g\n", res->shift);
	printf("max %.6g at", res->maxdev);
	for (d = 0; d < t->ndim; d++)
		printf(" %.6g", t->coord[res->at * t->ndim + d]);
	printf("\nRMSD %.6g\n", res->rmsd);
}

int
main(int argc, char **argv)
{
	struct args a;
	struct table t, rt;
	struct fek_rmsd res;
	double cutoff, *ref;

	fek_setprogname(argv[0]);
	parse_args(argc, argv, &a);
	read_table(a.path, a.unit, 0, &t);
	cutoff = cutoff_in_unit(&a, &t);
	ref = fek_alloc(t.n, sizeof(double));
	if (a.formula)
		reference_formula(&a, &t, ref);
	else
		reference_file(&a, &t, &rt, ref);
	if (fek_rmsd(t.n, t.F, ref, cutoff, &res) < 0)
		fek_die();
	print_rmsd(&a, &t, &res);
	fek_fshut(stdout, "stdout");
	free(t.coord);
	free(t.F);
	free(ref);
	if (a.reffile) {
		free(rt.coord);
		free(rt.F);
	}
	if (res.rmsd > a.fail) {
		fek_warnx("RMSD %.6g is above --fail-above %g", res.rmsd,
		    a.fail);
		return FEK_EX_NUMERIC;
	}
	return 0;
}
