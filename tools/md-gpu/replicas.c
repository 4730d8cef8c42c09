/*
 * replicas.c - md-gpu's replica mode (the default): batched dynamics of
 * independent replicas of a particle in a model potential, on the CPU
 * (lib/md/replica.c, the reference) or the GPU (kernels/md/replica.cu): plain
 * runs (frames, a DCD file, an energy log), umbrella sampling (samples
 * sections for histogram(1) and WHAM), and Milestoning (seed 003,
 * sections 2.4.8-2.4.9, 5.1.4-5.1.5; Eq. 2.90): restrained sampling on
 * milestones, a backward run to check the first hitting point, a forward
 * run to the next milestone, one trajectories record per sample.  The
 * physics is in lib/md/replica_eval.h; the job's set-up and outputs in
 * lib/md/replica_setup.c and lib/md/replica_output.c.
 */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/grid.h"
#include "md/replica.h"
#include "md/replica_run.h"
#include "md-gpu.h"

static const char *const integ_names[] = { "brownian", "baoab", "verlet",
	NULL };

static const struct mdg_range range = {
	1, 1,
	{ 0, 1e300, "-f" }, { 1e-300, 1e300, "-H" }, { 1e-6, 1e9, "-t" },
	integ_names
};

/* The command line. */
struct ropts {
	struct mdg_opts c;
	const char *pot, *mspec, *xarg, *unit, *tunit;
	struct fek_grid dom;		/* -r */
	enum fek_unit eunit;		/* -E */
	double diff, mass, v0;		/* -D, -m, -V */
	long nsamp;			/* -c */
	int vinit;			/* -V given */
	struct fek_md_request rq;	/* the mode's options (-w, -n, -e
					   from c) */
};

/* What the sinks need. */
struct rsink {
	struct fek_md_output out;
	struct fek_progress pr;		/* steps in run mode, else the
					   fraction done */
	int verbose;
	double t0;
};

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: md-gpu [-BTqv] [-A anchors [-I pairs]] "
	    "[-c samples] [-D diffusion] [-d cpu|gpu|auto]\n"
	    "              [-E kcal|kJ|kT] [-e every] [-F crossings] "
	    "[-f friction] [-g count] [-H dt]\n"
	    "              [-i brownian|baoab|verlet] [-j first[:last]] "
	    "[-k spring] [-l log]\n"
	    "              [-M milestones] [-m mass] [-N steps] [-n steps] "
	    "[-o file.dcd] [-R replicas]\n"
	    "              [-s seed] [-t temperature] [-U unit] [-u unit] "
	    "[-V velocity] [-w windows]\n"
	    "              [-x point] -p potential -r lo:hi[:p] ...\n");
	exit(code);
}

/* -U and -u: one word. */
static int
opt_unit(int c, const char *arg, struct ropts *o)
{
	if (strlen(arg) >= FEK_NAMELEN || !*arg || strpbrk(arg, " \t")) {
		fek_warnx("-%c: '%s' is not a one-word unit", c, arg);
		return 1;
	}
	if (c == 'U')
		o->tunit = arg;
	else
		o->unit = arg;
	return 0;
}

/* The options that are this mode's own. */
static int
ropt(int c, const char *arg, void *ctx)
{
	struct ropts *o = ctx;
	struct fek_md_request *rq = &o->rq;

	switch (c) {
	case 'A':
		rq->anchfile = arg;
		return 0;
	case 'B':
		rq->nobridge = 1;
		return 0;
	case 'c':
		return fek_opt_long(arg, 1, 1000000000L, "-c", &o->nsamp);
	case 'D':
		return fek_opt_double(arg, 1e-300, 1e300, "-D", &o->diff);
	case 'E':
		return fek_opt_unit(arg, 1, "-E", &o->eunit);
	case 'F':
		return fek_opt_long(arg, -1, 1000, "-F", &rq->maxself);
	case 'g':
		return fek_opt_long(arg, 1, 100000, "-g", &rq->gridn);
	case 'I':
		rq->pairfile = arg;
		return 0;
	case 'j':
		return fek_opt_span(arg, "-j", &rq->first, &rq->last);
	case 'k':
		return fek_opt_double(arg, 0, 1e300, "-k", &rq->spring);
	case 'M':
		o->mspec = arg;
		return 0;
	case 'm':
		return fek_opt_double(arg, 1e-300, 1e300, "-m", &o->mass);
	case 'p':
		o->pot = arg;
		return 0;
	case 'r':
		return fek_opt_axis(arg, FEK_MD_MAXD, &o->dom);
	case 'U':
	case 'u':
		return opt_unit(c, arg, o);
	case 'V':
		o->vinit = 1;
		return fek_opt_double(arg, -1e300, 1e300, "-V", &o->v0);
	case 'x':
		o->xarg = arg;
		return 0;
	default:
		return -1;
	}
}

/* Errors of options that do not go together. */
static int
check(const struct ropts *o, enum fek_md_mode mode)
{
	const struct fek_md_request *rq = &o->rq;
	int umb = rq->gridn > 0 || o->c.winfile, ms = o->mspec ||
	    rq->anchfile;
	const struct mdg_check tests[] = {
		{ o->pot == NULL, "-p: a potential is required (dw, mb, "
		    "torsion or a formula)" },
		{ o->dom.ndim == 0, "-r: give the domain of each dimension" },
		{ umb && ms, "umbrella windows (-g, -w) and milestones (-M, "
		    "-A) exclude each other" },
		{ rq->gridn > 0 && o->c.winfile, "give the windows with -w "
		    "file or -g count -k spring" },
		{ rq->gridn > 0 && rq->spring < 0, "-g: needs -k spring" },
		{ o->mspec && rq->anchfile, "-M (points) and -A (Voronoi "
		    "anchors) exclude each other" },
		{ rq->pairfile && !rq->anchfile, "-I: needs -A anchors" },
		{ mode == FEK_MD_RUN && rq->spring >= 0, "-k: needs windows "
		    "(-g) or milestones (-M, -A)" },
		{ mode == FEK_MD_RUN && rq->last >= 0, "-j: needs windows or "
		    "milestones" },
		{ mode != FEK_MD_RUN && (o->c.dcdpath || o->c.logpath), "-o "
		    "and -l write frames: plain runs only (no -g, -w, -M or "
		    "-A)" },
		{ mode == FEK_MD_UMBRELLA && o->eunit == FEK_KT, "-E kT: "
		    "umbrella samples need kcal or kJ (the ENERGY of WINDOW's "
		    "springs)" },
		{ rq->last >= 0 && rq->last < rq->first, "-j: last before "
		    "first" },
		{ mode != FEK_MD_MILESTONE && (rq->nobridge || rq->maxself !=
		    -2 || o->nsamp != 1), "-B, -c and -F: Milestoning options "
		    "(-M, -A)" },
	};

	return mdg_checks(tests, sizeof tests / sizeof tests[0]);
}

/* The command line into o and the job's mode; usage() on errors. */
static void
parse(int argc, char **argv, struct ropts *o, enum fek_md_mode *mode)
{
	static const struct option longopts[] = {
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	int nerr;

	nerr = mdg_getopt(argc, argv,
	    "A:Bc:D:d:E:e:F:f:g:H:hI:i:j:k:l:M:m:N:n:o:p:qR:r:s:T"
	    "t:U:u:V:vw:x:", longopts, ropt, o, &range, &o->c, usage);
	if (optind != argc) {
		fek_warnx("unexpected operand '%s'", argv[optind]);
		nerr++;
	}
	*mode = o->rq.gridn > 0 || o->c.winfile ? FEK_MD_UMBRELLA :
	    o->mspec || o->rq.anchfile ? FEK_MD_MILESTONE : FEK_MD_RUN;
	if (check(o, *mode) + nerr)
		usage(FEK_EX_USAGE);
}

/* The sinks: lib/md/replica_output.c writes; -v and the progress line
 * are said here. */
static int
sink_frame(void *ctx, long long step, const double *x, const double *v,
    const double *u, long long R)
{
	struct rsink *k = ctx;

	return fek_md_output_frame(&k->out, step, x, v, u, R);
}

static int
sink_window(void *ctx, long w, const double *x, long long nrep,
    long long nsamp)
{
	struct rsink *k = ctx;
	double g;

	if (fek_md_output_window(&k->out, w, x, nrep, nsamp, &g) < 0)
		return -1;
	if (k->verbose)
		fprintf(stderr, "md-gpu: window %ld: %lld samples, "
		    "statistical inefficiency %.3g\n", w + 1, nrep * nsamp, g);
	return 0;
}

static int
sink_records(void *ctx, long m, const double *rec, long long n)
{
	struct rsink *k = ctx;
	long long nv = 0, nend = 0;

	if (fek_md_output_records(&k->out, m, rec, n) < 0)
		return -1;
	if (!k->verbose)
		return 0;
	for (long long i = 0; i < n; i++) {
		nv += rec[i * FEK_MD_NREC + 3] == 1;
		nend += rec[i * FEK_MD_NREC + 1] >= 0;
	}
	fprintf(stderr, "md-gpu: milestone %ld: %lld runs, %lld valid, "
	    "%lld reached another milestone\n", m, n, nv, nend);
	return 0;
}

static void
sink_progress(void *ctx, double done)
{
	struct rsink *k = ctx;

	fek_progress_tell(&k->pr, done * k->pr.total, NULL);
}

/* The job from o: axes, potential, dynamics, mode; *use the device. */
static void
setup(struct ropts *o, struct fek_md_job *job, enum fek_device *use)
{
	struct fek_md_sys *s = &job->sys;
	char *formula;
	double kmax, q;
	long nwin;

	fek_md_axes(&o->dom, o->unit, s);
	if (o->xarg && fek_md_parse_point(o->xarg, s->D, s->x0) < 0) {
		fek_warnx("%s", fek_errmsg());
		usage(FEK_EX_USAGE);
	}
	if (fek_md_potential_parse(o->pot, s->D, s, &formula) < 0)
		fek_die();
	if (fek_device_resolve(o->c.com.dev, 1, use) < 0)
		fek_die();
	s->integ = o->c.integ;
	s->dt = o->c.dt;
	s->kT = o->eunit == FEK_KT ? 1 : fek_kb(o->eunit) * o->c.temp;
	s->diff = o->diff;
	s->mass = o->mass;
	s->gamma = o->c.gamma;
	s->vinit = o->vinit;
	s->v0 = o->v0;
	fek_md_prepare(s);
	if (o->mspec && fek_md_parse_points(o->mspec, &o->rq.mpos,
	    &o->rq.nm) < 0) {
		fek_warnx("%s", fek_errmsg());
		usage(FEK_EX_USAGE);
	}
	job->formula = formula;
	job->dom = &o->dom;
	if (fek_md_mode_setup(job, &o->rq, &nwin) < 0)
		fek_die();
	if (s->integ == FEK_MD_BAOAB && o->c.gamma == 0 &&
	    job->mode != FEK_MD_RUN)
		fek_warnx("-f 0: BAOAB without friction does not sample the "
		    "canonical ensemble");
	if ((q = fek_md_stability(job, nwin, &kmax)) > 1)
		fek_warnx("-k: a restraint curvature of %g with -H %g is near "
		    "the stability limit of %s (%s = %.3g; keep it below 1)",
		    kmax, o->c.dt, integ_names[s->integ], s->integ ==
		    FEK_MD_BROWNIAN ? "D dt k / kT" : "dt sqrt(k / m)", q);
	job->seed = (unsigned long long)o->c.com.seed;
	job->replicas = o->c.replicas;
	job->equil = o->c.equil;
	job->nsamp = o->nsamp;
	job->want_v = s->integ != FEK_MD_BROWNIAN;
	job->want_u = 1;
}

/* Run job on use with k's sinks; -v's timings. */
static void
run(const struct fek_md_job *job, enum fek_device use, struct rsink *k)
{
	struct fek_md_sink sink;
	struct fek_gpu_md_stats gst;
	double steps = (double)job->replicas * (job->equil + job->nsteps);

	memset(&sink, 0, sizeof sink);
	sink.ctx = k;
	sink.frame = sink_frame;
	sink.window = sink_window;
	sink.records = sink_records;
	sink.progress = sink_progress;
	if (fek_md_run(job, use, &sink, &gst) < 0)
		fek_die();
	fek_progress_end(&k->pr, k->pr.total, NULL);
	if (use == FEK_DEV_GPU) {
		if (k->verbose)
			fprintf(stderr, "md-gpu: %s: kernels %s in %.0f ms, "
			    "dynamics %.1f ms, copies %.1f ms, output %.1f ms"
			    ", %s normals\n", gst.device, gst.cache_hit ?
			    "read from the cache" : "compiled", gst.compile_ms,
			    gst.kernel_ms, gst.copy_ms, gst.sink_ms,
			    gst.normals64 ? "f64" : "f32");
		if (k->verbose && job->mode == FEK_MD_RUN && gst.kernel_ms > 0)
			fprintf(stderr, "md-gpu: %.4g replica-steps/s on the "
			    "device\n", steps / (1e-3 * gst.kernel_ms));
	}
	if (fek_md_output_finish(&k->out) < 0)
		fek_die();
	if (k->verbose && job->mode == FEK_MD_RUN)
		fprintf(stderr, "md-gpu: %s: %.4g replica-steps in %.3f s, "
		    "%.4g replica-steps/s\n", fek_device_name(use), steps,
		    fek_seconds() - k->t0, steps / (fek_seconds() - k->t0));
}

int
mdg_replicas(int argc, char **argv)
{
	static const struct ropts defaults = {
		.c = { .com = { .dev = FEK_DEV_AUTO, .seed = 1 }, .every = -1,
		    .gamma = 1, .dt = 1e-3, .nsteps = -1, .replicas = 1,
		    .temp = 300 },
		.unit = "1", .tunit = "1", .eunit = FEK_KCAL, .diff = 1,
		.mass = 1, .nsamp = 1,
		.rq = { .spring = -1, .maxself = -2, .first = 1, .last = -1 }
	};
	struct ropts o;
	struct fek_md_job job;
	struct rsink k;
	enum fek_device use;

	o = defaults;
	memset(&job, 0, sizeof job);
	parse(argc, argv, &o, &job.mode);
	o.rq.winfile = o.c.winfile;
	o.rq.nsteps = o.c.nsteps;
	o.rq.every = o.c.every;
	setup(&o, &job, &use);

	memset(&k, 0, sizeof k);
	k.out.job = &job;
	k.out.unit = o.unit;
	k.out.tunit = o.tunit;
	k.out.eunit = o.eunit;
	k.out.temp = o.c.temp;
	k.out.cmd = fek_cmdline(argc, argv);
	k.out.text = o.c.com.text;
	k.verbose = o.c.com.verbose;
	/* run mode counts each replica's steps; the umbrella and milestone
	 * modes tell a fraction (windows or milestones on the CPU, samples
	 * on the GPU) */
	if (job.mode == FEK_MD_RUN)
		fek_progress_start(&k.pr, "steps", (double)(job.equil +
		    job.nsteps), mdg_progress_flags(&o.c));
	else
		fek_progress_start(&k.pr, NULL, 1, mdg_progress_flags(&o.c));
	k.t0 = fek_seconds();
	if (fek_md_output_open(&k.out, o.c.dcdpath, o.c.logpath) < 0)
		fek_die();
	run(&job, use, &k);
	if (fek_md_output_close(&k.out) < 0)
		fek_die();
	fek_fshut(stdout, "stdout");
	free((char *)k.out.cmd);
	free((char *)job.formula);
	fek_md_job_free(&job);
	return 0;
}
