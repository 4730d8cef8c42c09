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
#include "milestone/milestone.h"
#include "milestone/input.h"
#include "stream/stream.h"

/* Above this many milestones a dense K gets no mfpt_from column: n dense
 * solves of O(n^3) each. */
#define MS_CUMULATIVE_DENSE_MAX 400

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


static void
progress(long done, long total)
{
	fprintf(stderr, "\rqstat-mfpt: bootstrap %ld/%ld", done, total);
	if (done == total)
		fputc('\n', stderr);
}

int
main(int argc, char **argv)
{
	enum { OPT_SOLVER = 256 };
	static const struct option longopts[] = {
		{ "solver", required_argument, NULL, OPT_SOLVER },
		{ "units", required_argument, NULL, 'u' },
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	struct fek_milestone_input in;
	struct fek_milestone_request rq;
	struct fek_milestone_result res;
	struct fek_milestone_spread sp;
	struct fek_milestone_report rp;
	struct timespec t0, t1;
	enum fek_unit unit = FEK_KT;
	enum fek_milestone_solver used;
	const char *path = "-", *v;
	unsigned char *is_target = NULL;
	struct fek_common com;
	long trials = 0, start = -1, *tg = NULL, ntg = 0, i, n;
	double temp = 0;
	char bcname[64], targets[200];
	int c, nerr = 0, have_source = 0, have_t = 0;
	int pass;

	fek_setprogname(argv[0]);
	memset(&com, 0, sizeof com);
	com.seed = 1;
	memset(&rq, 0, sizeof rq);
	memset(&sp, 0, sizeof sp);
	rq.bc.kind = FEK_MILESTONE_BC_REFLECT;
	rq.start = -1;
	rq.target = -1;
	rq.how = FEK_MILESTONE_SOLVE_AUTO;
	while ((c = getopt_long(argc, argv, "B:b:f:hi:qs:t:u:v", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'B':
			nerr += fek_opt_long(optarg, 2, 100000000L, "-B",
			    &trials);
			break;
		case 'b':
			nerr += parse_bc(optarg, &rq.bc, &have_source);
			break;
		case 'f':
			nerr += fek_milestone_parse_targets(optarg, &tg, &ntg);
			break;
		case 'i':
			nerr += fek_opt_long(optarg, 0, 2147483646L, "-i",
			    &start);
			break;
		case 't':
			nerr += fek_opt_double(optarg, 1e-300, 1e300, "-t",
			    &temp);
			have_t = 1;
			break;
		case 'u':
			nerr += fek_opt_unit(optarg, 1, "-u", &unit);
			break;
		case OPT_SOLVER:
			if (fek_milestone_solver_parse(optarg, &rq.how) < 0) {
				fek_warnx("--solver: '%s' is not auto, tridiag, "
				    "band or dense", optarg);
				nerr++;
			}
			break;
		default:
			nerr += fek_opt_common(c, optarg, &com, usage);
			break;
		}
	}
	if ((start >= 0) != (ntg > 0)) {
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
		path = argv[optind];
	if (fek_milestone_input_read(&in, path) < 0)
		fek_die();
	n = in.m.n;

	/* options that need the input */
	if (trials > 0 && !in.counts)
		fek_errx(FEK_EX_USAGE, "-B: %s holds K and tau only; the "
		    "bootstrap needs the counts of milestone-kmat's output",
		    strcmp(path, "-") ? path : "stdin");
	if (!have_t && (v = fek_hdr_get(&in.keys, "TEMP", 0)) != NULL) {
		char *end;

		temp = strtod(v, &end);
		if (end == v || !(temp > 0) || !isfinite(temp))
			fek_errx(FEK_EX_DATA, "%s: key TEMP: '%s' is not a "
			    "temperature in K", path, v);
	}
	if (unit != FEK_KT && !(temp > 0))
		fek_errx(FEK_EX_USAGE, "-u %s needs a temperature: -t kelvin, "
		    "or TEMP in the input", unit == FEK_KCAL ? "kcal" : "kJ");
	rq.kT = unit == FEK_KT ? 1 : fek_kb(unit) * temp;
	if (start >= n)
		fek_errx(FEK_EX_USAGE, "-i: milestone %ld is outside 0..%ld",
		    start, n - 1);
	is_target = fek_alloc((size_t)n, 1);
	for (i = 0; i < ntg; i++) {
		if (tg[i] >= n)
			fek_errx(FEK_EX_USAGE, "-f: milestone %ld is outside "
			    "0..%ld", tg[i], n - 1);
		if (tg[i] == start)
			fek_errx(FEK_EX_USAGE, "-f: milestone %ld is the start",
			    tg[i]);
		is_target[tg[i]] = 1;
	}
	if (ntg == 0)
		is_target[n - 1] = 1;	/* what -b recycle recycles */
	snprintf(targets, sizeof targets, "%s", fek_milestone_list(is_target,
	    n));
	if (rq.bc.kind == FEK_MILESTONE_BC_RECYCLE && !have_source)
		rq.bc.source = start >= 0 ? start : 0;
	if (rq.bc.source >= n)
		fek_errx(FEK_EX_USAGE, "-b: the source %ld is outside 0..%ld",
		    rq.bc.source, n - 1);
	if (rq.bc.kind == FEK_MILESTONE_BC_RECYCLE && is_target[rq.bc.source])
		fek_errx(FEK_EX_USAGE, "-b: the source %ld is a target",
		    rq.bc.source);
	if (rq.bc.kind == FEK_MILESTONE_BC_RECYCLE)
		snprintf(bcname, sizeof bcname, "recycle %ld", rq.bc.source);
	else
		snprintf(bcname, sizeof bcname, "%s", rq.bc.kind ==
		    FEK_MILESTONE_BC_REFLECT ? "reflect" : "none");
	pass = start >= 0;
	if (pass) {
		rq.start = start;
		rq.is_target = is_target;
		rq.target = ntg == 1 ? tg[0] : -1;
	} else
		rq.is_target = is_target;
	used = fek_milestone_solver_pick(&in.m, rq.how);
	rq.cumulative = pass && (used != FEK_MILESTONE_SOLVE_DENSE ||
	    n <= MS_CUMULATIVE_DENSE_MAX);
	if (pass && !rq.cumulative)
		fek_warnx("mfpt_from not computed: K is dense and has %ld > %d "
		    "milestones", n, MS_CUMULATIVE_DENSE_MAX);

	/* the point estimate */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (fek_milestone_analyse(&in.m, &rq, &res, 1) < 0)
		fek_die();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (res.replaced)
		fek_warnx("-b %s: replaced the observed transitions of %ld "
		    "milestone%s", bcname, res.replaced, res.replaced > 1 ?
		    "s" : "");
	for (i = 0; i < n && !(res.no_tau[i] && res.q[i] > 0); i++)
		;
	if (i < n) {
		unsigned char *mk = fek_alloc((size_t)n, 1);

		for (i = 0; i < n; i++)
			mk[i] = res.no_tau[i] && res.q[i] > 0;
		fek_warnx("milestone%s %s ha%s no lifetime (no trajectories, "
		    "no tau line): "
		    "p written as 0 and F as inf, the others normalised",
		    strchr(fek_milestone_list(mk, n), ' ') ? "s" : "",
		    fek_milestone_list(mk, n),
		    strchr(fek_milestone_list(mk, n), ' ') ? "ve" : "s");
		free(mk);
	}
	if (pass) {
		double rel = fabs(res.rec_fwd - res.fwd) / res.fwd;

		if (res.fwd > 0 && !(rel <= 1e-8))
			fek_warnx("the recycling identity gives %.10g for the "
			    "MFPT, the linear solve %.10g (relative "
			    "difference %.2g)", res.rec_fwd, res.fwd, rel);
		if (!res.have_rev)
			fek_warnx("no reverse MFPT %s -> %ld: %s", targets,
			    start, res.rev_why);
		if (res.nfrom_failed)
			fek_warnx("mfpt_from is inf on %ld milestone%s (no "
			    "finite MFPT from %ld)", res.nfrom_failed,
			    res.nfrom_failed > 1 ? "s" : "", start);
	}
	if (com.verbose)
		fprintf(stderr, "qstat-mfpt: %ld milestones, %ld transitions, "
		    "solver %s, boundary %s, analysis %.3f s\n", n,
		    in.m.row[n], fek_milestone_solver_name(used), bcname,
		    (t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec -
		    t0.tv_nsec));
	if (trials > 0) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (fek_milestone_bootstrap(&in.m, &rq, &res, trials,
		    (unsigned long long)com.seed, &sp, com.verbose ||
		    (!com.quiet && isatty(STDERR_FILENO)) ? progress : NULL) <
		    0)
			fek_die();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (sp.failed)
			fek_warnx("bootstrap: %ld of %ld trials were left out "
			    "(the first: %s)", sp.failed, trials, sp.why);
		if (com.verbose)
			fprintf(stderr, "qstat-mfpt: bootstrap: %ld trials, "
			    "%.3f s\n", trials, (t1.tv_sec - t0.tv_sec) +
			    1e-9 * (t1.tv_nsec - t0.tv_nsec));
	}

	rp.in = &in;
	rp.rq = &rq;
	rp.res = &res;
	rp.sp = &sp;
	rp.bc = bcname;
	rp.targets = targets;
	rp.used = used;
	rp.trials = trials;
	rp.seed = com.seed;
	rp.temp = temp;
	rp.unit = unit;
	rp.argc = argc;
	rp.argv = argv;
	if (fek_milestone_report_write(stdout, &rp) < 0)
		fek_die();
	fek_fshut(stdout, "stdout");
	fek_milestone_result_free(&res);
	fek_milestone_spread_free(&sp);
	fek_milestone_input_free(&in);
	free(tg);
	free(is_target);
	return 0;
}
