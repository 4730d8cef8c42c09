/*
 * md_setup.c - md-gpu --top's run from its inputs (mm_setup.h): the
 * .mdp's options (mdp.c) with the command line's over them, the
 * topology with the .mdp's include and define, the degrees of freedom
 * (3 a massive atom, less the constraints and, for velocity Verlet, the
 * centre of mass), and where the dynamics runs: resident on the GPU, or
 * driven by the host.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "mm/mm_setup.h"
#include "mm/mm_gpu.h"

int
fek_mm_opt_setup(struct fek_mm_opt *o, const char *mdp, double skin,
    int mixed, int gpu)
{
	fek_mm_opt_default(o);
	if (mdp != NULL && fek_mm_opt_read(o, mdp) < 0)
		return -1;
	if (skin >= 0)
		o->skin = skin;
	/* mixed pairs by default on the GPU only: the CPU is the
	 * double-precision reference */
	o->mixed = mixed >= 0 ? mixed : gpu;
	return 0;
}

/* The .mdp's include ("-Idir -I dir ...") as fek_mm_top_read's
 * ':'-separated list into buf; *dirs NULL when there is none. */
static int
mdp_incdirs(const char *include, char *buf, size_t len, const char **dirs)
{
	char tmp[sizeof ((struct fek_mm_opt *)0)->include], *tok, *save;
	size_t at = 0;
	int want = 0;

	snprintf(tmp, sizeof tmp, "%s", include);
	buf[0] = '\0';
	for (tok = strtok_r(tmp, " \t", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t", &save)) {
		const char *d = tok;

		if (!want && strncmp(tok, "-I", 2) == 0) {
			d = tok + 2;
			if (*d == '\0') {
				want = 1;
				continue;
			}
		} else if (!want) {
			return fek_seterr(FEK_EX_DATA, "mdp include: '%s' is "
			    "not -Idir", tok);
		}
		want = 0;
		at += snprintf(buf + at, at < len ? len - at : 0, "%s%s",
		    at ? ":" : "", d);
	}
	if (at >= len)
		return fek_seterr(FEK_EX_DATA, "mdp include: too long");
	*dirs = at ? buf : NULL;
	return 0;
}

int
fek_mm_top_load(struct fek_mm_top *t, const char *path,
    const struct fek_mm_opt *o)
{
	char incdirs[1024];
	const char *dirs = NULL;

	if (mdp_incdirs(o->include, incdirs, sizeof incdirs, &dirs) < 0)
		return -1;
	if (fek_mm_top_read(t, path, dirs, o->define[0] ? o->define : NULL) < 0)
		return -1;
	fek_mm_top_constrain(t, o->constraints);
	return 0;
}

/* The thermostat: velocity Verlet's coupling, Langevin's friction. */
static int
md_thermostat(struct fek_mm_md *md, double temp, const struct fek_mm_opt *o,
    const struct fek_mm_cmd *c)
{
	const char *tcoupl = c->tcoupl ? c->tcoupl : o->tcoupl;

	if (md->integrator == FEK_MM_INT_VV && (strcmp(tcoupl, "v-rescale") ==
	    0 || strcmp(tcoupl, "nose-hoover") == 0)) {
		md->tcoupl = tcoupl[0] == 'v' ? FEK_MM_TC_VRESCALE :
		    FEK_MM_TC_NOSEHOOVER;
		md->tau_t = o->tau_t > 0 ? o->tau_t : 0.1;
		md->nh_chain = (int)o->nh_chain;
	} else if (md->integrator == FEK_MM_INT_VV && strcmp(tcoupl, "no") !=
	    0) {
		return fek_seterr(FEK_EX_USAGE, "tcoupl %s: md-gpu couples "
		    "velocity Verlet by v-rescale or nose-hoover only (or no)",
		    tcoupl);
	}
	if (md->integrator == FEK_MM_INT_LANGEVIN || md->tcoupl) {
		if (!(temp > 0))
			return fek_seterr(FEK_EX_USAGE, "%s: needs a "
			    "temperature (-t, or ref-t in the .mdp)",
			    md->tcoupl ? tcoupl : "-i langevin");
		md->kT = FEK_KB_KJ * temp;
		md->gamma = c->fric >= 0 ? c->fric : o->tau_t > 0 ?
		    1 / o->tau_t : 1;
	}
	return 0;
}

/* The barostat. */
static int
md_barostat(struct fek_mm_md *md, const struct fek_mm_opt *o,
    const struct fek_mm_cmd *c)
{
	const char *pcoupl = c->pcoupl ? c->pcoupl : o->pcoupl;

	if (strcmp(pcoupl, "mc") == 0 || strcmp(pcoupl, "monte-carlo") == 0) {
		if (md->kT <= 0)
			return fek_seterr(FEK_EX_USAGE, "pcoupl %s: the Monte "
			    "Carlo barostat needs a temperature: -i langevin "
			    "or a thermostat (--tcoupl)", pcoupl);
		md->pcoupl = FEK_MM_PC_MC;
		md->ref_p = c->pressure > -1 ? c->pressure : o->ref_p != 0 ?
		    o->ref_p : 1;
		md->nstpcouple = o->nstpcouple > 0 ? o->nstpcouple : 25;
	} else if (strcmp(pcoupl, "no") != 0) {
		return fek_seterr(FEK_EX_USAGE, "pcoupl %s: md-gpu's barostat "
		    "is the Monte Carlo one (pcoupl = MC, or --pcoupl mc); no "
		    "other is supported", pcoupl);
	}
	return 0;
}

int
fek_mm_md_setup(struct fek_mm_md *md, double *temp,
    const struct fek_mm_opt *o, const struct fek_mm_cmd *c)
{
	long seed = c->seed;

	memset(md, 0, sizeof *md);
	if (c->integrator >= 0)
		md->integrator = c->integrator;
	else if (strcmp(o->integrator, "sd") == 0)
		md->integrator = FEK_MM_INT_LANGEVIN;
	else if (strncmp(o->integrator, "md", 2) == 0)
		md->integrator = FEK_MM_INT_VV;
	else
		return fek_seterr(FEK_EX_USAGE, "%s: integrator %s: md-gpu "
		    "runs md, md-vv (velocity Verlet) and sd (Langevin)",
		    c->mdp, o->integrator);
	md->dt = c->dt > 0 ? c->dt : o->dt;
	md->nsteps = c->nsteps >= 0 ? c->nsteps : o->nsteps;
	*temp = c->temp < 0 ? o->ref_t : c->temp;
	if (md_thermostat(md, *temp, o, c) < 0 || md_barostat(md, o, c) < 0)
		return -1;
	if (seed < 0)
		seed = o->gen_seed >= 0 ? o->gen_seed : 1;
	md->key = fek_splitmix64((uint64_t)seed ^ 0x6d6d2d6d642d6770ULL);
	md->every = c->every > 0 ? c->every : md->nsteps > 0 ? md->nsteps : 1;
	if (c->batch && c->every <= 0)
		md->every = 100;
	md->logevery = c->thermo > 0 ? c->thermo : 100;
	md->t0 = o->tinit;
	md->constr_tol = 1e-10;
	return 0;
}

const char *
fek_mm_md_name(const struct fek_mm_md *md)
{
	return md->integrator == FEK_MM_INT_LANGEVIN ? "langevin" :
	    md->tcoupl == FEK_MM_TC_VRESCALE ? "vv v-rescale" :
	    md->tcoupl == FEK_MM_TC_NOSEHOOVER ? "vv nose-hoover" : "vv";
}

int
fek_mm_run_dof(const struct fek_mm_top *t, int integrator, long *dof)
{
	struct fek_mm_constr *cc = NULL;

	if (t->il[FEK_MM_SETTLE].n + t->il[FEK_MM_CONSTR].n > 0 &&
	    (cc = fek_mm_constr_new(t, 1e-10)) == NULL)
		return -1;
	*dof = fek_mm_dof(t, cc, integrator);
	fek_mm_constr_free(cc);
	return 0;
}

/* fek_mm_gpu_eval as a struct fek_mm_forcefn's eval. */
static int
gpu_eval(void *ctx, const struct fek_box *b, int place, double *x, double *f,
    struct fek_mm_energy *e)
{
	return fek_mm_gpu_eval(ctx, b, place, x, f, e);
}

/* md on g (GPU) or the CPU (g NULL), as fek_mm_dynamics says. */
static int
dynamics_on(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const struct fek_mm_md *md, struct fek_mm_gpu *g, struct fek_box *b,
    double *x, double *v, const struct fek_mm_sink *sink)
{
	struct fek_mm_forcefn gff;

	/* on the GPU the whole run stays there, but for the barostat's
	 * moves (FEK_MM_HOSTRUN=1: the host drives the GPU's forces, to
	 * compare) */
	if (g != NULL && getenv("FEK_MM_HOSTRUN") == NULL)
		return fek_mm_gpu_run(g, md, b, x, v, sink);
	gff.ctx = g;
	gff.eval = gpu_eval;
	return fek_mm_run(t, o, md, b, x, v, sink, g ? &gff : NULL);
}

int
fek_mm_dynamics(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const struct fek_mm_md *md, enum fek_device use, struct fek_box *b,
    double *x, double *v, const struct fek_mm_sink *sink,
    struct fek_mm_dyn_stats *st)
{
	struct fek_mm_dyn_stats mine;
	struct fek_mm_gpu *g = NULL;
	int rc;

	if (st == NULL)
		st = &mine;
	memset(st, 0, sizeof *st);
	if (use == FEK_DEV_GPU && (g = fek_mm_gpu_new(t, o, b)) == NULL)
		return -1;
	st->seconds = fek_seconds();
	rc = dynamics_on(t, o, md, g, b, x, v, sink);
	st->seconds = fek_seconds() - st->seconds;
	if (rc == 0 && g != NULL)
		st->gpu = fek_mm_gpu_pairlist(g, &st->rlist, &st->builds,
		    &st->room) == 0;
	fek_mm_gpu_free(g);
	return rc;
}

int
fek_mm_gro_save(const char *path, const struct fek_mm_top *t,
    const char *title, const struct fek_box *b, const double *x,
    const double *v)
{
	FILE *fp = fopen(path, "w");
	int rc, bad;

	if (fp == NULL)
		return fek_seterr(FEK_EX_IOERR, "%s: %s", path,
		    strerror(errno));
	rc = fek_mm_gro_write(fp, t, title, b, x, v);
	bad = (fflush(fp) != 0 || ferror(fp)) | fclose(fp);
	/* fek_mm_gro_write's error does not name the file */
	if (bad || rc < 0)
		rc = fek_seterr(FEK_EX_IOERR, "%s: write error: %s", path,
		    strerror(errno ? errno : EIO));
	return rc;
}
