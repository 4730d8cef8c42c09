/*
 * batch_run.c - md-gpu --top's batches of replicas (mm_setup.h): nwin
 * windows of nrep replicas of one configuration, on the CPU (replicas.c)
 * or the GPU (kernels/mm/replicas.cu), each restrained in its window's
 * torsions or free; their samples as samples sections (fek(5)) for
 * histogram(1) and WHAM, with the statistical inefficiency (core/ineff.c),
 * and their last configurations as .gro frames.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "core/ineff.h"
#include "mm/mm_setup.h"
#include "mm/mm_gpu.h"

/* What replicas cannot run. */
static int
batch_check(const struct fek_mm_top *t, const struct fek_mm_md *md,
    const struct fek_mm_cvset *cv)
{
	for (int c = 0; c < cv->ncv; c++)
		for (int a = 0; a < 4; a++)
			if (cv->atoms[c][a] >= t->n)
				return fek_seterr(FEK_EX_USAGE, "--dihedral "
				    "%s: atom %d, but the system has %ld",
				    cv->name[c], cv->atoms[c][a] + 1, t->n);
	if (md->integrator == FEK_MM_INT_VV && md->tcoupl)
		return fek_seterr(FEK_EX_USAGE, "-R: replicas run -i langevin "
		    "or vv without a thermostat");
	if (md->pcoupl)
		return fek_seterr(FEK_EX_USAGE, "-R: replicas run at constant "
		    "volume (no pcoupl)");
	return 0;
}

int
fek_mm_batch_start(struct fek_mm_batch_run *r, const struct fek_mm_top *t,
    const struct fek_mm_opt *o, const struct fek_mm_md *md,
    const struct fek_mm_cvset *cv, const struct fek_mm_conf *conf, int gpu,
    void (*progress)(long done, long total))
{
	struct fek_mm_batch *bt = &r->bt;
	long R = bt->nwin * bt->nrep, n3 = 3 * t->n;
	double t0;
	int rc;

	if (batch_check(t, md, cv) < 0)
		return -1;
	bt->every = md->every;
	if (r->win != NULL) {
		r->centre = fek_alloc(bt->nwin * cv->ncv, sizeof *r->centre);
		r->spring = fek_alloc(bt->nwin * cv->ncv, sizeof *r->spring);
		for (long w = 0; w < bt->nwin; w++)
			for (int c = 0; c < cv->ncv; c++) {
				r->centre[w * cv->ncv + c] =
				    r->win[w].centre[c];
				r->spring[w * cv->ncv + c] =
				    r->win[w].spring[c];
			}
		bt->centre = r->centre;
		bt->spring = r->spring;
	}
	r->nsamp = fek_mm_batch_nsamp(bt, md->nsteps);
	r->x = fek_alloc(R * n3, sizeof *r->x);
	r->v = fek_alloc(R * n3, sizeof *r->v);
	r->samples = fek_alloc(R * r->nsamp * cv->ncv + 1, sizeof *r->samples);
	memcpy(r->x, conf->x, n3 * sizeof *r->x);
	for (long k = 0; k < R; k++) {
		if (o->gen_vel)
			fek_mm_gen_vel(t, o->gen_temp, fek_mm_replica_key(md->key,
			    k) ^ 0x76656cULL, r->v + k * n3);
		else
			memcpy(r->v + k * n3, conf->v, n3 * sizeof *r->v);
	}
	t0 = fek_seconds();
	rc = gpu ? fek_mm_gpu_replicas_run(t, o, md, cv, bt, &conf->box, r->x,
	    r->v, r->samples, progress) : fek_mm_replicas_run(t, o, md, cv, bt,
	    &conf->box, r->x, r->v, r->samples, progress);
	r->seconds = fek_seconds() - t0;
	return rc < 0 ? -1 : 0;
}

/* Window w's samples section. */
static int
batch_window(const struct fek_mm_batch_run *r, long w,
    const struct fek_mm_md *md, const struct fek_mm_cvset *cv,
    struct fek_writer *wr, const char *cmd)
{
	const struct fek_mm_batch *bt = &r->bt;
	long long nrep = bt->nrep, nsamp = r->nsamp;
	const double *xs = r->samples + w * nrep * nsamp * cv->ncv;
	struct fek_header h;
	double g = 1;
	int rc;

	for (int c = 0; c < cv->ncv; c++) {
		double gc = fek_inefficiency(xs + c, nsamp, nrep, cv->ncv,
		    r->win ? r->win[w].centre[c] : 0, 360);

		if (gc > g)
			g = gc;
	}
	fek_hdr_init(&h, "samples");
	h.rows = nrep * nsamp;
	for (int c = 0; c < cv->ncv; c++) {
		fek_hdr_addcol(&h, cv->name[c], FEK_F64, "deg");
		fek_hdr_add(&h, "AXIS", "%s -180 180 periodic deg",
		    cv->name[c]);
	}
	if (r->temp > 0)
		fek_hdr_add(&h, "TEMP", "%.17g", r->temp);
	fek_hdr_add(&h, "ENERGY", "kJ/mol");
	if (r->win != NULL)
		fek_window_write(&h, cv->ncv, &r->win[w]);
	fek_hdr_add(&h, "INEFFICIENCY", "%.17g", g);
	fek_hdr_add(&h, "CORRTIME", "%.17g", (g - 1) / 2);
	fek_hdr_add(&h, "REPLICAS", "%ld", bt->nrep);
	fek_hdr_add(&h, "INTEGRATOR", "%s", md->integrator ==
	    FEK_MM_INT_LANGEVIN ? "langevin" : "vv");
	fek_hdr_add(&h, "TIMESTEP", "%.17g ps", md->dt);
	fek_hdr_add(&h, "SAMPLING", "%lld %ld", nsamp > 0 ? (bt->skip +
	    md->every - 1) / md->every * md->every : 0, md->every);
	fek_hdr_add(&h, "PROV", "%s", cmd);
	rc = fek_begin_section(wr, &h) < 0 || fek_write_rows(wr, xs,
	    nrep * nsamp) < 0 || fek_end_section(wr) < 0;
	fek_hdr_free(&h);
	return rc ? -1 : 0;
}

int
fek_mm_batch_write(const struct fek_mm_batch_run *r,
    const struct fek_mm_md *md, const struct fek_mm_cvset *cv, FILE *fp,
    int text, const char *cmd)
{
	struct fek_writer wr;
	int rc = 0;

	fek_writer_init(&wr, fp, text);
	for (long w = 0; w < r->bt.nwin && cv->ncv > 0 && rc == 0; w++)
		rc = batch_window(r, w, md, cv, &wr, cmd);
	fek_writer_free(&wr);
	return rc;
}

int
fek_mm_batch_gro(const struct fek_mm_batch_run *r, const char *path,
    const struct fek_mm_top *t, const struct fek_mm_md *md,
    const struct fek_box *b)
{
	long R = r->bt.nwin * r->bt.nrep, n3 = 3 * t->n;
	FILE *fp = fopen(path, "w");
	int rc = 0, bad;

	if (fp == NULL)
		return fek_seterr(FEK_EX_IOERR, "%s: %s", path,
		    strerror(errno));
	for (long k = 0; k < R && rc == 0; k++) {
		char title[512];

		snprintf(title, sizeof title, "%s replica %ld t= %.6f",
		    t->system[0] ? t->system : "md-gpu", k, md->t0 +
		    md->nsteps * md->dt);
		rc = fek_mm_gro_write(fp, t, title, b, r->x + k * n3,
		    r->v + k * n3);
	}
	bad = (fflush(fp) != 0 || ferror(fp)) | fclose(fp);
	/* fek_mm_gro_write's error does not name the file */
	if (bad || rc < 0)
		rc = fek_seterr(FEK_EX_IOERR, "%s: write error: %s", path,
		    strerror(errno ? errno : EIO));
	return rc;
}

void
fek_mm_batch_free(struct fek_mm_batch_run *r)
{
	free(r->x);
	free(r->v);
	free(r->samples);
	free(r->centre);
	free(r->spring);
	r->x = r->v = r->samples = r->centre = r->spring = NULL;
}
