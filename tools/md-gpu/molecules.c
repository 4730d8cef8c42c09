/*
 * molecules.c - md-gpu's molecular mode (--top): a system from GROMACS
 * inputs (lib/mm): dynamics from a configuration (--config) on the CPU
 * (lib/mm/run.c) or the GPU (kernels/mm/run.cu), batches of replicas of
 * it (-R, --dihedral, -w: lib/mm/batch_run.c), or the energies of stored
 * frames (--rerun, as gmx mdrun -rerun: lib/mm/rerun.c).  The .mdp merged
 * with the options, the degrees of freedom and where the run goes are
 * lib/mm/md_setup.c's.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/grid.h"
#include "pmd/pmd.h"
#include "mm/mm.h"
#include "mm/mm_output.h"
#include "mm/mm_setup.h"
#include "md-gpu.h"

static const char *const integ_names[] = { "vv", "langevin", NULL };

static const struct mdg_range range = {
	1, 0,
	{ 0, 1e12, "-f (friction, 1/ps)" }, { 1e-12, 1, "-H (time step, ps)" },
	{ 1e-300, 1e6, "-t (temperature, K)" },
	integ_names
};

/* Long options (values above 256). */
enum {
	OPT_TOP = 400, OPT_MDP, OPT_RERUN, OPT_FMT, OPT_CONF, OPT_CONFOUT,
	OPT_THERMO, OPT_TCOUPL, OPT_DIH, OPT_SKIP, OPT_PCOUPL, OPT_PRESSURE,
	OPT_SKIN, OPT_PREC
};

/* The command line. */
struct mopts {
	struct mdg_opts c;
	const char *top, *mdp, *rerun, *format, *config, *confout;
	const char *tcoupl, *pcoupl;
	double pressure, skin;
	int mixed;			/* --precision (-1: not given) */
	long thermo, skip;
	struct fek_mm_cvset cv;		/* --dihedral */
};

static void __attribute__((noreturn))
usage(int code)
{
	FILE *fp = code ? stderr : stdout;

	fprintf(fp, "usage: md-gpu [-Tqv] [-d cpu|gpu|auto] [-e every] "
	    "[-f friction] [-H dt] [-i vv|langevin]\n"
	    "              [-l log] [-n steps] [-o file.dcd] [-s seed] "
	    "[-t temperature]\n"
	    "              [--confout file.gro] [--mdp file.mdp] "
	    "[--pcoupl no|mc] [--precision double|mixed]\n"
	    "              [--pressure bar] [--skin nm] "
	    "[--tcoupl no|v-rescale|nose-hoover]\n"
	    "              [--thermo steps]\n"
	    "              --top file.top --config file.gro\n"
	    "       md-gpu [-Tqv] [-d cpu|gpu|auto] [-e every] [-f friction] "
	    "[-H dt]\n"
	    "              [-i vv|langevin] [-n steps] [-R replicas] "
	    "[-s seed] [-t temperature]\n"
	    "              [-w windows] [--confout file.gro] "
	    "[--dihedral name=i,j,k,l] ...\n"
	    "              [--mdp file.mdp] [--skip steps] "
	    "--top file.top --config file.gro\n"
	    "       md-gpu [-Tqv] [-d cpu|gpu|auto] [--format format] "
	    "[--mdp file.mdp]\n"
	    "              [--precision double|mixed] --top file.top "
	    "--rerun trajectory\n");
	exit(code);
}

/* --dihedral name=i,j,k,l (atom numbers from 1) into cv. */
static int
parse_dihedral(const char *arg, struct fek_mm_cvset *cv)
{
	const char *eq = strchr(arg, '=');
	int at[4], used = 0;

	if (cv->ncv == FEK_MM_MAXCV) {
		fek_warnx("--dihedral: at most %d", FEK_MM_MAXCV);
		return 1;
	}
	if (eq == NULL || eq == arg || eq - arg >= (long)sizeof cv->name[0] ||
	    sscanf(eq + 1, "%d,%d,%d,%d%n", &at[0], &at[1], &at[2], &at[3],
	    &used) != 4 || eq[1 + used] != '\0') {
		fek_warnx("--dihedral: '%s' is not name=i,j,k,l (atom numbers "
		    "from 1)", arg);
		return 1;
	}
	for (int a = 0; a < 4; a++) {
		if (at[a] < 1) {
			fek_warnx("--dihedral %s: atom %d: numbers start at 1",
			    arg, at[a]);
			return 1;
		}
		cv->atoms[cv->ncv][a] = at[a] - 1;
	}
	memcpy(cv->name[cv->ncv], arg, eq - arg);
	cv->name[cv->ncv][eq - arg] = '\0';
	cv->ncv++;
	return 0;
}

/* The options that are this mode's own. */
static int
mopt(int c, const char *arg, void *ctx)
{
	struct mopts *o = ctx;
	static const char *const tcouplings[] = { "no", "v-rescale",
		"nose-hoover", NULL };
	int k;

	switch (c) {
	case OPT_DIH:
		return parse_dihedral(arg, &o->cv);
	case OPT_PCOUPL:
		o->pcoupl = arg;
		return 0;
	case OPT_PRESSURE:
		return fek_opt_double(arg, -1e6, 1e6, "--pressure (bar)",
		    &o->pressure);
	case OPT_SKIN:
		return fek_opt_double(arg, 0, 10, "--skin (nm)", &o->skin);
	case OPT_PREC:
		return fek_opt_precision(arg, &o->mixed);
	case OPT_SKIP:
		return fek_opt_long(arg, 0, LONG_MAX, "--skip", &o->skip);
	case OPT_CONF:
		o->config = arg;
		return 0;
	case OPT_CONFOUT:
		o->confout = arg;
		return 0;
	case OPT_FMT:
		o->format = arg;
		return 0;
	case OPT_MDP:
		o->mdp = arg;
		return 0;
	case OPT_RERUN:
		o->rerun = arg;
		return 0;
	case OPT_THERMO:
		return fek_opt_long(arg, 1, LONG_MAX, "--thermo", &o->thermo);
	case OPT_TCOUPL:
		o->tcoupl = arg;
		return mdg_word(arg, tcouplings, "--tcoupl", &k);
	case OPT_TOP:
		o->top = arg;
		return 0;
	default:
		return -1;
	}
}

/* The command line into o; usage() on errors. */
static void
parse(int argc, char **argv, struct mopts *o)
{
	static const struct option lopts[] = {
		{ "config", required_argument, NULL, OPT_CONF },
		{ "confout", required_argument, NULL, OPT_CONFOUT },
		{ "dihedral", required_argument, NULL, OPT_DIH },
		{ "format", required_argument, NULL, OPT_FMT },
		{ "mdp", required_argument, NULL, OPT_MDP },
		{ "pcoupl", required_argument, NULL, OPT_PCOUPL },
		{ "precision", required_argument, NULL, OPT_PREC },
		{ "pressure", required_argument, NULL, OPT_PRESSURE },
		{ "rerun", required_argument, NULL, OPT_RERUN },
		{ "skin", required_argument, NULL, OPT_SKIN },
		{ "skip", required_argument, NULL, OPT_SKIP },
		{ "tcoupl", required_argument, NULL, OPT_TCOUPL },
		{ "thermo", required_argument, NULL, OPT_THERMO },
		{ "top", required_argument, NULL, OPT_TOP },
		FEK_LONGOPTS_COMMON,
		{ NULL, 0, NULL, 0 }
	};
	int nerr;

	nerr = mdg_getopt(argc, argv, "d:e:f:H:hi:l:n:o:qR:s:Tt:vw:", lopts,
	    mopt, o, &range, &o->c, usage);
	if (optind != argc) {
		fek_warnx("%s: no operands with --top", argv[optind]);
		nerr++;
	}
	if ((o->rerun != NULL) + (o->config != NULL) != 1) {
		fek_warnx("--top: give one of --config (dynamics) and --rerun "
		    "(the energies of stored frames)");
		nerr++;
	}
	if (nerr)
		usage(FEK_EX_USAGE);
}

/* The replicas' progress: replicas done on the CPU, which runs them in
 * turn; on the GPU, which runs them together, the fraction of the steps. */
static struct fek_progress replicas_pr;

static void
replicas_progress(long done, long total)
{
	(void)total;
	fek_progress_tell(&replicas_pr, done, NULL);
}

/* A run's sink with its progress, told at the steps the run already
 * stops at (each log row and frame; the GPU's copies). */
struct psink {
	struct fek_mm_sink in;
	struct fek_progress pr;
};

static int
psink_log(void *ctx, long long step, double t, const struct fek_mm_energy *e,
    double K, double T, double H, double V)
{
	struct psink *k = ctx;

	fek_progress_tell(&k->pr, (double)step, NULL);
	return k->in.log(k->in.ctx, step, t, e, K, T, H, V);
}

static int
psink_frame(void *ctx, long long step, double t, const struct fek_box *b,
    const double *x, const double *v)
{
	struct psink *k = ctx;

	fek_progress_tell(&k->pr, (double)step, NULL);
	return k->in.frame(k->in.ctx, step, t, b, x, v);
}

/*
 * -R, --dihedral, -w: nwin x nrep replicas from conf; the torsions'
 * samples, a samples section a window, to stdout; the last
 * configurations to --confout (a .gro frame a replica).
 */
static void
replicas(const struct mopts *o, const struct fek_mm_top *t,
    const struct fek_mm_opt *mo, const struct fek_mm_md *md, double temp,
    struct fek_mm_conf *conf, int gpu, const char *cmd)
{
	struct fek_mm_batch_run r;
	struct fek_window *win = NULL;
	long R;

	memset(&r, 0, sizeof r);
	r.bt.nwin = 1;
	if (o->c.logpath != NULL || o->c.dcdpath != NULL)
		fek_errx(FEK_EX_USAGE, "-R, --dihedral, -w: replicas write "
		    "samples and --confout, not -l or -o");
	if (o->c.winfile != NULL && o->cv.ncv == 0)
		fek_errx(FEK_EX_USAGE, "-w: the windows restrain the "
		    "--dihedral torsions: give them");
	if (o->c.winfile != NULL && fek_windows_load(o->c.winfile, o->cv.ncv,
	    &win, &r.bt.nwin) < 0)
		fek_die();
	r.win = win;
	r.bt.nrep = o->c.replicas > 0 ? o->c.replicas : 1;
	r.bt.skip = o->skip;
	r.temp = md->integrator == FEK_MM_INT_LANGEVIN ? temp : 0;
	R = r.bt.nwin * r.bt.nrep;
	fek_progress_start(&replicas_pr, gpu ? NULL : "replicas", (double)R,
	    mdg_progress_flags(&o->c));
	if (fek_mm_batch_start(&r, t, mo, md, &o->cv, conf, gpu,
	    replicas_progress) < 0)
		fek_die();
	fek_progress_end(&replicas_pr, (double)R, NULL);
	if (fek_mm_batch_write(&r, md, &o->cv, stdout, o->c.com.text, cmd) < 0)
		fek_die();
	if (o->confout != NULL && fek_mm_batch_gro(&r, o->confout, t, md,
	    &conf->box) < 0)
		fek_die();
	fek_fshut(stdout, "stdout");
	if (o->c.com.verbose)
		fprintf(stderr, "md-gpu: %s: %ld replicas of %ld atoms, %lld "
		    "steps of %g ps in %.3f s (%.4g replica-steps/s, %.4g "
		    "ns/day aggregate)\n", gpu ? "gpu" : "cpu", R, t->n,
		    md->nsteps, md->dt, r.seconds, R * (double)md->nsteps /
		    r.seconds, R * (double)md->nsteps * md->dt * 1e-3 * 86400 /
		    r.seconds);
	fek_mm_batch_free(&r);
	free(win);
}

/* Dynamics from conf: frames to stdout, the log, the DCD file, the last
 * configuration to --confout. */
static void
dynamics(const struct mopts *o, const struct fek_mm_top *t,
    const struct fek_mm_opt *mo, struct fek_mm_md *md, double temp,
    struct fek_mm_conf *conf, int gpu, char *cmd)
{
	struct fek_mm_dyn_stats ds;
	struct fek_mm_out out;
	struct fek_mm_sink sink;
	struct psink ps;
	FILE *logfp = NULL;
	long baro[2] = { 0, 0 };

	if (md->pcoupl)
		md->baro_counts = baro;
	if (mo->gen_vel)
		fek_mm_gen_vel(t, mo->gen_temp, md->key ^ 0x76656cULL, conf->v);
	if (o->c.logpath != NULL && (logfp = fopen(o->c.logpath, "w")) == NULL)
		fek_errx(FEK_EX_IOERR, "%s: %s", o->c.logpath, strerror(errno));
	fek_mm_out_init(&out, t, stdout, logfp, o->c.com.text);
	out.cmd = cmd;
	out.integ_name = fek_mm_md_name(md);
	out.dt = md->dt;
	out.temp = md->integrator == FEK_MM_INT_LANGEVIN || md->tcoupl ? temp :
	    0;
	if (o->c.dcdpath != NULL && (out.dcd = fek_dcd_open_cell(o->c.dcdpath,
	    t->n, 0, md->every, md->dt, "md-gpu --top")) == NULL)
		fek_die();
	if (fek_mm_run_dof(t, md->integrator, &out.dof) < 0)
		fek_die();
	ps.in = out.sink;
	fek_progress_start(&ps.pr, "steps", (double)md->nsteps,
	    mdg_progress_flags(&o->c));
	sink = out.sink;
	if (fek_progress_on(&ps.pr)) {
		sink.ctx = &ps;
		sink.log = out.sink.log != NULL ? psink_log : NULL;
		sink.frame = out.sink.frame != NULL ? psink_frame : NULL;
	}
	if (fek_mm_dynamics(t, mo, md, gpu ? FEK_DEV_GPU : FEK_DEV_CPU,
	    &conf->box, conf->x, conf->v, &sink, &ds) < 0)
		fek_die();
	fek_progress_end(&ps.pr, (double)md->nsteps, NULL);
	if (ds.gpu && o->c.com.verbose)
		fprintf(stderr, "md-gpu: pair list to %g nm (skin %g): built "
		    "%ld times in %lld steps, rows of %d\n", ds.rlist, mo->skin,
		    ds.builds, md->nsteps, ds.room);
	if (fek_mm_out_finish(&out) < 0)
		fek_die();
	if (logfp != NULL)
		fek_fshut(logfp, o->c.logpath);
	if (o->confout != NULL && fek_mm_gro_save(o->confout, t, t->system[0] ?
	    t->system : "md-gpu", &conf->box, conf->x, conf->v) < 0)
		fek_die();
	fek_fshut(stdout, "stdout");
	if (o->c.com.verbose)
		fprintf(stderr, "md-gpu: %s: %ld atoms, %lld steps of %g ps, "
		    "%ld degrees of freedom; %s: %.3f s (%.4g ms a step, "
		    "%.4g ns/day)\n", o->top, t->n, md->nsteps, md->dt, out.dof,
		    gpu ? "gpu" : "cpu", ds.seconds, md->nsteps > 0 ? 1e3 *
		    ds.seconds / md->nsteps : 0, ds.seconds > 0 ? md->nsteps *
		    md->dt * 86.4 / ds.seconds : 0);
	if (o->c.com.verbose && md->pcoupl)
		fprintf(stderr, "md-gpu: Monte Carlo barostat at %g bar: %ld "
		    "of %ld volume moves accepted; final volume %.6g nm^3\n",
		    md->ref_p, baro[1], baro[0], fek_box_volume(&conf->box));
}

int
mdg_molecules(int argc, char **argv)
{
	static const struct mopts defaults = {
		.c = { .com = { .dev = FEK_DEV_AUTO, .seed = -1 }, .every = -1,
		    .gamma = -1, .dt = -1, .integ = -1, .nsteps = -1,
		    .replicas = -1, .temp = -1 },
		.pressure = -1, .skin = -1, .mixed = -1, .thermo = -1
	};
	struct mopts o;
	struct fek_mm_cmd mc;
	struct fek_mm_top t;
	struct fek_mm_opt mo;
	struct fek_mm_conf conf;
	struct fek_mm_md md;
	enum fek_device use;
	double temp;
	char *cmd;
	int gpu;

	o = defaults;
	parse(argc, argv, &o);
	if (fek_device_resolve(o.c.com.dev, 1, &use) < 0)
		fek_die();
	gpu = use == FEK_DEV_GPU;
	cmd = fek_cmdline(argc, argv);
	if (fek_mm_opt_setup(&mo, o.mdp, o.skin, o.mixed, gpu) < 0 ||
	    fek_mm_top_load(&t, o.top, &mo) < 0)
		fek_die();
	if (o.rerun != NULL) {
		if (fek_mm_rerun(&t, &mo, o.top, o.rerun, o.format, gpu, stdout,
		    o.c.com.text, cmd) < 0)
			fek_die();
		fek_fshut(stdout, "stdout");
	} else {
		if (fek_mm_gro_read(o.config, &conf) < 0)
			fek_die();
		if (conf.n != t.n)
			fek_errx(FEK_EX_DATA, "%s: %ld atoms, but %s has %ld",
			    o.config, conf.n, o.top, t.n);
		memset(&mc, 0, sizeof mc);
		mc.mdp = o.mdp;
		mc.integrator = o.c.integ;
		mc.tcoupl = o.tcoupl;
		mc.pcoupl = o.pcoupl;
		mc.dt = o.c.dt;
		mc.temp = o.c.temp;
		mc.fric = o.c.gamma;
		mc.pressure = o.pressure;
		mc.nsteps = o.c.nsteps;
		mc.every = o.c.every;
		mc.thermo = o.thermo;
		mc.seed = o.c.com.seed;
		mc.batch = o.c.replicas > 0 || o.cv.ncv > 0 ||
		    o.c.winfile != NULL;
		if (fek_mm_md_setup(&md, &temp, &mo, &mc) < 0 ||
		    fek_mm_box_check(&mo, &conf.box, o.config) < 0)
			fek_die();
		if (mc.batch)
			replicas(&o, &t, &mo, &md, temp, &conf, gpu, cmd);
		else
			dynamics(&o, &t, &mo, &md, temp, &conf, gpu, cmd);
		fek_mm_conf_free(&conf);
	}
	fek_mm_top_free(&t);
	free(cmd);
	return 0;
}
