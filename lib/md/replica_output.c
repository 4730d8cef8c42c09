/*
 * replica_output.c - where md-gpu's replica jobs write (replica_run.h):
 * run mode's frames sections, DCD frames and energy log; umbrella mode's
 * samples sections, a window each, with the statistical inefficiency of
 * its samples (core/ineff.c); Milestoning's one trajectories section, a record
 * a sample (seed 003, sections 2.4.8-2.4.9, 5.1.4-5.1.5).  fek(5) names
 * the sections and their keys.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/grid.h"
#include "core/ineff.h"
#include "md/replica_run.h"

static const char *integ_names[] = { "brownian", "baoab", "verlet" };

/* The keys every section shares. */
static void
common_keys(struct fek_header *h, const struct fek_md_output *o)
{
	const struct fek_md_sys *s = &o->job->sys;

	fek_grid_write(h, o->job->dom);
	fek_hdr_add(h, "TEMP", "%.17g", o->temp);
	if (o->eunit != FEK_KT)
		fek_hdr_add(h, "ENERGY", "%s", fek_unit_name(o->eunit));
	fek_hdr_add(h, "INTEGRATOR", "%s", integ_names[s->integ]);
	fek_hdr_add(h, "TIMESTEP", "%.17g %s", s->dt, o->tunit);
}

int
fek_md_output_open(struct fek_md_output *o, const char *dcdpath,
    const char *logpath)
{
	const struct fek_md_job *job = o->job;
	struct fek_header h;
	int rc;

	fek_writer_init(&o->wr, stdout, o->text);
	o->rows_total = (job->last - job->first + 1) * job->replicas *
	    job->nsamp;
	if (dcdpath && (o->dcd = fek_dcd_open(dcdpath, job->replicas,
	    job->equil + job->every, job->every, job->sys.dt,
	    "fek md-gpu replicas")) == NULL)
		return -1;
	if (logpath == NULL)
		return 0;
	o->logpath = logpath;
	if ((o->logfp = fopen(logpath, "w")) == NULL)
		return fek_seterr(FEK_EX_IOERR, "%s: %s", logpath,
		    strerror(errno));
	fek_writer_init(&o->lw, o->logfp, 1);
	fek_hdr_init(&h, "energies");
	h.rows = -1;
	fek_hdr_addcol(&h, "step", FEK_I64, "1");
	fek_hdr_addcol(&h, "t", FEK_F64, o->tunit);
	fek_hdr_addcol(&h, "U", FEK_F64, fek_unit_name(o->eunit));
	if (job->sys.integ != FEK_MD_BROWNIAN) {
		fek_hdr_addcol(&h, "K", FEK_F64, fek_unit_name(o->eunit));
		fek_hdr_addcol(&h, "E", FEK_F64, fek_unit_name(o->eunit));
		fek_hdr_addcol(&h, "T", FEK_F64, "K");
	}
	fek_hdr_add(&h, "REPLICAS", "%lld", job->replicas);
	common_keys(&h, o);
	fek_hdr_add(&h, "POTENTIAL", "%s", job->formula);
	fek_hdr_add(&h, "PROV", "%s", o->cmd);
	rc = fek_begin_section(&o->lw, &h);
	fek_hdr_free(&h);
	return rc < 0 ? -1 : 0;
}

/* Run mode: a frames section, a DCD frame, a log row. */
int
fek_md_output_frame(struct fek_md_output *o, long long step,
    const double *x, const double *v, const double *u, long long R)
{
	const struct fek_md_sys *s = &o->job->sys;
	const struct fek_grid *dom = o->job->dom;
	int D = s->D, nc = D + (v ? D : 0) + 1, d, rc;
	double *rows = fek_scratch(&o->buf, &o->bufcap, R * nc);
	double su = 0, sk = 0;
	struct fek_header h;
	char name[FEK_NAMELEN + 8], vunit[2 * FEK_NAMELEN + 2];

	for (long long i = 0; i < R; i++) {
		double k = 0;

		for (d = 0; d < D; d++) {
			rows[i * nc + d] = x[i * D + d];
			if (v) {
				rows[i * nc + D + d] = v[i * D + d];
				k += 0.5 * s->mass * v[i * D + d] * v[i * D + d];
			}
		}
		rows[i * nc + nc - 1] = u[i];
		su += u[i];
		sk += k;
	}
	fek_hdr_init(&h, "frames");
	h.rows = R;
	snprintf(vunit, sizeof vunit, "%s/%s", o->unit, o->tunit);
	for (d = 0; d < D; d++)
		fek_hdr_addcol(&h, dom->ax[d].name, FEK_F64, o->unit);
	for (d = 0; v && d < D; d++) {
		snprintf(name, sizeof name, "v_%s", dom->ax[d].name);
		name[FEK_NAMELEN - 1] = '\0';
		fek_hdr_addcol(&h, name, FEK_F64, strlen(vunit) <
		    FEK_NAMELEN ? vunit : "1");
	}
	fek_hdr_addcol(&h, "U", FEK_F64, fek_unit_name(o->eunit));
	fek_hdr_add(&h, "STEP", "%lld", step);
	fek_hdr_add(&h, "TIME", "%.17g", step * s->dt);
	common_keys(&h, o);
	fek_hdr_add(&h, "POTENTIAL", "%s", o->job->formula);
	fek_hdr_add(&h, "PROV", "%s", o->cmd);
	rc = fek_begin_section(&o->wr, &h) < 0 || fek_write_rows(&o->wr,
	    rows, R) < 0 || fek_end_section(&o->wr) < 0;
	fek_hdr_free(&h);
	if (rc)
		return -1;
	if (o->dcd && fek_dcd_frame(o->dcd, x, D) < 0)
		return -1;
	if (o->logfp) {
		double row[6], kb = fek_kb(o->eunit);

		row[0] = (double)step;
		row[1] = step * s->dt;
		row[2] = su / R;
		row[3] = sk / R;
		row[4] = (su + sk) / R;
		/* 2 <K> / (D kB); in kT units kB = 1 / TEMP */
		row[5] = 2 * sk / R / D / (kb > 0 ? kb : 1 / o->temp);
		if (fek_write_rows(&o->lw, row, 1) < 0)
			return -1;
	}
	return 0;
}

/* Umbrella mode: window w's samples section. */
int
fek_md_output_window(struct fek_md_output *o, long w, const double *x,
    long long nrep, long long nsamp, double *g)
{
	const struct fek_md_sys *s = &o->job->sys;
	struct fek_header h;
	int d, rc;

	*g = 1;
	for (d = 0; d < s->D; d++) {
		double gd = fek_inefficiency(x + d, nsamp, nrep, s->D,
		    o->job->win[w].centre[d], s->period[d]);

		if (gd > *g)
			*g = gd;
	}
	fek_hdr_init(&h, "samples");
	h.rows = nrep * nsamp;
	for (d = 0; d < s->D; d++)
		fek_hdr_addcol(&h, o->job->dom->ax[d].name, FEK_F64, o->unit);
	common_keys(&h, o);
	fek_window_write(&h, s->D, &o->job->win[w]);
	fek_hdr_add(&h, "INEFFICIENCY", "%.17g", *g);
	fek_hdr_add(&h, "CORRTIME", "%.17g", (*g - 1) / 2);
	fek_hdr_add(&h, "REPLICAS", "%lld", nrep);
	fek_hdr_add(&h, "PMF", "%s", o->job->formula);
	fek_hdr_add(&h, "PROV", "%s", o->cmd);
	rc = fek_begin_section(&o->wr, &h) < 0 || fek_write_rows(&o->wr, x,
	    nrep * nsamp) < 0 || fek_end_section(&o->wr) < 0;
	fek_hdr_free(&h);
	return rc ? -1 : 0;
}

/* Milestone mode: the trajectories section's header. */
static int
records_begin(struct fek_md_output *o)
{
	const struct fek_md_sys *s = &o->job->sys;
	struct fek_header h;
	int rc;

	fek_hdr_init(&h, "trajectories");
	h.rows = o->rows_total;
	fek_hdr_addcol(&h, "start", FEK_I32, "1");
	fek_hdr_addcol(&h, "end", FEK_I32, "1");
	fek_hdr_addcol(&h, "t", FEK_F64, o->tunit);
	fek_hdr_addcol(&h, "valid", FEK_I32, "1");
	fek_hdr_addcol(&h, "id", FEK_I64, "1");
	fek_hdr_addcol(&h, "bend", FEK_I32, "1");
	fek_hdr_addcol(&h, "bt", FEK_F64, o->tunit);
	fek_hdr_addcol(&h, "nself", FEK_I32, "1");
	fek_hdr_add(&h, "MILESTONES", "%d", s->nm);
	for (int i = 0; i < s->nm; i++)
		if (s->mtype == FEK_MS_POINTS)
			fek_hdr_add(&h, "MILESTONE", "%d %.17g", i,
			    s->mpos[i]);
		else
			fek_hdr_add(&h, "MILESTONE", "%d %d %d", i,
			    s->mpair[2 * i], s->mpair[2 * i + 1]);
	for (int a = 0; s->mtype == FEK_MS_VORONOI && a < s->na; a++) {
		char line[FEK_MD_MAXD * 26], *p = line;

		for (int d = 0; d < s->D; d++)
			p += sprintf(p, "%s%.17g", d ? " " : "",
			    s->anchor[a * s->D + d]);
		fek_hdr_add(&h, "ANCHOR", "%s", line);
	}
	common_keys(&h, o);
	fek_hdr_add(&h, "CROSSING", "%s", s->bridge && s->integ ==
	    FEK_MD_BROWNIAN ? "bridge" : "steps");
	fek_hdr_add(&h, "FHP", "%d", s->maxself);
	fek_hdr_add(&h, "SPRING", "%.17g", s->kres);
	fek_hdr_add(&h, "POTENTIAL", "%s", o->job->formula);
	fek_hdr_add(&h, "PROV", "%s", o->cmd);
	rc = fek_begin_section(&o->wr, &h);
	fek_hdr_free(&h);
	return rc < 0 ? -1 : 0;
}

/* Milestone mode: the one trajectories section, milestone by milestone. */
int
fek_md_output_records(struct fek_md_output *o, long m, const double *rec,
    long long n)
{
	for (long long i = 0; i < n; i++)
		if (rec[i * FEK_MD_NREC + 1] == -3)
			return fek_seterr(FEK_EX_NUMERIC, "milestone %ld: a "
			    "trajectory stopped being finite (is the time "
			    "step too large?)", m);
	if (!o->started) {
		if (records_begin(o) < 0)
			return -1;
		o->started = 1;
	}
	return fek_write_rows(&o->wr, rec, n) < 0 ? -1 : 0;
}

int
fek_md_output_finish(struct fek_md_output *o)
{
	return o->started && fek_end_section(&o->wr) < 0 ? -1 : 0;
}

int
fek_md_output_close(struct fek_md_output *o)
{
	int rc = 0;

	if (o->dcd && fek_dcd_close(o->dcd) < 0)
		return -1;
	o->dcd = NULL;
	if (o->logfp) {
		if (fek_end_section(&o->lw) < 0)
			return -1;
		if ((fflush(o->logfp) != 0 || ferror(o->logfp)) |
		    fclose(o->logfp))
			rc = fek_seterr(FEK_EX_IOERR, "%s: write error: %s",
			    o->logpath, strerror(errno ? errno : EIO));
		o->logfp = NULL;
	}
	free(o->buf);
	o->buf = NULL;
	return rc;
}
