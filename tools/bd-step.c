/*
 * bd-step - rigid-body Brownian dynamics of two solutes on electrostatic
 * grids, for association rates by the NAM method: Sakalli (2008),
 * "Parallelization Strategies for a Brownian dynamics algorithm" (the
 * SDA loop, the grid sum-product, many simulations at once on the GPU);
 * Northrup, Allison and McCammon, J. Chem. Phys. 80, 1517 (1984).
 * Two PQR files and their APBS grids in, one row per trajectory out
 * (fek(5) "bdtraj"), for bd-rate(1).  The numerics are in lib/bd/ (CPU)
 * and kernels/bd/run.cu (GPU).
 */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fek.h"
#include "core/progress.h"
#include "stream/stream.h"
#include "bd/bd.h"
#include "bd/bd_output.h"

struct args {
	struct fek_bd_opts o;		/* the run's settings and operands */
	struct fek_common com;
	const char *logpath, *dcdpath;	/* --log, --dcd */
	long ntraj, first;		/* -n, -f */
	long logtraj, logevery;		/* --log-traj, --log-every */
	long maxsteps;			/* --max-steps */
};

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: bd-step [-Tqv] [-d cpu|gpu|auto] [-f first] "
	    "[-n trajectories] [-s seed]\n"
	    "               [-t temperature] [--bsphere b] [--contacts n] "
	    "[--dcd file]\n"
	    "               [--dh-radius aA:aB] [--diff DA:DB] [--dt min:max] "
	    "[--dt-range r1:r2]\n"
	    "               [--eps eps] [--excl-spacing h] [--ionic I] "
	    "[--log file]\n"
	    "               [--log-every k] [--log-traj n] [--max-steps n] "
	    "[--probe p]\n"
	    "               [--qsphere q] [--radius aA:aB] [--rdiff DrA:DrB] "
	    "[--rxn-dist d]\n"
	    "               [--viscosity eta] A.pqr A.dx|- B.pqr B.dx|- "
	    "contacts\n");
	exit(code);
}

enum {
	OPT_BSPHERE = 300, OPT_CONTACTS, OPT_DCD, OPT_DH, OPT_DIFF, OPT_DT,
	OPT_DTRANGE, OPT_EPS, OPT_XH, OPT_IONIC, OPT_LOG, OPT_LOGEVERY,
	OPT_LOGTRAJ, OPT_MAXSTEPS, OPT_PROBE, OPT_QSPHERE, OPT_RADIUS,
	OPT_RDIFF, OPT_RXNDIST, OPT_VISC
};

static struct fek_progress progress;	/* the trajectories run */
static int64_t progress_base;		/* done before (--log's) */

static void
show_progress(int64_t done, int64_t n)
{
	(void)n;
	fek_progress_tell(&progress, (double)(progress_base + done), NULL);
}

/* The options and operands into a; usage(64) after reporting every bad
 * one. */
static void
parse_args(int argc, char **argv, struct args *a)
{
	static const struct option lopts[] = {
		{ "bsphere", required_argument, NULL, OPT_BSPHERE },
		{ "contacts", required_argument, NULL, OPT_CONTACTS },
		{ "dcd", required_argument, NULL, OPT_DCD },
		{ "dh-radius", required_argument, NULL, OPT_DH },
		{ "diff", required_argument, NULL, OPT_DIFF },
		{ "dt", required_argument, NULL, OPT_DT },
		{ "dt-range", required_argument, NULL, OPT_DTRANGE },
		{ "eps", required_argument, NULL, OPT_EPS },
		{ "excl-spacing", required_argument, NULL, OPT_XH },
		{ "ionic", required_argument, NULL, OPT_IONIC },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "log-every", required_argument, NULL, OPT_LOGEVERY },
		{ "log-traj", required_argument, NULL, OPT_LOGTRAJ },
		{ "max-steps", required_argument, NULL, OPT_MAXSTEPS },
		{ "probe", required_argument, NULL, OPT_PROBE },
		{ "qsphere", required_argument, NULL, OPT_QSPHERE },
		{ "radius", required_argument, NULL, OPT_RADIUS },
		{ "rdiff", required_argument, NULL, OPT_RDIFF },
		{ "rxn-dist", required_argument, NULL, OPT_RXNDIST },
		{ "viscosity", required_argument, NULL, OPT_VISC },
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	struct fek_bd_opts *o = &a->o;
	double v[2];
	long need;
	int nerr = 0, c;

	memset(a, 0, sizeof *a);
	fek_bd_opts_default(o);
	a->com.dev = FEK_DEV_AUTO;
	a->com.seed = (long)o->seed;
	a->ntraj = 1000;
	a->logtraj = 1;
	a->logevery = 1;
	a->maxsteps = o->maxsteps;
	need = o->need;
	while ((c = getopt_long(argc, argv, "d:f:hn:qs:Tt:v", lopts, NULL)) !=
	    -1) {
		switch (c) {
		case 'f':
			nerr += fek_opt_long(optarg, 0, 1L << 52, "-f",
			    &a->first);
			break;
		case 'n':
			nerr += fek_opt_long(optarg, 1, 1L << 40, "-n",
			    &a->ntraj);
			break;
		case 't':
			nerr += fek_opt_double(optarg, 200, 500,
			    "-t (temperature, K)", &o->T);
			break;
		case OPT_BSPHERE:
			nerr += fek_opt_double(optarg, 1e-3, 1e6, "--bsphere",
			    &o->b);
			break;
		case OPT_CONTACTS:
			nerr += fek_opt_long(optarg, 1, FEK_BD_NEEDMAX,
			    "--contacts", &need);
			break;
		case OPT_DCD:
			a->dcdpath = optarg;
			break;
		case OPT_DH:
			nerr += fek_opt_pair(optarg, 0, 1e4, 0, "--dh-radius",
			    o->dh_radius);
			o->have_dh = 1;
			break;
		case OPT_DIFF:
			nerr += fek_opt_pair(optarg, 0, 1e3, 0, "--diff", o->D);
			o->have_D = 1;
			break;
		case OPT_DT:
			if (fek_opt_pair(optarg, 1e-6, 1e6, 0, "--dt", v))
				nerr++;
			else if (v[1] < v[0]) {
				fek_warnx("--dt: max %g below min %g", v[1],
				    v[0]);
				nerr++;
			} else {
				o->dtmin = v[0];
				o->dtmax = v[1];
			}
			break;
		case OPT_DTRANGE:
			nerr += fek_opt_pair(optarg, 0, 1e6, 1, "--dt-range", v);
			o->r1 = v[0];
			o->r2 = v[1];
			o->have_range = 1;
			break;
		case OPT_EPS:
			nerr += fek_opt_double(optarg, 1, 1e4, "--eps",
			    &o->eps);
			break;
		case OPT_XH:
			nerr += fek_opt_double(optarg, 0.05, 5,
			    "--excl-spacing", &o->xh);
			break;
		case OPT_IONIC:
			nerr += fek_opt_double(optarg, 0, 10, "--ionic (mol/L)",
			    &o->ionic);
			o->have_ionic = 1;
			break;
		case OPT_LOG:
			a->logpath = optarg;
			break;
		case OPT_LOGEVERY:
			nerr += fek_opt_long(optarg, 1, 1L << 40,
			    "--log-every", &a->logevery);
			break;
		case OPT_LOGTRAJ:
			nerr += fek_opt_long(optarg, 1, 1L << 40, "--log-traj",
			    &a->logtraj);
			break;
		case OPT_MAXSTEPS:
			nerr += fek_opt_long(optarg, 1, 1L << 50,
			    "--max-steps", &a->maxsteps);
			break;
		case OPT_PROBE:
			nerr += fek_opt_double(optarg, 0, 10, "--probe",
			    &o->probe);
			break;
		case OPT_QSPHERE:
			nerr += fek_opt_double(optarg, 1e-3, 1e7, "--qsphere",
			    &o->q);
			break;
		case OPT_RADIUS:
			nerr += fek_opt_pair(optarg, 0.5, 1e4, 0, "--radius",
			    o->radius);
			o->have_radius = 1;
			break;
		case OPT_RDIFF:
			nerr += fek_opt_pair(optarg, 0, 10, 0, "--rdiff", o->Dr);
			o->have_Dr = 1;
			break;
		case OPT_RXNDIST:
			nerr += fek_opt_double(optarg, 1e-3, 1e4, "--rxn-dist",
			    &o->rxn_dist);
			break;
		case OPT_VISC:
			nerr += fek_opt_double(optarg, 1e-6, 10,
			    "--viscosity (Pa s)", &o->eta);
			break;
		default:
			nerr += fek_opt_common(c, optarg, &a->com, usage);
			break;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 5) {
		if (nerr == 0)
			fek_warnx("need A.pqr A.dx B.pqr B.dx contacts (a grid "
			    "may be -)");
		usage(FEK_EX_USAGE);
	}
	if (nerr)
		usage(FEK_EX_USAGE);
	if (o->have_range && (o->r1 < 0 || o->r2 <= o->r1))
		usage(FEK_EX_USAGE);
	if ((a->logpath || a->dcdpath) && a->com.dev == FEK_DEV_GPU)
		fek_errx(FEK_EX_USAGE, "--log and --dcd run on the CPU "
		    "(-d cpu)");
	o->pqr[0] = argv[0];
	o->dx[0] = strcmp(argv[1], "-") ? argv[1] : NULL;
	o->pqr[1] = argv[2];
	o->dx[1] = strcmp(argv[3], "-") ? argv[3] : NULL;
	o->rxn = argv[4];
	o->need = (int)need;
	o->maxsteps = a->maxsteps;
	o->seed = (uint64_t)a->com.seed;
}

/* -v: the system as built, and the device that runs it. */
static void
describe(const struct args *a, const struct fek_bd_system *x,
    enum fek_device use)
{
	const struct fek_bd_opts *o = &a->o;

	for (int k = 0; k < 2; k++)
		fprintf(stderr, "bd-step: solute %c: %ld atoms, net "
		    "charge %+.4f e, reach %.2f A, R_g %.2f A, grid "
		    "%s, hydrodynamic radius %.2f A, D %.5g A^2/ps, "
		    "D_r %.5g rad^2/ps\n", 'A' + k, x->s[k].pqr.n,
		    x->s[k].qnet, x->s[k].reach, x->s[k].rg,
		    x->s[k].has_pot ? o->dx[k] : "none", x->hydro[k],
		    x->s[k].D, x->s[k].Dr);
	fprintf(stderr, "bd-step: T %g K, eps %g, Bjerrum length %.4f "
	    "A, ionic strength %g M, Debye length %.4g A\n", o->T, o->eps,
	    x->lB, o->have_ionic ? o->ionic : 0.0, x->kappa > 0 ?
	    1.0 / x->kappa : INFINITY);
	fprintf(stderr, "bd-step: b %g A, q %g A, k_D(b) %.6g A^3/ps "
	    "(%.6g M^-1 s^-1), k_D(q) %.6g A^3/ps; dt %g ps below %g "
	    "A to %g ps beyond %g A\n", x->sys.b, x->sys.qrad, x->kdb,
	    x->kdb * FEK_BD_A3PS_TO_MS, x->kdq, x->sys.dtmin, x->sys.r1,
	    x->sys.dtmax, x->sys.r2);
	fprintf(stderr, "bd-step: reaction: %d of %d contacts within "
	    "%g A (%d atom pairs); %s\n", o->need, x->rxn.ncontact,
	    o->rxn_dist, x->rxn.npair, fek_device_name(use));
}

/* The solutes and contacts into x, and the device into use (the CPU for
 * --log and --dcd). */
static void
setup(struct args *a, struct fek_bd_system *x, enum fek_device *use)
{
	if (fek_bd_system_build(x, &a->o) != 0)
		fek_die();
	if (a->logpath || a->dcdpath)
		a->com.dev = FEK_DEV_CPU;
	if (fek_device_resolve(a->com.dev, 1, use) != 0)
		fek_die();
	if (a->com.verbose)
		describe(a, x, *use);
}

/* The trajectories into out[a->ntraj], the first --log-traj of them
 * logged under --log or --dcd; the seconds they took. */
static double
run(const struct args *a, const struct fek_bd_system *x, enum fek_device use,
    const struct fek_header *h, struct fek_bd_outcome *out,
    struct fek_bd_gpu_stats *gst)
{
	long ntraj = a->ntraj, first = a->first;
	double t0, secs;

	/* -v: complete lines, which its own lines do not break */
	fek_progress_start(&progress, "trajectories", (double)ntraj,
	    a->com.quiet ? FEK_PROGRESS_QUIET : a->com.verbose ?
	    FEK_PROGRESS_LINES : 0);
	t0 = fek_seconds();
	if (a->logpath || a->dcdpath) {
		long nl = a->logtraj < ntraj ? a->logtraj : ntraj;

		if (fek_bd_run_logged(x, first, nl, out, a->logpath,
		    a->dcdpath, a->logevery, a->com.text, h) != 0)
			fek_die();
		progress_base = nl;
		if (nl < ntraj)
			fek_bd_run_cpu(&x->sys, first + nl, ntraj - nl,
			    out + nl, show_progress);
	} else if (fek_bd_run(&x->sys, use, first, ntraj, out, show_progress,
	    gst) != 0) {
		fek_die();
	}
	secs = fek_seconds() - t0;
	fek_progress_end(&progress, (double)ntraj, NULL);
	return secs;
}

/* The fates counted: under -v with the speed, beta and k_on, and the GPU's
 * timings; warnings for stuck trajectories and those without a start. */
static void
report(const struct args *a, const struct fek_bd_system *x,
    const struct fek_bd_outcome *out, double secs,
    const struct fek_bd_gpu_stats *gst)
{
	long long count[4] = { 0, 0, 0, 0 }, steps = 0;
	long ntraj = a->ntraj;

	for (long i = 0; i < ntraj; i++) {
		count[out[i].fate]++;
		steps += out[i].steps;
	}
	if (a->com.verbose) {
		struct fek_bd_rate r;

		memset(&r, 0, sizeof r);
		r.reacted = count[FEK_BD_REACTED];
		r.escaped = count[FEK_BD_ESCAPED];
		fek_bd_rate_compute(&r, x->kdb, x->kdq);
		fprintf(stderr, "bd-step: %ld trajectories in %.3f s (%.4g "
		    "steps/s, %.4g trajectories/hour): %lld reacted, %lld "
		    "escaped, %lld stuck, %lld without a start\n", ntraj,
		    secs, steps / secs, ntraj / secs * 3600.0,
		    count[FEK_BD_REACTED], count[FEK_BD_ESCAPED],
		    count[FEK_BD_STUCK], count[FEK_BD_NOSTART]);
		fprintf(stderr, "bd-step: beta %.6f [%.6f, %.6f], k_on %.5g "
		    "M^-1 s^-1 [%.5g, %.5g]\n", r.beta, r.beta_lo, r.beta_hi,
		    r.k, r.k_lo, r.k_hi);
		if (gst->device[0] != '\0')
			fprintf(stderr, "bd-step: %s, %d warps and %d blocks "
			    "of 4 (%lld trajectories handed over, %lld "
			    "finished by blocks), setup %.1f ms, run %.1f ms\n",
			    gst->device, gst->warps, gst->tailblocks,
			    gst->parked, gst->inblocks, gst->setup_ms,
			    gst->run_ms);
	}
	if (!a->com.quiet && count[FEK_BD_STUCK] > 0)
		fek_warnx("%lld of %ld trajectories stuck after %ld steps "
		    "(left out of beta; see --max-steps)",
		    count[FEK_BD_STUCK], ntraj, a->maxsteps);
	if (!a->com.quiet && count[FEK_BD_NOSTART] > 0)
		fek_warnx("%lld trajectories found no start free of overlap "
		    "on the b-sphere (b = %g A)", count[FEK_BD_NOSTART],
		    x->sys.b);
}

int
main(int argc, char **argv)
{
	struct args a;
	struct fek_bd_system x;
	struct fek_bd_outcome *out;
	struct fek_bd_gpu_stats gst = { .device = "" };
	struct fek_writer w;
	struct fek_header h;
	enum fek_device use;
	double secs;
	FILE *outfp;

	fek_setprogname(argv[0]);
	parse_args(argc, argv, &a);
	setup(&a, &x, &use);
	/* held until every trajectory is done: a failed run writes nothing */
	outfp = fek_outbuf_open();
	fek_writer_init(&w, outfp, a.com.text);
	fek_bd_outcome_header(&h, &x, &a.o, argc, argv);
	out = fek_alloc(a.ntraj, sizeof *out);
	secs = run(&a, &x, use, &h, out, &gst);
	report(&a, &x, out, secs, &gst);
	if (fek_bd_write_outcomes(&w, &h, out, a.ntraj) != 0)
		fek_die();
	fek_outbuf_commit(outfp);
	fek_writer_free(&w);
	fek_hdr_free(&h);
	fek_bd_system_free(&x);
	free(out);
	return 0;
}
