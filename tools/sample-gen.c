/*
 * sample-gen - umbrella samples of an analytic PMF, the test harness of
 * Potgieter 2014 (section 5.1.1, Eq. 5.1), one fek section per window.
 * Exact independent samples by rejection (lib/sample.c), or correlated
 * ones from overdamped Langevin dynamics (-c).
 */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fek.h"
#include "sample.h"
#include "stream.h"

static void
usage(void)
{
	fprintf(stderr, "usage: sample-gen [-Tqv] [-c corr] [-d cpu|gpu|auto] "
	    "[-E kcal|kJ] [-g count -k spring]\n"
	    "                  [-j first:last] [-n samples] [-s seed] "
	    "[-t temperature] [-u unit]\n"
	    "                  [-w windows] -p formula -r lo:hi[:p] ...\n");
	exit(FEK_EX_USAGE);
}

/* Windows on a regular grid: count per axis, both ends included on open
 * axes and on periodic ones alike (as the thesis's 19x19 ... 91x91). */
static struct fek_window *
grid_windows(const struct fek_grid *g, long count, double spring, long *n)
{
	struct fek_window *w;
	long long total = 1, i;
	int d;

	for (d = 0; d < g->ndim; d++)
		total *= count;
	w = fek_alloc((size_t)total, sizeof *w);
	for (i = 0; i < total; i++) {
		long long rem = i;

		for (d = g->ndim - 1; d >= 0; d--) {
			long k = (long)(rem % count);

			rem /= count;
			w[i].centre[d] = count == 1 ? 0.5 * (g->ax[d].lo +
			    g->ax[d].hi) : g->ax[d].lo + (g->ax[d].hi -
			    g->ax[d].lo) * k / (count - 1);
			w[i].spring[d] = spring;
		}
	}
	*n = (long)total;
	return w;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *formula = NULL, *winfile = NULL, *unit = "1";
	const char *names3[] = { "x", "y", "z" };
	struct fek_grid dom;
	struct fek_window *win = NULL;
	struct fek_envelope *env;
	struct fek_sample_stats st = { 0, 0 };
	struct fek_writer wr;
	enum fek_device dev = FEK_DEV_AUTO, use;
	enum fek_unit eunit = FEK_KCAL;
	fek_expr *pmf;
	double temp = 300, corr = 0, spring = -1, beta, *buf, v;
	long nsamp = 5000, seed = 1, gridn = 0, nwin, first = 1, last = -1, i;
	int c, nerr = 0, text = 0, verbose = 0, quiet = 0, tty, d;
	char *cmd;

	fek_setprogname(argv[0]);
	memset(&dom, 0, sizeof dom);
	while ((c = getopt_long(argc, argv, "c:d:E:g:j:k:n:p:qr:s:t:Tu:vw:",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			nerr += fek_opt_double(optarg, 1, 1e9, "-c", &corr);
			break;
		case 'd':
			if (fek_device_parse(optarg, &dev) < 0) {
				fek_warnx("-d: '%s' is not cpu, gpu or auto",
				    optarg);
				nerr++;
			}
			break;
		case 'E':
			nerr += fek_opt_unit(optarg, 0, "-E", &eunit);
			break;
		case 'g':
			nerr += fek_opt_long(optarg, 1, 100000, "-g", &gridn);
			break;
		case 'j': {
			char jbuf[64], *colon;

			snprintf(jbuf, sizeof jbuf, "%s", optarg);
			colon = strchr(jbuf, ':');

			if (colon == NULL) {
				nerr += fek_opt_long(jbuf, 1, LONG_MAX, "-j",
				    &first);
				last = first;
			} else {
				*colon = '\0';
				nerr += fek_opt_long(jbuf, 1, LONG_MAX, "-j",
				    &first);
				nerr += fek_opt_long(colon + 1, 1, LONG_MAX,
				    "-j", &last);
			}
			break;
		}
		case 'k':
			nerr += fek_opt_double(optarg, 0, HUGE_VAL, "-k",
			    &spring);
			break;
		case 'n':
			nerr += fek_opt_long(optarg, 1, 1000000000L, "-n",
			    &nsamp);
			break;
		case 'p':
			formula = optarg;
			break;
		case 'q':
			fek_set_quiet(1);
			quiet = 1;
			break;
		case 'r':
			if (dom.ndim == FEK_MAXDIM) {
				fek_warnx("-r: at most %d dimensions",
				    FEK_MAXDIM);
				nerr++;
				break;
			}
			if (fek_opt_range(optarg, "-r", &dom.ax[dom.ndim].lo,
			    &dom.ax[dom.ndim].hi,
			    &dom.ax[dom.ndim].periodic)) {
				nerr++;
				break;
			}
			dom.ndim++;
			break;
		case 's':
			nerr += fek_opt_long(optarg, 0, LONG_MAX, "-s", &seed);
			break;
		case 't':
			nerr += fek_opt_double(optarg, 1e-6, 1e9, "-t", &temp);
			break;
		case 'T':
			text = 1;
			break;
		case 'u':
			unit = optarg;
			if (strlen(unit) >= FEK_NAMELEN || strpbrk(unit, " \t")
			    || !*unit) {
				fek_warnx("-u: '%s' is not a one-word unit",
				    unit);
				nerr++;
			}
			break;
		case 'v':
			verbose = 1;
			break;
		case 'w':
			winfile = optarg;
			break;
		case 'V':
			fek_version_exit();
		default:
			usage();
		}
	}
	if (optind != argc) {
		fek_warnx("unexpected operand '%s'", argv[optind]);
		nerr++;
	}
	if (formula == NULL) {
		fek_warnx("-p: a PMF formula is required");
		nerr++;
	}
	if (dom.ndim == 0) {
		fek_warnx("-r: give the domain of each dimension");
		nerr++;
	}
	if ((winfile != NULL) == (gridn > 0)) {
		fek_warnx("give the windows with -w file or -g count -k spring");
		nerr++;
	}
	if (gridn > 0 && spring < 0) {
		fek_warnx("-g: needs -k spring");
		nerr++;
	}
	if (last >= 0 && last < first) {
		fek_warnx("-j: last window before first");
		nerr++;
	}
	if (nerr)
		usage();
	if (fek_device_resolve(dev, 0, &use) < 0)
		fek_die();
	for (d = 0; d < dom.ndim; d++) {
		if (dom.ndim <= 3)
			strcpy(dom.ax[d].name, names3[d]);
		else
			snprintf(dom.ax[d].name, FEK_NAMELEN, "x%d", d + 1);
		strcpy(dom.ax[d].unit, unit);
	}
	if ((pmf = fek_expr_parse(formula, dom.ndim)) == NULL)
		fek_errx(FEK_EX_USAGE, "-p: %s", fek_errmsg());
	if (winfile) {
		if (fek_windows_load(winfile, dom.ndim, &win, &nwin) < 0)
			fek_die();
	} else
		win = grid_windows(&dom, gridn, spring, &nwin);
	if (last < 0)
		last = nwin;
	if (first > nwin || last > nwin)
		fek_errx(FEK_EX_USAGE, "-j: %ld:%ld, but there are %ld windows",
		    first, last, nwin);
	/* the formula and springs are in eunit; beta in 1/eunit */
	beta = 1.0 / (fek_kb(eunit) * temp);
	if ((env = fek_envelope_new(pmf, &dom, beta)) == NULL)
		fek_die();
	buf = fek_alloc((size_t)nsamp * dom.ndim, sizeof(double));
	fek_writer_init(&wr, stdout, text);
	cmd = fek_cmdline(argc, argv);
	/* progress on a terminal, about a hundred updates in all */
	tty = !quiet && !verbose && isatty(STDERR_FILENO) && last - first > 0;
	for (i = first - 1; i < last; i++) {
		struct fek_header h;
		gsl_rng *rng = fek_rng_new((unsigned long long)seed,
		    (unsigned long long)i);
		int rc;

		v = st.proposals;
		rc = corr > 0 ?
		    fek_sample_langevin(env, &win[i], rng, nsamp, corr, buf,
			&st) :
		    fek_sample_exact(env, &win[i], rng, nsamp, buf, &st);
		fek_rng_free(rng);
		if (rc < 0)
			fek_errx(fek_errcode(), "window %ld: %s", i + 1,
			    fek_errmsg());
		if (verbose)
			fprintf(stderr, "sample-gen: window %ld of %ld: %ld "
			    "samples, %s %.3g\n", i + 1, nwin, nsamp,
			    corr > 0 ? "steps" : "acceptance", corr > 0 ?
			    st.proposals - v : nsamp / (st.proposals - v));
		fek_hdr_init(&h, "samples");
		h.rows = nsamp;
		for (d = 0; d < dom.ndim; d++)
			fek_hdr_addcol(&h, dom.ax[d].name, FEK_F64, unit);
		fek_grid_write(&h, &dom);
		fek_window_write(&h, dom.ndim, &win[i]);
		fek_hdr_add(&h, "TEMP", "%.17g", temp);
		fek_hdr_add(&h, "ENERGY", "%s", fek_unit_name(eunit));
		if (corr > 0)
			fek_hdr_add(&h, "CORRTIME", "%.17g", corr);
		fek_hdr_add(&h, "PMF", "%s", formula);
		fek_hdr_add(&h, "PROV", "%s", cmd);
		if (fek_begin_section(&wr, &h) < 0 ||
		    fek_write_rows(&wr, buf, nsamp) < 0 ||
		    fek_end_section(&wr) < 0)
			fek_die();
		fek_hdr_free(&h);
		if (tty && ((i - first + 1) % ((last - first) / 100 + 1) == 0 ||
		    i + 1 == last))
			fprintf(stderr, "\rsample-gen: window %ld of %ld%s",
			    i + 1, last, i + 1 == last ? "\n" : "");
	}
	if (st.restarts > 0 && verbose)
		fprintf(stderr, "sample-gen: the PMF bound was raised %ld "
		    "time%s (windows restarted)\n", st.restarts,
		    st.restarts > 1 ? "s" : "");
	fek_fshut(stdout, "stdout");
	free(cmd);
	free(buf);
	free(win);
	fek_envelope_free(env);
	fek_expr_free(pmf);
	return 0;
}
