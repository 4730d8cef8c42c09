/*
 * bar-solve - excess chemical potentials from test-particle insertion and
 * deletion energies, and free-energy differences from work values: Widom's
 * test-particle insertion (Daly et al., Comput. Phys. Commun. 183, 2054
 * (2012), Eq. 1), overlap sampling (Eq. 2) and Bennett's acceptance ratio
 * (Eqs. 3-6), NVT or NPT (Eqs. 7-9), fugacity (Eq. 10); errors by
 * Flyvbjerg-Petersen blocking over configurations and Bennett's asymptotic
 * variance; overlap diagnostics; convergence traces.  The numerics are in
 * lib/bar/bar.c, lib/core/blocking.c and lib/bar/pert.c.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "bar/bar.h"
#include "core/fek.h"
#include "bar/pert.h"
#include "stream/stream.h"

#define KB_J 1.380649e-23		/* J/K, exact (SI 2019) */
#define NA 6.02214076e23		/* 1/mol, exact */

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: bar-solve [-Pqv] [-c trace] [-m method[,method"
	    "...]] [-n count]\n"
	    "                 [-r density[unit]] [-u kcal|kJ|kT] [file ...]\n"
	    "       bar-solve [-qv] [-c trace] [-m method[,method...]] "
	    "[-n count] -W forward reverse\n");
	exit(code);
}

/* -m tpi,os,bar (fwd and rev are tpi and del) */
static int
parse_methods(const char *arg, int *want)
{
	char buf[256], *tok, *save;
	static const char *names[FEK_NMETHOD][2] = {
		{ "tpi", "fwd" }, { "del", "rev" }, { "os", "os" },
		{ "bar", "bar" }
	};
	int m, bad = 0;

	memset(want, 0, FEK_NMETHOD * sizeof *want);
	snprintf(buf, sizeof buf, "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",",
	    &save)) {
		for (m = 0; m < FEK_NMETHOD; m++)
			if (strcmp(tok, names[m][0]) == 0 ||
			    strcmp(tok, names[m][1]) == 0)
				break;
		if (m == FEK_NMETHOD) {
			fek_warnx("-m: '%s' is not tpi, del, os or bar (or fwd, "
			    "rev)", tok);
			bad = 1;
		} else
			want[m] = 1;
	}
	return bad;
}

/* -r density[unit]: unit nm-3, A-3, m-3 or mol/L gives molecules per m^3;
 * none, a density in the user's own units. */
static int
parse_density(const char *arg, double *rho, double *per_m3)
{
	static const struct { const char *name; double f; } units[] = {
		{ "nm-3", 1e27 }, { "A-3", 1e30 }, { "m-3", 1 },
		{ "mol/L", 1e3 * NA }
	};
	char *end;
	size_t i;

	errno = 0;
	*rho = strtod(arg, &end);
	if (end == arg || errno == ERANGE || !isfinite(*rho) || !(*rho > 0)) {
		fek_warnx("-r: '%s' is not a positive density", arg);
		return 1;
	}
	*per_m3 = 0;
	if (*end == '\0')
		return 0;
	for (i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(end, units[i].name) == 0) {
			*per_m3 = units[i].f;
			return 0;
		}
	fek_warnx("-r: unit '%s' is not nm-3, A-3, m-3 or mol/L", end);
	return 1;
}

/* All values of a work file: plain numbers, one per line, or fek
 * sections of one column. */
static double *
read_work(const char *path, long *n)
{
	struct fek_reader r;
	struct fek_header h;
	double *all = NULL, *rows;
	long long k, got;
	long cap = 0;
	int rc;

	*n = 0;
	if (fek_reader_open(&r, path) < 0)
		fek_die();
	r.allow_plain = 1;
	while ((rc = fek_next_section(&r, &h)) > 0) {
		if (h.ncols != 1)
			fek_errx(FEK_EX_DATA, "%s: %s%d columns, expected one "
			    "work value (kT) per line", r.name, r.plain ? "" :
			    "section has ", h.ncols);
		if ((got = fek_read_all(&r, &h, &rows)) < 0)
			fek_die();
		if (*n + got > cap) {
			cap = 2 * (*n + got) + 16;
			all = realloc(all, (size_t)cap * sizeof *all);
			if (all == NULL)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
		}
		for (k = 0; k < got; k++)
			all[(*n)++] = rows[k];
		free(rows);
		fek_hdr_free(&h);
	}
	if (rc < 0)
		fek_die();
	if (*n == 0)
		fek_errx(FEK_EX_DATA, "%s: no work values", r.name);
	fek_reader_close(&r);
	return all;
}

static void
read_streams(int argc, char **argv, struct fek_pert *p)
{
	struct fek_pert_input *in = fek_pert_input_new();
	struct fek_reader r;
	struct fek_header h;
	int i, rc, nfiles = argc > 0 ? argc : 1;

	for (i = 0; i < nfiles; i++) {
		if (fek_reader_open(&r, argc > 0 ? argv[i] : "-") < 0)
			fek_die();
		while ((rc = fek_next_section(&r, &h)) > 0) {
			if (fek_pert_input_section(in, &r, &h) < 0)
				fek_die();
			fek_hdr_free(&h);
		}
		if (rc < 0)
			fek_die();
		fek_reader_close(&r);
	}
	if (fek_pert_build(in, p) < 0)
		fek_die();
	fek_pert_input_free(in);
}

/* %.12g, and "-" for a value that is not there; never NaN */
static void
putnum(FILE *fp, double v, int have)
{
	if (!have)
		fputs(" -", fp);
	else if (isnan(v))
		fek_errx(FEK_EX_SOFTWARE, "internal error: NaN in the output");
	else if (isinf(v))
		fputs(v > 0 ? " inf" : " -inf", fp);
	else
		fprintf(fp, " %.12g", v);
}

static void
print_blocking(const char *name, const struct fek_pert *p,
    const struct fek_estimate *e)
{
	static const char *what[2] = { "insertion", "deletion" };
	int k, j;

	for (j = 0; j < e->nser; j++) {
		const struct fek_blocking *b = &e->blk[j];
		long K = b->nlev > 0 ? b->lev[0].nblocks : 0;

		fprintf(stderr, "%s: %s: blocking over %ld %s%s (sd in kT; * "
		    "the level chosen)\n", fek_getprogname(), name, K,
		    e->ser_side[j] < 0 ? "" : what[e->ser_side[j]],
		    p->work ? " values" : " configurations");
		fprintf(stderr, "%s:   level size blocks sd sd_err rho1\n",
		    fek_getprogname());
		for (k = 0; k < b->nlev; k++) {
			const struct fek_block_level *L = &b->lev[k];
			double sd = K * sqrt(L->var);

			fprintf(stderr, "%s:   %d %ld %ld %.6g %.2g %.3f%s\n",
			    fek_getprogname(), k, L->size, L->nblocks, sd,
			    L->var > 0 ? sd * L->var_err / (2 * L->var) : 0,
			    L->rho1, k == b->chosen ? " *" : "");
		}
	}
}

/* -c's progress on a terminal: row of n, or row < 0 when done. */
static void
trace_progress(long row, long n)
{
	if (row < 0)
		fprintf(stderr, "\r%*s\r", 60, "");
	else
		fprintf(stderr, "\r%s: trace row %ld of %ld",
		    fek_getprogname(), row, n);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		FEK_LONGOPTS_COMMON,
		{ "units", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 }
	};
	struct fek_pert p;
	struct fek_estimate est[FEK_NMETHOD];
	enum fek_unit unit = FEK_KT;
	const char *trace = NULL, *rarg = NULL;
	char why[256], fail[1024] = "";
	double nmin = 10, rho = 0, per_m3 = 0, kT = 0, fscale = 0;
	int c, nerr = 0, npt = 0, work = 0, verbose = 0, have_unit = 0;
	int quiet = 0;
	int want[FEK_NMETHOD], asked = 0, m, s;
	long all[2] = { -1, -1 }, nF, nR;
	FILE *out, *tfp = NULL;
	char *tbuf = NULL, **argv0 = argv;
	size_t tlen = 0;
	int argc0 = argc;

	fek_setprogname(argv[0]);
	gsl_set_error_handler_off();
	memset(want, 0, sizeof want);
	while ((c = getopt_long(argc, argv, "c:hm:n:Pqr:u:vW", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'c':
			trace = optarg;
			break;
		case 'm':
			nerr += parse_methods(optarg, want);
			asked = 1;
			break;
		case 'n':
			nerr += fek_opt_double(optarg, 0, 1e300, "-n", &nmin);
			break;
		case 'P':
			npt = 1;
			break;
		case 'q':
			fek_set_quiet(1);
			quiet = 1;
			break;
		case 'r':
			nerr += parse_density(optarg, &rho, &per_m3);
			rarg = optarg;
			break;
		case 'u':
			nerr += fek_opt_unit(optarg, 1, "-u", &unit);
			have_unit = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'W':
			work = 1;
			break;
		case FEK_OPT_VERSION:
			fek_version_exit();
		case 'h':
			usage(0);
		default:
			usage(FEK_EX_USAGE);
		}
	}
	argc -= optind;
	argv += optind;
	if (work) {
		if (argc != 2) {
			fek_warnx("-W takes two files: forward and reverse "
			    "work values");
			nerr++;
		}
		if (npt || rarg || have_unit) {
			fek_warnx("-W: -P, -r and -u do not apply to work "
			    "values (kT)");
			nerr++;
		}
	}
	if (nerr)
		usage(FEK_EX_USAGE);

	if (work) {
		double *wF = read_work(argv[0], &nF), *wR = read_work(argv[1],
		    &nR);

		if (fek_pert_from_work(wF, nF, wR, nR, &p) < 0)
			fek_die();
		free(wF);
		free(wR);
		if (!asked)
			want[FEK_M_BAR] = 1;
	} else {
		read_streams(argc, argv, &p);
		if (npt && fek_pert_npt(&p) < 0)
			fek_die();
		if (!asked) {
			want[FEK_M_TPI] = want[FEK_M_OS] = want[FEK_M_BAR] = 1;
			for (m = 0; m < FEK_NMETHOD; m++)
				if (want[m] && !fek_method_possible(&p, m, why,
				    sizeof why))
					want[m] = 0;
			if (!want[FEK_M_TPI] && !want[FEK_M_OS] &&
			    !want[FEK_M_BAR])
				want[FEK_M_DEL] = 1;
		}
	}
	for (m = 0; m < FEK_NMETHOD; m++)
		if (want[m]) {
			if (!fek_method_possible(&p, m, why, sizeof why))
				fek_errx(FEK_EX_DATA, "%s: %s",
				    fek_method_name(m, p.work), why);
		}
	if (unit != FEK_KT || (per_m3 > 0)) {
		if (!(p.temp > 0))
			fek_errx(FEK_EX_DATA, "%s needs the temperature, and "
			    "the input has no TEMP key", per_m3 > 0 ? "-r "
			    "with a unit" : "-u kcal or kJ");
	}
	if (have_unit)
		kT = unit == FEK_KT ? 1 : fek_kb(unit) * p.temp;
	if (rarg)	/* f = rho kT exp(beta mu) (Eq. 10), in bar or rho's unit */
		fscale = per_m3 > 0 ? rho * per_m3 * KB_J * p.temp / 1e5 : rho;

	/* the estimates, and their overlap checks */
	for (m = 0; m < FEK_NMETHOD; m++) {
		if (!want[m])
			continue;
		if (fek_estimate(&p, m, all, &est[m]) < 0)
			fek_die();
		if (verbose)
			print_blocking(fek_method_name(m, p.work), &p, &est[m]);
		if (est[m].n_eff < nmin) {
			size_t l = strlen(fail);
			int ovl = est[m].have_bar && est[m].n_eff == est[m].n_ovl;

			snprintf(fail + l, sizeof fail - l, "%s%s: %s %.3g < %g "
			    "(%s)", l ? "; " : "", fek_method_name(m, p.work),
			    ovl ? "n_ovl" : "n_eff", est[m].n_eff, nmin, ovl ?
			    (p.work ? "the forward and reverse work "
			    "distributions barely overlap" : "the insertion "
			    "and deletion energy distributions barely "
			    "overlap") : est[m].n_eff_conf ? "a few "
			    "configurations carry the average" : "a few moves "
			    "carry the average");
		}
	}
	if (fail[0])
		fek_errx(FEK_EX_NUMERIC, "poor overlap: %s: the estimate would "
		    "mean nothing (-n sets the limit)", fail);
	for (m = 0; m < FEK_NMETHOD; m++)
		if (want[m] && est[m].nser > 0 && !p.work &&
		    est[m].blk[0].nlev > 1 &&
		    est[m].blk[0].chosen == est[m].blk[0].nlev - 1)
			fek_warnx("%s: blocking found no plateau (too few "
			    "configurations); sd is a lower bound",
			    fek_method_name(m, p.work));
	if (want[FEK_M_BAR] && est[FEK_M_BAR].range > 0 &&
	    est[FEK_M_BAR].range > 0.1 * est[FEK_M_BAR].sd)
		fek_warnx("BAR: moves beyond the histogram range could shift "
		    "it by %.3g kT; widen AXIS", est[FEK_M_BAR].range);
	if (trace) {
		tfp = open_memstream(&tbuf, &tlen);
		if (tfp == NULL)
			fek_errx(FEK_EX_SOFTWARE, "cannot buffer the trace");
		if (fek_trace_write(tfp, &p, want, argc0, argv0, isatty(2) &&
		    !quiet ? trace_progress : NULL) < 0)
			fek_die();
		if (fclose(tfp) != 0)
			fek_errx(FEK_EX_SOFTWARE, "cannot buffer the trace");
	}

	if (trace) {
		FILE *fp = fopen(trace, "w");

		if (fp == NULL)
			fek_errx(FEK_EX_IOERR, "%s: %s", trace,
			    strerror(errno));
		if (tlen && fwrite(tbuf, 1, tlen, fp) != tlen)
			fek_errx(FEK_EX_IOERR, "%s: write error", trace);
		if (fclose(fp) != 0)
			fek_errx(FEK_EX_IOERR, "%s: %s", trace,
			    strerror(errno));
		free(tbuf);
	}

	/* the report */
	out = stdout;
	if (p.work) {
		fprintf(out, "# bar-solve -W: %.0f forward, %.0f reverse work "
		    "values; dF = F_B - F_A\n", p.s[0].ntot, p.s[1].ntot);
		fprintf(out, "# method dF sd sd_iid n_eff (dF, sd, sd_iid in "
		    "kT)\n");
	} else {
		fprintf(out, "# bar-solve: %s; %ld configurations; %.17g "
		    "insertions in %ld; %.17g deletions in %ld", npt ? "NPT" :
		    "NVT", p.nconf, p.s[0].ntot, p.s[0].nconf, p.s[1].ntot,
		    p.s[1].nconf);
		if (p.temp > 0)
			fprintf(out, "; TEMP %.17g K", p.temp);
		if (npt)
			fprintf(out, "; <V> %.12g %s", exp(p.lnVref), p.vunit);
		fprintf(out, "\n# method beta_mu sd sd_iid n_eff");
		if (have_unit)
			fprintf(out, " mu sd_mu");
		if (rarg)
			fprintf(out, " f sd_f");
		fprintf(out, " (beta_mu, sd, sd_iid in kT");
		if (have_unit)
			fprintf(out, "; mu, sd_mu in %s", fek_unit_name(unit));
		if (rarg)
			fprintf(out, "; f, sd_f %s", per_m3 > 0 ? "in bar" :
			    "= rho exp(beta_mu), as f/kT in the unit of rho");
		fprintf(out, ")\n");
	}
	for (m = 0; m < FEK_NMETHOD; m++)
		if (want[m] && est[m].n_eff_conf) {
			fprintf(out, "# n_eff of %s counts configurations (no "
			    "per-move data)\n", fek_method_name(m, p.work));
			break;
		}
	for (m = 0; m < FEK_NMETHOD; m++) {
		const struct fek_estimate *e = &est[m];

		if (!want[m])
			continue;
		fprintf(out, "%s", fek_method_name(m, p.work));
		putnum(out, e->value, 1);
		putnum(out, e->sd, 1);
		putnum(out, e->sd_iid, e->sd_iid >= 0);
		fprintf(out, " %.6g", e->n_eff);
		if (have_unit) {
			putnum(out, e->value * kT, 1);
			putnum(out, e->sd * kT, 1);
		}
		if (rarg) {
			double f = fscale * exp(e->value);

			putnum(out, f, 1);
			putnum(out, f * e->sd, 1);
		}
		fputc('\n', out);
	}
	for (m = 0; m < FEK_NMETHOD; m++) {
		const struct fek_estimate *e = &est[m];

		if (!want[m] || !e->have_bar)
			continue;
		fprintf(out, "# overlap: beta_C %.12g; n_ovl %.6g; overlap "
		    "%.6g; s_ins %.6g kT; s_del %.6g kT", e->C, e->n_ovl,
		    e->overlap, e->s_ins, e->s_del);
		if (e->range > 0)
			fprintf(out, "; range %.3g kT", e->range);
		fputc('\n', out);
		break;
	}
	fprintf(out, "# blocking:");
	for (m = 0, s = 0; m < FEK_NMETHOD; m++) {
		const struct fek_estimate *e = &est[m];
		int j;

		if (!want[m])
			continue;
		for (j = 0; j < e->nser; j++) {
			const struct fek_blocking *b = &e->blk[j];

			if (b->nlev == 0)
				continue;
			fprintf(out, "%s %s%s %ld per block (%ld blocks)",
			    s++ ? (j ? "," : ";") : "", j ? "" :
			    fek_method_name(m, p.work), e->nser < 2 ? "" :
			    e->ser_side[j] == FEK_INS ? " ins" : "del",
			    b->lev[b->chosen].size, b->lev[b->chosen].nblocks);
		}
	}
	if (s == 0)
		fprintf(out, " none (fewer than 2 configurations)");
	fputc('\n', out);
	fek_fshut(stdout, "stdout");
	fek_pert_free(&p);
	return 0;
}
