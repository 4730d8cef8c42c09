/*
 * sample-gen - umbrella samples of an analytic PMF, the test harness of
 * Potgieter 2014 (section 5.1.1, Eq. 5.1), one fek section per window.
 * Exact independent samples by rejection (lib/wham/sample.c, or on the GPU
 * kernels/wham/sample.cu), or correlated ones from overdamped Langevin dynamics
 * (-c), drawn on the device the library chose (lib/wham/sample_run.c).
 * With -b the samples are binned as they are drawn and the output is the
 * histogram sections that histogram(1) would make of them; with -P as
 * well, one pooled histogram and a table of the windows (lib/wham/pool.c).
 * The sections are written by lib/wham/sample_out.c.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fek.h"
#include "core/progress.h"
#include "wham/hist.h"
#include "wham/pool.h"
#include "wham/sample.h"
#include "wham/sample_out.h"
#include "stream/stream.h"

/* The command line. */
struct args {
	struct fek_common com;		/* -d -q -s -T -v */
	const char *formula;		/* -p */
	const char *winfile;		/* -w */
	const char *unit;		/* -u */
	struct fek_grid dom;		/* -r, axes unnamed */
	struct fek_binspec bs[FEK_MAXDIM];	/* -b */
	int nb;
	int pooled;			/* -P */
	enum fek_unit eunit;		/* -E */
	double temp, corr, spring;	/* -t, -c, -k */
	long nsamp, gridn;		/* -n, -g */
	long first, last;		/* -j; last -1: to the end */
};

/* Progress of a run: -v's line a window, else the reporter's. */
struct progress {
	long nwin, first, last, nsamp;
	double corr;
	int verbose;
	long done;			/* windows written */
	struct fek_progress pr;
};

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: sample-gen [-PTqv] [-b bins|lo:hi:bins[:p] ...] "
	    "[-c corr] [-d cpu|gpu|auto]\n"
	    "                  [-E kcal|kJ] [-g count -k spring] "
	    "[-j first:last] [-n samples]\n"
	    "                  [-s seed] [-t temperature] [-u unit] "
	    "[-w windows]\n"
	    "                  -p formula -r lo:hi[:p] ...\n");
	exit(code);
}

/* The options into a; usage(64) after reporting every bad one. */
static void
parse_args(int argc, char **argv, struct args *a)
{
	static const struct option longopts[] = {
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	struct fek_grid *dom = &a->dom;
	int c, nerr = 0;

	memset(a, 0, sizeof *a);
	a->com.dev = FEK_DEV_AUTO;
	a->com.seed = 1;
	a->unit = "1";
	a->eunit = FEK_KCAL;
	a->temp = 300;
	a->spring = -1;
	a->nsamp = 5000;
	a->first = 1;
	a->last = -1;
	while ((c = getopt_long(argc, argv, "b:c:d:E:g:hj:k:n:p:Pqr:s:t:Tu:vw:",
	    longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			nerr += fek_binspec_parse(optarg, a->bs, &a->nb);
			break;
		case 'c':
			nerr += fek_opt_double(optarg, 1, 1e9, "-c", &a->corr);
			break;
		case 'E':
			nerr += fek_opt_unit(optarg, 0, "-E", &a->eunit);
			break;
		case 'g':
			nerr += fek_opt_long(optarg, 1, 100000, "-g",
			    &a->gridn);
			break;
		case 'j':
			nerr += fek_opt_span(optarg, "-j", &a->first, &a->last);
			break;
		case 'k':
			nerr += fek_opt_double(optarg, 0, HUGE_VAL, "-k",
			    &a->spring);
			break;
		case 'n':
			nerr += fek_opt_long(optarg, 1, 1000000000L, "-n",
			    &a->nsamp);
			break;
		case 'p':
			a->formula = optarg;
			break;
		case 'P':
			a->pooled = 1;
			break;
		case 'r':
			nerr += fek_opt_axis(optarg, FEK_MAXDIM, dom);
			break;
		case 't':
			nerr += fek_opt_double(optarg, 1e-6, 1e9, "-t",
			    &a->temp);
			break;
		case 'u':
			a->unit = optarg;
			if (strlen(optarg) >= FEK_NAMELEN ||
			    strpbrk(optarg, " \t") || !*optarg) {
				fek_warnx("-u: '%s' is not a one-word unit",
				    optarg);
				nerr++;
			}
			break;
		case 'w':
			a->winfile = optarg;
			break;
		default:	/* -d -q -s -T -v -h --version */
			nerr += fek_opt_common(c, optarg, &a->com, usage);
			break;
		}
	}
	if (optind != argc) {
		fek_warnx("unexpected operand '%s'", argv[optind]);
		nerr++;
	}
	if (a->formula == NULL) {
		fek_warnx("-p: a PMF formula is required");
		nerr++;
	}
	if (dom->ndim == 0) {
		fek_warnx("-r: give the domain of each dimension");
		nerr++;
	}
	if ((a->winfile != NULL) == (a->gridn > 0)) {
		fek_warnx("give the windows with -w file or -g count -k spring");
		nerr++;
	}
	if (a->gridn > 0 && a->spring < 0) {
		fek_warnx("-g: needs -k spring");
		nerr++;
	}
	if (a->last >= 0 && a->last < a->first) {
		fek_warnx("-j: last window before first");
		nerr++;
	}
	if (a->nb > 0 && dom->ndim > 0 && a->nb != dom->ndim &&
	    !(a->nb == 1 && !a->bs[0].explicit)) {
		fek_warnx("-b: %d option%s for %d dimension%s", a->nb,
		    a->nb > 1 ? "s" : "", dom->ndim, dom->ndim > 1 ? "s" : "");
		nerr++;
	}
	if (a->pooled && a->nb == 0) {
		fek_warnx("-P: pools histograms; give the bins with -b");
		nerr++;
	}
	if (nerr)
		usage(FEK_EX_USAGE);
}

/* After each window (from 1): -v's line, else the progress reporter's
 * (lib/core/progress.h). */
static void
progress(void *ctx, long window, double props)
{
	struct progress *pr = ctx;

	pr->done++;
	if (pr->verbose)
		fprintf(stderr, "sample-gen: window %ld of %ld: %ld samples, "
		    "%s %.3g\n", window, pr->nwin, pr->nsamp, pr->corr > 0 ?
		    "steps" : "acceptance", pr->corr > 0 ? props :
		    pr->nsamp / props);
	fek_progress_tell(&pr->pr, (double)pr->done, NULL);
}

/* -v: the GPU's stages, or the CPU's restarts. */
static void
report(const struct fek_gpu_sample_stats *gst, enum fek_device use, int nb)
{
	if (use != FEK_DEV_GPU) {
		if (gst->restarts > 0)
			fprintf(stderr, "sample-gen: the PMF bound was raised "
			    "%ld time%s (windows restarted)\n", gst->restarts,
			    gst->restarts > 1 ? "s" : "");
		return;
	}
	fprintf(stderr, "sample-gen: %s: kernel %s in %.0f ms, "
	    "set-up %.0f ms, %s %.1f ms, copies %.1f ms, "
	    "output %.1f ms, %ld restart%s\n", gst->device,
	    gst->cache_hit ? "read from the cache" : "compiled",
	    gst->compile_ms, gst->setup_ms, nb == 0 ? "sampling" :
	    gst->fused_shared ? "sampling and binning (shared "
	    "memory)" : "sampling (binned by sorting)",
	    gst->kernel_ms, gst->copy_ms, gst->sink_ms,
	    gst->restarts, gst->restarts == 1 ? "" : "s");
}

int
main(int argc, char **argv)
{
	const char *names3[] = { "x", "y", "z" };
	struct args a;
	struct fek_grid hgrid;
	struct fek_window *win = NULL;
	struct fek_gpu_sample_spec spec;
	struct fek_gpu_sample_sink sink;
	struct fek_gpu_sample_stats gst;
	struct fek_pool pool;
	struct fek_sample_out o;
	struct progress pr;
	enum fek_device use;
	fek_expr *pmf;
	long nwin;
	int d;

	fek_setprogname(argv[0]);
	fek_trace("start");
	parse_args(argc, argv, &a);
	/* correlated samples are drawn on the CPU only */
	if (fek_device_resolve(a.com.dev, a.corr == 0, &use) < 0)
		fek_die();
	fek_trace("device ready");
	for (d = 0; d < a.dom.ndim; d++) {
		if (a.dom.ndim <= 3)
			strcpy(a.dom.ax[d].name, names3[d]);
		else
			snprintf(a.dom.ax[d].name, FEK_NAMELEN, "x%d", d + 1);
		strcpy(a.dom.ax[d].unit, a.unit);
	}
	/* the histogram grid: the domain with -b applied, as histogram(1)
	 * makes it from a samples section's AXIS lines */
	hgrid = a.dom;
	if (a.nb > 0 && fek_binspec_apply(a.bs, a.nb, &hgrid) < 0)
		fek_die();
	if ((pmf = fek_expr_parse(a.formula, a.dom.ndim)) == NULL)
		fek_errx(FEK_EX_USAGE, "-p: %s", fek_errmsg());
	if (a.winfile) {
		if (fek_windows_load(a.winfile, a.dom.ndim, &win, &nwin) < 0)
			fek_die();
	} else
		win = fek_windows_grid(&a.dom, a.gridn, a.spring, &nwin);
	if (a.last < 0)
		a.last = nwin;
	if (a.first > nwin || a.last > nwin)
		fek_errx(FEK_EX_USAGE, "-j: %ld:%ld, but there are %ld windows",
		    a.first, a.last, nwin);

	memset(&o, 0, sizeof o);
	fek_writer_init(&o.wr, stdout, a.com.text);
	o.dom = &a.dom;
	o.hgrid = a.nb > 0 ? &hgrid : NULL;
	o.win = win;
	o.first = a.first;
	o.unit = a.unit;
	o.formula = a.formula;
	o.cmd = fek_cmdline(argc, argv);
	o.eunit = a.eunit;
	o.temp = a.temp;
	o.corr = a.corr;
	if (a.pooled) {
		fek_pool_init(&pool, &hgrid, win + a.first - 1,
		    a.last - a.first + 1);
		o.pool = &pool;
	}
	pr.nwin = nwin;
	pr.first = a.first;
	pr.last = a.last;
	pr.nsamp = a.nsamp;
	pr.corr = a.corr;
	pr.verbose = a.com.verbose;
	pr.done = 0;
	/* -v's line a window is its progress */
	fek_progress_start(&pr.pr, "windows", (double)(a.last - a.first + 1),
	    a.com.quiet || a.com.verbose ? FEK_PROGRESS_QUIET : 0);
	o.progress = progress;
	o.ctx = &pr;
	fek_sample_out_sink(&o, &sink);

	memset(&spec, 0, sizeof spec);
	spec.formula = a.formula;
	spec.pmf = pmf;
	spec.dom = &a.dom;
	spec.bins = a.nb > 0 ? &hgrid : NULL;
	/* the formula and springs are in eunit; beta in 1/eunit */
	spec.beta = 1.0 / (fek_kb(a.eunit) * a.temp);
	spec.seed = (unsigned long long)a.com.seed;
	spec.nsamp = a.nsamp;
	spec.win = win + a.first - 1;
	spec.first = a.first;
	spec.last = a.last;
	if (fek_sample_run(&spec, a.corr, use, &sink, &gst) < 0)
		fek_die();
	fek_progress_end(&pr.pr, (double)pr.done, NULL);
	fek_trace("sampled");
	if (a.pooled) {
		if (fek_sample_out_pool(&o) < 0)
			fek_die();
		fek_pool_free(&pool);
	}
	if (a.com.verbose)
		report(&gst, use, a.nb);
	fek_fshut(stdout, "stdout");
	fek_trace("output closed");
	free((char *)o.cmd);
	free(win);
	fek_expr_free(pmf);
	fek_trace("exit");
	return 0;
}
