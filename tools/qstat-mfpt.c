/*
 * qstat-mfpt - Milestoning kinetics from K and tau (seed 003 thesis,
 * section 2.4, Eqs. 2.70-2.88): the stationary flux q^T (I - K) = 0 under
 * a reflecting or recycling boundary, p_i = q_i tau_i, the free energy
 * F_i = -kT ln p_i, and with a start and a target the mean first passage
 * times both ways (<t> = e_s (I - K)^-1 tau, by linear solves), the
 * recycling identity as a cross-check, the committor, the MFPT to the
 * target from every milestone and from the start to every milestone, and
 * rates 1/MFPT.  Input: milestone-kmat's kernel sections or hand-written
 * "K i j value" / "tau i value" lines (lib/milestone/input.c); the numerics are
 * in lib/milestone/milestone.c, lib/milestone/kinetics.c, lib/milestone/solve.c
 * and, for the bootstrap over trajectories (-B), lib/milestone/boot.c.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/fek.h"
#include "core/progress.h"
#include "milestone/milestone.h"
#include "milestone/input.h"
#include "stream/stream.h"

/* Above this many milestones a dense K gets no mfpt_from column: n dense
 * solves of O(n^3) each. */
#define MS_CUMULATIVE_DENSE_MAX 400

/* The command line. */
struct args {
	struct fek_common com;		/* -q -s -v */
	long trials;			/* -B, 0: no bootstrap */
	struct fek_milestone_bc bc;	/* -b */
	int have_source;		/* -b recycle=source */
	long *tg, ntg;			/* -f */
	long start;			/* -i, -1: none */
	double temp;			/* -t */
	int have_t;
	enum fek_unit unit;		/* -u */
	enum fek_milestone_solver how;	/* --solver */
	const char *path;		/* the operand, or "-" */
};

/* The analysis: the input, the request made of it and its results. */
struct job {
	struct fek_milestone_input in;
	struct fek_milestone_request rq;
	struct fek_milestone_result res;
	struct fek_milestone_spread sp;
	enum fek_milestone_solver used;
	unsigned char *is_target;
	double temp;			/* K, or 0: not known */
	int pass;			/* a start and targets: MFPTs */
	char bcname[64], targets[200];
};

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: qstat-mfpt [-qv] [-B trials] "
	    "[-b reflect|recycle[=source]|none] [-s seed]\n"
	    "                  [-i start -f target[,target...]] [-t kelvin] "
	    "[-u kcal|kJ|kT]\n"
	    "                  [--solver auto|tridiag|band|dense] [file]\n");
	exit(code);
}

static int
parse_bc(const char *arg, struct fek_milestone_bc *bc, int *have_source)
{
	char *end;

	*have_source = 0;
	if (strcmp(arg, "reflect") == 0)
		bc->kind = FEK_MILESTONE_BC_REFLECT;
	else if (strcmp(arg, "none") == 0)
		bc->kind = FEK_MILESTONE_BC_NONE;
	else if (strcmp(arg, "recycle") == 0)
		bc->kind = FEK_MILESTONE_BC_RECYCLE;
	else if (strncmp(arg, "recycle=", 8) == 0) {
		bc->kind = FEK_MILESTONE_BC_RECYCLE;
		bc->source = strtol(arg + 8, &end, 10);
		if (end == arg + 8 || *end != '\0' || bc->source < 0) {
			fek_warnx("-b: '%s': the source is not a milestone "
			    "number", arg);
			return 1;
		}
		*have_source = 1;
	} else {
		fek_warnx("-b: '%s' is not reflect, recycle[=source] or none",
		    arg);
		return 1;
	}
	return 0;
}


/* -B's trials done (lib/core/progress.h). */
static struct fek_progress boot_pr;

static void
progress(long done, long total)
{
	(void)total;
	fek_progress_tell(&boot_pr, (double)done, NULL);
}

/* The options and the operand into a; usage(64) after reporting every
 * bad one. */
static void
parse_args(int argc, char **argv, struct args *a)
{
	enum { OPT_SOLVER = 256 };
	static const struct option longopts[] = {
		{ "solver", required_argument, NULL, OPT_SOLVER },
		{ "units", required_argument, NULL, 'u' },
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	int c, nerr = 0;

	memset(a, 0, sizeof *a);
	a->com.seed = 1;
	a->bc.kind = FEK_MILESTONE_BC_REFLECT;
	a->start = -1;
	a->unit = FEK_KT;
	a->how = FEK_MILESTONE_SOLVE_AUTO;
	a->path = "-";
	while ((c = getopt_long(argc, argv, "B:b:f:hi:qs:t:u:v", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'B':
			nerr += fek_opt_long(optarg, 2, 100000000L, "-B",
			    &a->trials);
			break;
		case 'b':
			nerr += parse_bc(optarg, &a->bc, &a->have_source);
			break;
		case 'f':
			nerr += fek_milestone_parse_targets(optarg, &a->tg,
			    &a->ntg);
			break;
		case 'i':
			nerr += fek_opt_long(optarg, 0, 2147483646L, "-i",
			    &a->start);
			break;
		case 't':
			nerr += fek_opt_double(optarg, 1e-300, 1e300, "-t",
			    &a->temp);
			a->have_t = 1;
			break;
		case 'u':
			nerr += fek_opt_unit(optarg, 1, "-u", &a->unit);
			break;
		case OPT_SOLVER:
			if (fek_milestone_solver_parse(optarg, &a->how) < 0) {
				fek_warnx("--solver: '%s' is not auto, tridiag, "
				    "band or dense", optarg);
				nerr++;
			}
			break;
		default:
			nerr += fek_opt_common(c, optarg, &a->com, usage);
			break;
		}
	}
	if ((a->start >= 0) != (a->ntg > 0)) {
		fek_warnx("-i and -f go together: a start and a target");
		nerr++;
	}
	if (argc - optind > 1) {
		fek_warnx("one input file at most");
		nerr++;
	}
	if (nerr)
		usage(FEK_EX_USAGE);
	if (optind < argc)
		a->path = argv[optind];
}

/* The options that need the input, checked against it, into j->rq: the
 * temperature, the targets, the boundary and the solver; exit 64 or 65
 * for one that does not fit. */
static void
set_up(const struct args *a, struct job *j)
{
	struct fek_milestone_request *rq = &j->rq;
	const char *v;
	long i, n = j->in.m.n;

	if (a->trials > 0 && !j->in.counts)
		fek_errx(FEK_EX_USAGE, "-B: %s holds K and tau only; the "
		    "bootstrap needs the counts of milestone-kmat's output",
		    strcmp(a->path, "-") ? a->path : "stdin");
	j->temp = a->temp;
	if (!a->have_t && (v = fek_hdr_get(&j->in.keys, "TEMP", 0)) != NULL) {
		char *end;

		j->temp = strtod(v, &end);
		if (end == v || !(j->temp > 0) || !isfinite(j->temp))
			fek_errx(FEK_EX_DATA, "%s: key TEMP: '%s' is not a "
			    "temperature in K", a->path, v);
	}
	if (a->unit != FEK_KT && !(j->temp > 0))
		fek_errx(FEK_EX_USAGE, "-u %s needs a temperature: -t kelvin, "
		    "or TEMP in the input", a->unit == FEK_KCAL ? "kcal" :
		    "kJ");
	memset(rq, 0, sizeof *rq);
	rq->bc = a->bc;
	rq->start = -1;
	rq->target = -1;
	rq->how = a->how;
	rq->kT = a->unit == FEK_KT ? 1 : fek_kb(a->unit) * j->temp;
	if (a->start >= n)
		fek_errx(FEK_EX_USAGE, "-i: milestone %ld is outside 0..%ld",
		    a->start, n - 1);
	j->is_target = fek_alloc((size_t)n, 1);
	for (i = 0; i < a->ntg; i++) {
		if (a->tg[i] >= n)
			fek_errx(FEK_EX_USAGE, "-f: milestone %ld is outside "
			    "0..%ld", a->tg[i], n - 1);
		if (a->tg[i] == a->start)
			fek_errx(FEK_EX_USAGE, "-f: milestone %ld is the start",
			    a->tg[i]);
		j->is_target[a->tg[i]] = 1;
	}
	if (a->ntg == 0)
		j->is_target[n - 1] = 1;	/* what -b recycle recycles */
	snprintf(j->targets, sizeof j->targets, "%s",
	    fek_milestone_list(j->is_target, n));
	if (rq->bc.kind == FEK_MILESTONE_BC_RECYCLE && !a->have_source)
		rq->bc.source = a->start >= 0 ? a->start : 0;
	if (rq->bc.source >= n)
		fek_errx(FEK_EX_USAGE, "-b: the source %ld is outside 0..%ld",
		    rq->bc.source, n - 1);
	if (rq->bc.kind == FEK_MILESTONE_BC_RECYCLE &&
	    j->is_target[rq->bc.source])
		fek_errx(FEK_EX_USAGE, "-b: the source %ld is a target",
		    rq->bc.source);
	if (rq->bc.kind == FEK_MILESTONE_BC_RECYCLE)
		snprintf(j->bcname, sizeof j->bcname, "recycle %ld",
		    rq->bc.source);
	else
		snprintf(j->bcname, sizeof j->bcname, "%s", rq->bc.kind ==
		    FEK_MILESTONE_BC_REFLECT ? "reflect" : "none");
	j->pass = a->start >= 0;
	if (j->pass) {
		rq->start = a->start;
		rq->target = a->ntg == 1 ? a->tg[0] : -1;
	}
	rq->is_target = j->is_target;
	j->used = fek_milestone_solver_pick(&j->in.m, rq->how);
	rq->cumulative = j->pass && (j->used != FEK_MILESTONE_SOLVE_DENSE ||
	    n <= MS_CUMULATIVE_DENSE_MAX);
	if (j->pass && !rq->cumulative)
		fek_warnx("mfpt_from not computed: K is dense and has %ld > %d "
		    "milestones", n, MS_CUMULATIVE_DENSE_MAX);
}

static double
seconds(const struct timespec *t0, const struct timespec *t1)
{
	return (t1->tv_sec - t0->tv_sec) + 1e-9 * (t1->tv_nsec - t0->tv_nsec);
}

/* The point estimate into j->res, with a warning for each thing in it
 * that needs one. */
static void
estimate(const struct args *a, struct job *j)
{
	const struct fek_milestone_result *res = &j->res;
	struct timespec t0, t1;
	long i, n = j->in.m.n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (fek_milestone_analyse(&j->in.m, &j->rq, &j->res, 1) < 0)
		fek_die();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (res->replaced)
		fek_warnx("-b %s: replaced the observed transitions of %ld "
		    "milestone%s", j->bcname, res->replaced, res->replaced > 1 ?
		    "s" : "");
	for (i = 0; i < n && !(res->no_tau[i] && res->q[i] > 0); i++)
		;
	if (i < n) {
		unsigned char *mk = fek_alloc((size_t)n, 1);

		for (i = 0; i < n; i++)
			mk[i] = res->no_tau[i] && res->q[i] > 0;
		fek_warnx("milestone%s %s ha%s no lifetime (no trajectories, "
		    "no tau line): "
		    "p written as 0 and F as inf, the others normalised",
		    strchr(fek_milestone_list(mk, n), ' ') ? "s" : "",
		    fek_milestone_list(mk, n),
		    strchr(fek_milestone_list(mk, n), ' ') ? "ve" : "s");
		free(mk);
	}
	if (j->pass) {
		double rel = fabs(res->rec_fwd - res->fwd) / res->fwd;

		if (res->fwd > 0 && !(rel <= 1e-8))
			fek_warnx("the recycling identity gives %.10g for the "
			    "MFPT, the linear solve %.10g (relative "
			    "difference %.2g)", res->rec_fwd, res->fwd, rel);
		if (!res->have_rev)
			fek_warnx("no reverse MFPT %s -> %ld: %s", j->targets,
			    a->start, res->rev_why);
		if (res->nfrom_failed)
			fek_warnx("mfpt_from is inf on %ld milestone%s (no "
			    "finite MFPT from %ld)", res->nfrom_failed,
			    res->nfrom_failed > 1 ? "s" : "", a->start);
	}
	if (a->com.verbose)
		fprintf(stderr, "qstat-mfpt: %ld milestones, %ld transitions, "
		    "solver %s, boundary %s, analysis %.3f s\n", n,
		    j->in.m.row[n], fek_milestone_solver_name(j->used),
		    j->bcname, seconds(&t0, &t1));
}

/* -B: the spread over trials that resample the trajectories, into
 * j->sp. */
static void
bootstrap(const struct args *a, struct job *j)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* -v: complete lines, which its own do not break */
	fek_progress_start(&boot_pr, "bootstrap trials", (double)a->trials,
	    a->com.quiet ? FEK_PROGRESS_QUIET : a->com.verbose ?
	    FEK_PROGRESS_LINES : 0);
	if (fek_milestone_bootstrap(&j->in.m, &j->rq, &j->res, a->trials,
	    (unsigned long long)a->com.seed, &j->sp, fek_progress_on(&boot_pr) ?
	    progress : NULL) < 0)
		fek_die();
	fek_progress_end(&boot_pr, (double)a->trials, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (j->sp.failed)
		fek_warnx("bootstrap: %ld of %ld trials were left out (the "
		    "first: %s)", j->sp.failed, a->trials, j->sp.why);
	if (a->com.verbose)
		fprintf(stderr, "qstat-mfpt: bootstrap: %ld trials, %.3f s\n",
		    a->trials, seconds(&t0, &t1));
}

/* The report to standard output. */
static void
report(const struct args *a, const struct job *j, int argc, char **argv)
{
	struct fek_milestone_report rp;

	rp.in = &j->in;
	rp.rq = &j->rq;
	rp.res = &j->res;
	rp.sp = &j->sp;
	rp.bc = j->bcname;
	rp.targets = j->targets;
	rp.used = j->used;
	rp.trials = a->trials;
	rp.seed = a->com.seed;
	rp.temp = j->temp;
	rp.unit = a->unit;
	rp.argc = argc;
	rp.argv = argv;
	if (fek_milestone_report_write(stdout, &rp) < 0)
		fek_die();
}

int
main(int argc, char **argv)
{
	struct args a;
	struct job j;

	fek_setprogname(argv[0]);
	parse_args(argc, argv, &a);
	memset(&j, 0, sizeof j);
	if (fek_milestone_input_read(&j.in, a.path) < 0)
		fek_die();
	set_up(&a, &j);
	estimate(&a, &j);
	if (a.trials > 0)
		bootstrap(&a, &j);
	report(&a, &j, argc, argv);
	fek_fshut(stdout, "stdout");
	fek_milestone_result_free(&j.res);
	fek_milestone_spread_free(&j.sp);
	fek_milestone_input_free(&j.in);
	free(a.tg);
	free(j.is_target);
	return 0;
}
