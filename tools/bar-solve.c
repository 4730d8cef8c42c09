/*
 * bar-solve - excess chemical potentials from test-particle insertion and
 * deletion energies, and free-energy differences from work values: Widom's
 * test-particle insertion (Daly et al., Comput. Phys. Commun. 183, 2054
 * (2012), Eq. 1), overlap sampling (Eq. 2) and Bennett's acceptance ratio
 * (Eqs. 3-6), NVT or NPT (Eqs. 7-9), fugacity (Eq. 10); errors by
 * Flyvbjerg-Petersen blocking over configurations and Bennett's asymptotic
 * variance; overlap diagnostics; convergence traces.  The numerics are in
 * lib/bar/bar.c, lib/core/blocking.c and lib/bar/pert.c; the input is read
 * by lib/bar/read.c, checked by lib/bar/check.c and reported by
 * lib/bar/report.c, the trace written by lib/bar/trace.c.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "bar/bar.h"
#include "bar/pert.h"
#include "core/fek.h"
#include "core/progress.h"

#define KB_J 1.380649e-23		/* J/K, exact (SI 2019) */
#define NA 6.02214076e23		/* 1/mol, exact */

struct args {
	struct fek_common com;	/* -q -v -h --version */
	const char *trace;	/* -c */
	int want[FEK_NMETHOD];	/* -m */
	int asked;		/* -m was given */
	double nmin;		/* -n */
	int npt;		/* -P */
	const char *rarg;	/* -r as given */
	double rho, per_m3;	/* -r: density, its unit in m^-3 (0: none) */
	enum fek_unit unit;	/* -u */
	int have_unit;
	int work;		/* -W */
	int nfile;		/* the operands */
	char **file;
};

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

/* -c's progress (lib/core/progress.h): row (from 1) of n begun, or
 * row < 0 when done. */
static struct fek_progress trace_pr;

static void
trace_progress(long row, long n)
{
	if (row == 1)
		trace_pr.total = (double)n;
	if (row < 0)
		fek_progress_end(&trace_pr, (double)n, NULL);
	else
		fek_progress_tell(&trace_pr, (double)(row - 1), NULL);
}

static void
parse_args(int argc, char **argv, struct args *a)
{
	static const struct option longopts[] = {
		FEK_LONGOPTS_COMMON,
		{ "units", required_argument, NULL, 'u' },
		{ NULL, 0, NULL, 0 }
	};
	int c, nerr = 0;

	memset(a, 0, sizeof *a);
	a->nmin = 10;
	a->unit = FEK_KT;
	while ((c = getopt_long(argc, argv, "c:hm:n:Pqr:u:vW", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'c':
			a->trace = optarg;
			break;
		case 'm':
			nerr += parse_methods(optarg, a->want);
			a->asked = 1;
			break;
		case 'n':
			nerr += fek_opt_double(optarg, 0, 1e300, "-n",
			    &a->nmin);
			break;
		case 'P':
			a->npt = 1;
			break;
		case 'r':
			nerr += parse_density(optarg, &a->rho, &a->per_m3);
			a->rarg = optarg;
			break;
		case 'u':
			nerr += fek_opt_unit(optarg, 1, "-u", &a->unit);
			a->have_unit = 1;
			break;
		case 'W':
			a->work = 1;
			break;
		default:
			nerr += fek_opt_common(c, optarg, &a->com, usage);
			break;
		}
	}
	a->nfile = argc - optind;
	a->file = argv + optind;
	if (a->work) {
		if (a->nfile != 2) {
			fek_warnx("-W takes two files: forward and reverse "
			    "work values");
			nerr++;
		}
		if (a->npt || a->rarg || a->have_unit) {
			fek_warnx("-W: -P, -r and -u do not apply to work "
			    "values (kT)");
			nerr++;
		}
	}
	if (nerr)
		usage(FEK_EX_USAGE);
}

/* The input into p, and the methods to run: those of -m, else BAR on
 * work values and on energies every method the data allow. */
static void
setup(struct args *a, struct fek_pert *p)
{
	double *wF, *wR;
	long nF, nR;
	char why[256];
	int m;

	if (a->work) {
		if ((wF = fek_work_read(a->file[0], &nF)) == NULL ||
		    (wR = fek_work_read(a->file[1], &nR)) == NULL ||
		    fek_pert_from_work(wF, nF, wR, nR, p) < 0)
			fek_die();
		free(wF);
		free(wR);
		if (!a->asked)
			a->want[FEK_M_BAR] = 1;
	} else {
		if (fek_pert_read(a->nfile, a->file, p) < 0 ||
		    (a->npt && fek_pert_npt(p) < 0))
			fek_die();
		if (!a->asked) {
			a->want[FEK_M_TPI] = a->want[FEK_M_OS] =
			    a->want[FEK_M_BAR] = 1;
			for (m = 0; m < FEK_NMETHOD; m++)
				if (a->want[m] && !fek_method_possible(p, m,
				    why, sizeof why))
					a->want[m] = 0;
			if (!a->want[FEK_M_TPI] && !a->want[FEK_M_OS] &&
			    !a->want[FEK_M_BAR])
				a->want[FEK_M_DEL] = 1;
		}
	}
	for (m = 0; m < FEK_NMETHOD; m++)
		if (a->want[m] && !fek_method_possible(p, m, why, sizeof why))
			fek_errx(FEK_EX_DATA, "%s: %s", fek_method_name(m,
			    p->work), why);
	if ((a->unit != FEK_KT || a->per_m3 > 0) && !(p->temp > 0))
		fek_errx(FEK_EX_DATA, "%s needs the temperature, and the input "
		    "has no TEMP key", a->per_m3 > 0 ? "-r with a unit" :
		    "-u kcal or kJ");
}

int
main(int argc, char **argv)
{
	static const long all[2] = { -1, -1 };	/* every configuration */
	struct args a;
	struct fek_pert p;
	struct fek_estimate est[FEK_NMETHOD];
	struct fek_bar_report rp;
	char whybuf[FEK_NMETHOD][512], failmsg[2048];
	const char *why[FEK_NMETHOD];
	int m, ok[FEK_NMETHOD], nfail, npass = 0;

	fek_setprogname(argv[0]);
	gsl_set_error_handler_off();
	parse_args(argc, argv, &a);
	setup(&a, &p);

	/* the estimates, each checked on its own; the trace of those that
	 * pass */
	for (m = 0; m < FEK_NMETHOD; m++) {
		why[m] = NULL;
		if (!a.want[m])
			continue;
		if (fek_estimate(&p, m, all, &est[m]) < 0) {
			if (fek_errcode() != FEK_EX_NUMERIC)
				fek_die();
			const char *msg = fek_errmsg(), *name =
			    fek_method_name(m, p.work);

			/* the reason alone: check.c names the method */
			if (strncmp(msg, name, strlen(name)) == 0 &&
			    strncmp(msg + strlen(name), ": ", 2) == 0)
				msg += strlen(name) + 2;
			snprintf(whybuf[m], sizeof whybuf[m], "%s", msg);
			why[m] = whybuf[m];
			continue;
		}
		if (a.com.verbose)
			fek_bar_blocking_write(stderr, &p, &est[m], m);
		if (a.com.verbose && (m == FEK_M_TPI || m == FEK_M_DEL)) {
			double bias, X, miss;

			fek_bar_coverage(&p, m, &bias, &X, &miss);
			if (!isnan(bias))
				fprintf(stderr, "%s: %s: coverage: the %s "
				    "reach x = %.6g kT; %.6g of the %s lie %s; "
				    "bias %.6g kT\n", fek_getprogname(),
				    fek_method_name(m, p.work), m == FEK_M_TPI ?
				    "insertions" : "deletions", X, miss,
				    m == FEK_M_TPI ? "deletions" : "insertions",
				    m == FEK_M_TPI ? "below" : "above", bias);
		}
	}
	if ((nfail = fek_bar_check(&p, a.want, est, a.nmin, why, ok)) < 0)
		snprintf(failmsg, sizeof failmsg, "%s", fek_errmsg());
	for (m = 0; m < FEK_NMETHOD; m++)
		npass += ok[m];
	if (npass > 0 && a.trace) {
		/* the rows' count is set at the first */
		fek_progress_start(&trace_pr, "trace rows", 0, a.com.quiet ?
		    FEK_PROGRESS_QUIET : 0);
		if (fek_trace_save(a.trace, &p, ok, argc, argv,
		    fek_progress_on(&trace_pr) ? trace_progress : NULL) < 0)
			fek_die();
	}

	/* the report; f = rho kT exp(beta mu) (Eq. 10), in bar or rho's unit */
	memset(&rp, 0, sizeof rp);
	rp.p = &p;
	rp.want = ok;
	rp.est = est;
	rp.have_unit = a.have_unit;
	rp.unit = a.unit;
	rp.kT = a.unit == FEK_KT ? 1 : fek_kb(a.unit) * p.temp;
	rp.have_f = a.rarg != NULL;
	rp.f_bar = a.per_m3 > 0;
	rp.fscale = rp.f_bar ? a.rho * a.per_m3 * KB_J * p.temp / 1e5 : a.rho;
	if (npass > 0 && fek_bar_report_write(stdout, &rp) < 0)
		fek_die();
	fek_fshut(stdout, "stdout");
	fek_pert_free(&p);
	/* the estimates that pass are printed; any that fails, exit 1 */
	if (nfail < 0)
		fek_errx(FEK_EX_NUMERIC, "%s", failmsg);
	return 0;
}
