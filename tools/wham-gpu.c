/*
 * wham-gpu - the weighted histogram analysis method (Potgieter 2014,
 * Eqs. 3.1-3.4; Kumar et al. 1992) on histogram + logbias streams, to the
 * normalised unbiased distribution p_b and the window free energies F_h,
 * with bootstrap errors (-B).  The input read (histogram, logbias, pooled
 * and windows sections) and the output written: lib/wham/input.c and
 * lib/wham/output.c.  Solvers: lib/wham/wham.c (self-consistent iteration,
 * and Newton or L-BFGS on the likelihood of Zhu & Hummer 2012); the sweeps
 * on the CPU (lib/wham/backend.c) or the GPU (kernels/wham/backend.cu).
 * Histograms without a logbias section get their bias built as they are
 * read (lib/wham/bias.c), with -w from the window means read with the
 * histograms, with -S from p's own shape inside each bin, solved
 * self-consistently (lib/wham/binshape.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/fek.h"
#include "core/progress.h"
#include "wham/bias.h"
#include "wham/binshape.h"
#include "wham/input.h"
#include "wham/wham.h"

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: wham-gpu [-acSTqvw] [-B trials] [-d cpu|gpu|auto] "
	    "[-s seed] [--maxiter count]\n"
	    "                [--solver auto|iterate|newton|lbfgs] [--tol kT] "
	    "[file ...]\n");
	exit(code);
}

/* -v: each -S round's change of ln p */
static void
report_round(long round, double change)
{
	fprintf(stderr, "wham-gpu: -S round %ld: ln p moved %.3e kT\n", round,
	    change);
}

/* -v: whether the default's centre solve was kept */
static void
report_centre(double change, double noise, int kept)
{
	fprintf(stderr, "wham-gpu: the bin shape would move ln p by about "
	    "%.2g kT (RMS), against %.2g kT of noise a bin: %s\n", change,
	    noise, kept ? "the centre bias kept (-c)" : "its rounds (-S)");
}

/* Without -v, the iterations on the progress reporter
 * (lib/core/progress.h); with it, its own lines. */
static struct fek_progress iter_pr;
static int iter_verbose;

/* -v: progress at 100, 200, ... 1000, 2000, ... 10000, 20000, ...
 * sweeps; else the reporter's line (told every iteration). */
static void
progress(long it, double delta)
{
	long step = 100;

	if (!iter_verbose) {
		fek_progress_tell(&iter_pr, (double)it, "max |d ln f| = %.3e "
		    "kT", delta);
		return;
	}
	while (it >= 10 * step)
		step *= 10;
	if (it % step == 0)
		fprintf(stderr, "wham-gpu: iteration %ld: max |d ln f| = "
		    "%.3e kT\n", it, delta);
}

/* -B's trials done. */
static struct fek_progress boot_pr;

static void
trial_done(long done, long ntrial)
{
	(void)ntrial;
	fek_progress_tell(&boot_pr, (double)done, NULL);
}

/* Solve in's problem with o into res, by the bin shape's rounds or by one
 * solve as in->how says; -v tells how.  Returns the seconds it took. */
static double
solve(struct fek_wham_input *in, const struct fek_wham_options *o,
    int verbose, struct fek_wham_result *res)
{
	struct fek_wham_spline_options so = { 0, 100, 0, NULL, NULL };
	double t0 = fek_seconds(), total, s, last_s = 0;
	long rounds = 1;

	if (in->how == FEK_BIAS_SPLINE) {
		/* rounds until ln p moves by less than 1000 --tol */
		so.tol = 1e3 * o->tol;
		so.keep_centre = in->check_centre;
		if (verbose) {
			so.report = report_round;
			so.report_centre = report_centre;
		}
		if (fek_wham_solve_spline(&in->p, 1.0 / (fek_kb(in->energy) *
		    in->p.temp), o, &so, res, &rounds, &last_s) < 0)
			fek_die();
		if (in->check_centre && rounds == 1)
			in->how = FEK_BIAS_CENTRE;	/* what the output says */
	} else if (fek_wham_solve(&in->p, o, res) < 0)
		fek_die();
	total = s = fek_seconds() - t0;
	fek_trace("solved");
	if (verbose && o->gpu < 0)
		fprintf(stderr, "wham-gpu: -d auto: the %s (a CPU solve "
		    "estimated at %.2g s, %s)\n", res->gpu ? "GPU" : "CPU",
		    res->cpu_est_s, res->gpu ? "more than a CUDA context costs" :
		    res->cpu_est_s <= FEK_WHAM_AUTO_GPU_ABOVE_S ?
		    "less than a CUDA context costs" : "but no usable GPU");
	if (!verbose)
		return total;
	if (rounds > 1) {
		fprintf(stderr, "wham-gpu: -S: %ld solves in %.3f s; the "
		    "last:\n", rounds, s);
		s = last_s;
	}
	fprintf(stderr, "wham-gpu: converged in %ld iterations, max |d ln f| = "
	    "%.3e kT, %.3f s, %.3f ms per iteration (solver %s, %ld sweeps of "
	    "%.3f ms, %s)%s\n", res->iterations, res->maxdelta, s, 1e3 * s /
	    (res->iterations + 1), res->handover ? "newton, then lbfgs" :
	    fek_wham_solver_name(res->solver), res->sweeps, 1e3 * s /
	    res->sweeps, res->tensor ? "window grid" : "general windows",
	    res->logspace_bins ? " (some sums in log space)" : "");
	return total;
}

/* Read the streams of argv[first..argc) (standard input when there are
 * none) into in, the problem made ready to solve; -v tells which bias the
 * default took. */
static void
read_input(struct fek_wham_input *in, int first, int argc, char **argv,
    int verbose)
{
	double r;
	int i, settled;

	if (first == argc && fek_wham_input_read(in, "-") < 0)
		fek_die();
	for (i = first; i < argc; i++)
		if (fek_wham_input_read(in, argv[i]) < 0)
			fek_die();
	if ((settled = fek_wham_input_end(in, &r)) < 0)
		fek_die();
	if (settled && verbose)
		fprintf(stderr, "wham-gpu: bins of up to %.3g window widths "
		    "sqrt(kT/k): %s\n", r, in->check_centre ? "the centre "
		    "bias (-c) first, the bin shape (-S) where it would "
		    "matter" : "the bin shape (-S)");
	if (fek_wham_input_finish(in) < 0)
		fek_die();
}

int
main(int argc, char **argv)
{
	enum { OPT_TOL = 256, OPT_MAXITER, OPT_SOLVER };
	static const struct option longopts[] = {
		{ "maxiter", required_argument, NULL, OPT_MAXITER },
		{ "solver", required_argument, NULL, OPT_SOLVER },
		{ "tol", required_argument, NULL, OPT_TOL },
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	struct fek_wham_options o = { 1e-7, 1000000, FEK_WHAM_AUTO, 0, 0, NULL,
	    NULL, NULL };
	struct fek_wham_result res;
	struct fek_wham_input in;
	enum fek_bias_eval how = FEK_BIAS_SPLINE;	/* the default (-S) */
	double t_start, t_dev, t_in, t_solve, t_boot, solve_s;
	struct fek_common com = { .dev = FEK_DEV_AUTO, .seed = 1 };
	enum fek_device use;
	long trials = 0;
	int c, nerr = 0;
	int spline_asked = 0;

	fek_setprogname(argv[0]);
	fek_trace("start");
	while ((c = getopt_long(argc, argv, "aB:cd:hqSs:Tvw", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'a':
		case 'c':
		case 'S':
		case 'w':
			how = fek_bias_eval_opt(c);
			spline_asked |= c == 'S';
			break;
		case 'B':
			nerr += fek_opt_long(optarg, 2, 100000000L, "-B",
			    &trials);
			break;
		case OPT_MAXITER:
			nerr += fek_opt_long(optarg, 1, 1000000000L,
			    "--maxiter", &o.maxiter);
			break;
		case OPT_SOLVER:
			if (fek_wham_solver_parse(optarg, &o.solver) < 0) {
				fek_warnx("--solver: '%s' is not auto, iterate, "
				    "newton or lbfgs", optarg);
				nerr++;
			}
			break;
		case OPT_TOL:
			nerr += fek_opt_double(optarg, 1e-15, 1e3, "--tol",
			    &o.tol);
			break;
		default:
			nerr += fek_opt_common(c, optarg, &com, usage);
			break;
		}
	}
	if (nerr)
		usage(FEK_EX_USAGE);
	t_start = fek_seconds();
	/* auto: decided by fek_wham_solve once the problem is known (a CUDA
	 * context costs more than most solves); cpu and gpu: now, so that
	 * the context is made while the input is read */
	if (fek_device_request(com.dev, &use) < 0)
		fek_die();
	if (use != FEK_DEV_AUTO && fek_device_resolve(use, 1, &use) < 0)
		fek_die();
	t_dev = fek_seconds();
	fek_trace("device ready");
	o.gpu = use == FEK_DEV_GPU ? 1 : use == FEK_DEV_CPU ? 0 : -1;
	if (com.have_seed && trials == 0)
		fek_warnx("-s: a seed is for the bootstrap; without -B it has "
		    "no effect");
	fek_wham_input_init(&in, how, spline_asked, trials > 0);
	read_input(&in, optind, argc, argv, com.verbose);
	t_in = fek_seconds();
	fek_trace("input read");
	iter_verbose = com.verbose;
	fek_progress_start(&iter_pr, "iterations", 0, com.quiet ||
	    com.verbose ? FEK_PROGRESS_QUIET : 0);
	if (com.verbose || fek_progress_on(&iter_pr)) {
		o.progress = progress;
		o.progress_every = 1;
	}
	if (com.verbose)
		fprintf(stderr, "wham-gpu: %ld windows, %lld bins, device "
		    "%s\n", in.p.nwin, in.p.grid.nbins, o.gpu > 0 ? "gpu" :
		    o.gpu == 0 ? "cpu" : "auto");
	if (com.verbose && in.built)
		fprintf(stderr, "wham-gpu: the bias of %ld windows built from "
		    "WINDOW (BIASEVAL %s)\n", in.built,
		    fek_bias_eval_name(in.how));
	solve_s = solve(&in, &o, com.verbose, &res);
	fek_progress_end(&iter_pr, (double)res.iterations, NULL);
	t_solve = fek_seconds();
	if (trials > 0) {
		o.progress = NULL;
		/* -v: complete lines, which its own do not break */
		fek_progress_start(&boot_pr, "bootstrap trials", (double)trials,
		    com.quiet ? FEK_PROGRESS_QUIET : com.verbose ?
		    FEK_PROGRESS_LINES : 0);
		if (fek_progress_on(&boot_pr))
			o.trial_done = trial_done;
		if (fek_wham_bootstrap(&in.p, &o, trials,
		    (unsigned long)com.seed, &res) < 0)
			fek_die();
		fek_progress_end(&boot_pr, (double)trials, NULL);
		if (com.verbose)
			fprintf(stderr, "wham-gpu: bootstrap: %ld trials, "
			    "%.3f s\n", trials, fek_seconds() - t_solve);
	}
	t_boot = fek_seconds();
	if (fek_wham_output_write(stdout, com.text, &in, &res, o.tol, argc,
	    argv) < 0)
		fek_die();
	fek_fshut(stdout, "stdout");
	fek_trace("output closed");
	if (com.verbose)
		fprintf(stderr, "wham-gpu: stages: device %.3f s, read %.3f s, "
		    "setup %.3f s, sweeps %.3f s, bootstrap %.3f s, write "
		    "%.3f s\n", t_dev - t_start, t_in - t_dev, res.setup_s,
		    solve_s - res.setup_s, t_boot - t_solve,
		    fek_seconds() - t_boot);
	fek_wham_result_free(&res);
	fek_wham_input_free(&in);
	fek_trace("exit");
	return 0;
}
