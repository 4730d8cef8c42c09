/*
 * output.c - md-gpu's particle output (lib/pmd/output.h):
 *   frames      one section per box and frame on stdout (fek(5)): id,
 *               type, x y z, optionally velocities, forces and each
 *               particle's energy, with the cell (BOX, ORIGIN), the types
 *               (TYPE t name mass), the pair potential (PAIR) and the run
 *               (UNITS, STEP, TIME, TEMP, INTEGRATOR, TIMESTEP, REPLICA);
 *               what tpi-gpu(1) reads;
 *   thermo      the log: one row per box and log step (text);
 *   DCD         CHARMM/NAMD layout with the unit cell record (a, gamma, b,
 *               beta, alpha, c; lengths in A, angles in degrees), every
 *               box's particles one after the other, box 1's cell;
 *   checkpoint  one binary section holding the whole state: positions,
 *               velocities, the lists' reference positions and cells, the
 *               Nose-Hoover chains, the barostat's counters, step and seed
 *               (numbers as the bits they are, so a restart continues bit
 *               for bit).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fek.h"
#include "pmd/output.h"

/* "unit^3" for volumes. */
static void
cubed(const char *len, char *buf, size_t n)
{
	snprintf(buf, n, "%s^3", len);
}

void
fek_box_keys(struct fek_header *h, const struct fek_box *bx)
{
	fek_hdr_add(h, "BOX", "%.17g %.17g %.17g %.17g %.17g %.17g", bx->lx,
	    bx->ly, bx->lz, bx->xy, bx->xz, bx->yz);
	fek_hdr_add(h, "ORIGIN", "%.17g %.17g %.17g", bx->lo[0], bx->lo[1],
	    bx->lo[2]);
}

/* The keys that describe the system and the run. */
static void
run_keys(struct fek_header *h, const struct fek_pmd_output *o,
    const struct fek_psys *s)
{
	const struct fek_md_units *u = o->units;
	const struct fek_pmd_par *par = o->par;
	char line[512];

	fek_hdr_add(h, "UNITS", "%s", u->name);
	fek_hdr_add(h, "NTYPES", "%d", s->ntypes);
	for (int t = 0; t < s->ntypes; t++)
		fek_hdr_add(h, "TYPE", "%d %s %.17g", t, s->tname[t][0] ?
		    s->tname[t] : "-", s->mass[t]);
	for (int i = 0; i < s->ntypes; i++)
		for (int j = i; j < s->ntypes; j++) {
			fek_pair_describe(o->pp, i, j, line, sizeof line);
			fek_hdr_add(h, "PAIR", "%s", line);
		}
	fek_hdr_add(h, "TAIL", "%s", o->pp->tail && o->pp->style ==
	    FEK_PAIR_LJ && !o->pp->wca ? "yes" : "no");
	fek_hdr_add(h, "TEMP", "%.17g %s", par->kT / u->kb, u->temp);
	if (par->baro)
		fek_hdr_add(h, "PRESSURE", "%.17g %s", par->pressure *
		    u->pressure_unit, u->pressure);
	fek_hdr_add(h, "INTEGRATOR", "%s", o->integ_name);
	fek_hdr_add(h, "TIMESTEP", "%.17g %s", par->dt * u->time_unit,
	    u->time);
}

static int
sink_frame(void *ctx, const struct fek_psys *s, int b, const double *x,
    const double *v, const double *f, const double *u_i)
{
	struct fek_pmd_output *o = ctx;
	const struct fek_md_units *u = o->units;
	int wv = o->want_v, nc = 5 + 3 * wv + 4 * (f != NULL), c;
	double *rows = fek_scratch(&o->buf, &o->bufcap, s->n * nc);
	double tu = u->time_unit;
	struct fek_header h;
	char vunit[FEK_NAMELEN], funit[64];

	for (long i = 0; i < s->n; i++) {
		double *r = rows + i * nc;

		r[0] = (double)s->id[i];
		r[1] = s->type[i];
		for (c = 0; c < 3; c++) {
			r[2 + c] = x[3 * i + c];
			if (wv)
				r[5 + c] = v[3 * i + c] / tu;
			if (f)
				r[5 + 3 * wv + c] = f[3 * i + c];
		}
		if (f)
			r[8 + 3 * wv] = u_i[i];
	}
	fek_hdr_init(&h, "frames");
	h.rows = s->n;
	fek_hdr_addcol(&h, "id", FEK_I64, "1");
	fek_hdr_addcol(&h, "type", FEK_I32, "1");
	fek_hdr_addcol(&h, "x", FEK_F64, u->length);
	fek_hdr_addcol(&h, "y", FEK_F64, u->length);
	fek_hdr_addcol(&h, "z", FEK_F64, u->length);
	if (wv) {
		snprintf(vunit, sizeof vunit, "%s", u->velocity);
		fek_hdr_addcol(&h, "vx", FEK_F64, vunit);
		fek_hdr_addcol(&h, "vy", FEK_F64, vunit);
		fek_hdr_addcol(&h, "vz", FEK_F64, vunit);
	}
	if (f) {
		snprintf(funit, sizeof funit, "%s/%s", u->energy, u->length);
		funit[FEK_NAMELEN - 1] = '\0';
		fek_hdr_addcol(&h, "fx", FEK_F64, funit);
		fek_hdr_addcol(&h, "fy", FEK_F64, funit);
		fek_hdr_addcol(&h, "fz", FEK_F64, funit);
		fek_hdr_addcol(&h, "u", FEK_F64, u->energy);
	}
	fek_hdr_add(&h, "STEP", "%lld", s->step);
	fek_hdr_add(&h, "TIME", "%.17g %s", s->step * o->par->dt * tu,
	    u->time);
	fek_hdr_add(&h, "REPLICA", "%d %d", b + 1, s->nbox);
	fek_box_keys(&h, &s->box[b]);
	run_keys(&h, o, s);
	fek_hdr_add(&h, "PROV", "%s", o->cmd);
	if (fek_begin_section(&o->wr, &h) < 0 || fek_write_rows(&o->wr, rows,
	    s->n) < 0 || fek_end_section(&o->wr) < 0) {
		fek_hdr_free(&h);
		return -1;
	}
	fek_hdr_free(&h);
	if (o->dcd) {
		/* every box's particles in one frame, in A for gmx units */
		double *all = o->dcdbuf, lf = strcmp(u->name, "gmx") == 0 ?
		    10 : 1;

		for (long i = 0; i < 3 * s->n; i++)
			all[3 * s->n * b + i] = lf * x[i];
		if (b == s->nbox - 1) {
			const struct fek_box *bx = &s->box[0];
			double a = bx->lx, bb = hypot(bx->xy, bx->ly);
			double cc = sqrt(bx->xz * bx->xz + bx->yz * bx->yz +
			    bx->lz * bx->lz), cell[6];

			cell[0] = lf * a;
			cell[2] = lf * bb;
			cell[5] = lf * cc;
			/* gamma (a, b), beta (a, c), alpha (b, c) */
			cell[1] = acos(bx->xy / bb) * 180 / M_PI;
			cell[3] = acos(bx->xz / cc) * 180 / M_PI;
			cell[4] = acos((bx->xy * bx->xz + bx->ly * bx->yz) /
			    (bb * cc)) * 180 / M_PI;
			if (fek_dcd_frame_cell(o->dcd, all, 3, cell) < 0)
				return -1;
		}
	}
	o->nframes++;
	return 0;
}

static int
sink_thermo(void *ctx, long long step, int b, const struct fek_pmd_thermo *t)
{
	struct fek_pmd_output *o = ctx;
	const struct fek_md_units *u = o->units;
	const struct fek_pmd_par *par = o->par;
	double row[16], pu = u->pressure_unit;
	int k = 0;

	if (o->logfp == NULL)
		return 0;
	if (!o->lw.open) {
		struct fek_header h;
		char vol[FEK_NAMELEN], rho[FEK_NAMELEN + 2];

		cubed(u->length, vol, sizeof vol);
		snprintf(rho, sizeof rho, "1/%s", vol);
		fek_hdr_init(&h, "thermo");
		h.rows = -1;
		fek_hdr_addcol(&h, "step", FEK_I64, "1");
		fek_hdr_addcol(&h, "t", FEK_F64, u->time);
		fek_hdr_addcol(&h, "replica", FEK_I32, "1");
		fek_hdr_addcol(&h, "T", FEK_F64, u->temp);
		fek_hdr_addcol(&h, "U", FEK_F64, u->energy);
		fek_hdr_addcol(&h, "Utail", FEK_F64, u->energy);
		fek_hdr_addcol(&h, "K", FEK_F64, u->energy);
		fek_hdr_addcol(&h, "E", FEK_F64, u->energy);
		fek_hdr_addcol(&h, "H", FEK_F64, u->energy);
		fek_hdr_addcol(&h, "P", FEK_F64, u->pressure);
		fek_hdr_addcol(&h, "Ptail", FEK_F64, u->pressure);
		fek_hdr_addcol(&h, "W", FEK_F64, u->energy);
		fek_hdr_addcol(&h, "V", FEK_F64, vol);
		fek_hdr_addcol(&h, "rho", FEK_F64, rho);
		fek_hdr_addcol(&h, "acc", FEK_F64, "1");
		fek_hdr_addcol(&h, "nbuild", FEK_I64, "1");
		fek_hdr_add(&h, "PARTICLES", "%ld", o->nparticles);
		fek_hdr_add(&h, "REPLICAS", "%d", o->nbox);
		fek_hdr_add(&h, "UNITS", "%s", u->name);
		fek_hdr_add(&h, "TEMP", "%.17g %s", par->kT / u->kb, u->temp);
		if (par->baro)
			fek_hdr_add(&h, "PRESSURE", "%.17g %s", par->pressure *
			    pu, u->pressure);
		fek_hdr_add(&h, "INTEGRATOR", "%s", o->integ_name);
		fek_hdr_add(&h, "TIMESTEP", "%.17g %s", par->dt * u->time_unit,
		    u->time);
		fek_hdr_add(&h, "PROV", "%s", o->cmd);
		if (fek_begin_section(&o->lw, &h) < 0) {
			fek_hdr_free(&h);
			return -1;
		}
		fek_hdr_free(&h);
	}
	row[k++] = (double)step;
	row[k++] = step * par->dt * u->time_unit;
	row[k++] = b + 1;
	row[k++] = t->T / u->kb;
	row[k++] = t->U;
	row[k++] = t->Utail;
	row[k++] = t->K;
	row[k++] = t->K + t->U + t->Utail;
	row[k++] = t->H;
	row[k++] = t->P * pu;
	row[k++] = t->Ptail * pu;
	row[k++] = t->W;
	row[k++] = t->V;
	row[k++] = o->nparticles / t->V;
	row[k++] = t->acc;
	row[k++] = (double)t->nbuild;
	return fek_write_rows(&o->lw, row, 1);
}

static int
sink_checkpoint(void *ctx, const struct fek_psys *s)
{
	struct fek_pmd_output *o = ctx;

	if (o->ckpt_path == NULL)
		return 0;
	return fek_pmd_checkpoint_write(s, o->par->seed, o->units->name,
	    o->ckpt_path);
}

static void
sink_progress(void *ctx, double done, double rate)
{
	struct fek_pmd_output *o = ctx;

	fek_progress_tell(o->progress, done * o->progress->total,
	    "%.4g steps/s", rate);
}

/* Whether path (and path.tmp, which is renamed over it) may be written
 * as a checkpoint: each absent or a regular file (not a device, a FIFO,
 * a directory or a symbolic link, which the rename would replace).  0, or
 * -1 with fek_seterr(74). */
static int
ckpt_target_ok(const char *path, const char *tmp)
{
	const char *p[2] = { path, tmp };
	struct stat st;

	for (int k = 0; k < 2; k++) {
		if (lstat(p[k], &st) < 0) {
			if (errno == ENOENT)
				continue;
			return fek_seterr(FEK_EX_IOERR, "%s: %s", p[k],
			    strerror(errno));
		}
		if (!S_ISREG(st.st_mode))
			return fek_seterr(FEK_EX_IOERR, "%s: not a regular "
			    "file: a checkpoint is written to %s.tmp and "
			    "renamed over %s, which would replace it", p[k],
			    path, path);
	}
	return 0;
}

/* path.tmp, allocated. */
static char *
ckpt_tmpname(const char *path)
{
	size_t len = strlen(path) + 5;
	char *tmp = fek_alloc(len, 1);

	snprintf(tmp, len, "%s.tmp", path);
	return tmp;
}

int
fek_pmd_checkpoint_check(const char *path)
{
	char *tmp = ckpt_tmpname(path);
	int rc = ckpt_target_ok(path, tmp);

	free(tmp);
	return rc;
}

int
fek_pmd_output_open(struct fek_pmd_output *o, const struct fek_psys *s,
    const char *dcdpath, long long istart, long long nsavc,
    const char *logpath, const char *ckpt_path)
{
	fek_writer_init(&o->wr, stdout, o->text);
	o->logpath = logpath;
	o->ckpt_path = ckpt_path;
	o->nparticles = s->n;
	o->nbox = s->nbox;
	if (ckpt_path != NULL && fek_pmd_checkpoint_check(ckpt_path) < 0)
		return -1;
	if (dcdpath) {
		if ((o->dcd = fek_dcd_open_cell(dcdpath, s->n * s->nbox, istart,
		    nsavc, o->par->dt * o->units->time_unit,
		    "fek md-gpu particles")) == NULL)
			return -1;
		o->dcdbuf = fek_alloc(3 * s->n * s->nbox, sizeof *o->dcdbuf);
	}
	if (logpath) {
		if ((o->logfp = fopen(logpath, "w")) == NULL)
			return fek_seterr(FEK_EX_IOERR, "%s: %s", logpath,
			    strerror(errno));
		fek_writer_init(&o->lw, o->logfp, 1);
	}
	return 0;
}

void
fek_pmd_output_sink(struct fek_pmd_output *o, struct fek_pmd_sink *k)
{
	memset(k, 0, sizeof *k);
	k->ctx = o;
	k->frame = sink_frame;
	k->thermo = sink_thermo;
	k->checkpoint = sink_checkpoint;
	k->progress = o->progress != NULL && fek_progress_on(o->progress) ?
	    sink_progress : NULL;
}

int
fek_pmd_output_close(struct fek_pmd_output *o)
{
	int rc = 0;

	if (o->dcd && fek_dcd_close(o->dcd) < 0)
		rc = -1;
	if (o->logfp) {
		if (o->lw.open && fek_end_section(&o->lw) < 0)
			rc = -1;
		if ((fflush(o->logfp) != 0 || ferror(o->logfp)) | fclose(
		    o->logfp))
			rc = fek_seterr(FEK_EX_IOERR, "%s: write error: %s",
			    o->logpath, strerror(errno ? errno : EIO));
	}
	free(o->buf);
	free(o->dcdbuf);
	o->buf = o->dcdbuf = NULL;
	return rc;
}

/* ---- checkpoints -------------------------------------------------------- */

#define CKPT_COLS 11	/* x y z vx vy vz xr yr zr type id */

int
fek_pmd_checkpoint_write(const struct fek_psys *s, uint64_t seed,
    const char *units, const char *path)
{
	char *tmp;
	FILE *fp;
	struct fek_writer w;
	struct fek_header h;
	double *rows;
	struct stat st;
	int rc = -1, fd;

	/* checked again at each write (what was there at the start may have
	 * changed); no symbolic link followed, no FIFO waited on */
	tmp = ckpt_tmpname(path);
	if (ckpt_target_ok(path, tmp) < 0) {
		free(tmp);
		return -1;
	}
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC, 0666)) < 0) {
		fek_seterr(FEK_EX_IOERR, "%s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	fp = NULL;
	if (fstat(fd, &st) < 0)
		fek_seterr(FEK_EX_IOERR, "%s: %s", tmp, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		fek_seterr(FEK_EX_IOERR, "%s: not a regular file", tmp);
	else if ((fp = fdopen(fd, "wb")) == NULL)
		fek_seterr(FEK_EX_IOERR, "%s: %s", tmp, strerror(errno));
	if (fp == NULL) {
		close(fd);
		free(tmp);
		return -1;
	}
	fek_writer_init(&w, fp, 0);
	w.text = 0;
	fek_hdr_init(&h, "checkpoint");
	h.rows = (long long)s->n * s->nbox;
	fek_hdr_addcol(&h, "x", FEK_F64, "1");
	fek_hdr_addcol(&h, "y", FEK_F64, "1");
	fek_hdr_addcol(&h, "z", FEK_F64, "1");
	fek_hdr_addcol(&h, "vx", FEK_F64, "1");
	fek_hdr_addcol(&h, "vy", FEK_F64, "1");
	fek_hdr_addcol(&h, "vz", FEK_F64, "1");
	fek_hdr_addcol(&h, "xr", FEK_F64, "1");
	fek_hdr_addcol(&h, "yr", FEK_F64, "1");
	fek_hdr_addcol(&h, "zr", FEK_F64, "1");
	fek_hdr_addcol(&h, "type", FEK_I32, "1");
	fek_hdr_addcol(&h, "id", FEK_I64, "1");
	fek_hdr_add(&h, "STEP", "%lld", s->step);
	fek_hdr_add(&h, "SEED", "%llu", (unsigned long long)seed);
	fek_hdr_add(&h, "UNITS", "%s", units);
	fek_hdr_add(&h, "PARTICLES", "%ld", s->n);
	fek_hdr_add(&h, "REPLICAS", "%d", s->nbox);
	fek_hdr_add(&h, "NTYPES", "%d", s->ntypes);
	for (int t = 0; t < s->ntypes; t++)
		fek_hdr_add(&h, "TYPE", "%d %s %a", t, s->tname[t][0] ?
		    s->tname[t] : "-", s->mass[t]);
	for (int b = 0; b < s->nbox; b++) {
		const struct fek_box *x = &s->box[b], *r = &s->boxref[b];
		const struct fek_nhc *c = &s->nhc[b];
		char line[FEK_NHC_MAX * 2 * 26 + 8], *p = line;

		fek_hdr_add(&h, "CELL", "%d %a %a %a %a %a %a %a %a %a", b,
		    x->lo[0], x->lo[1], x->lo[2], x->lx, x->ly, x->lz, x->xy,
		    x->xz, x->yz);
		fek_hdr_add(&h, "CELLREF", "%d %a %a %a %a %a %a %a %a %a", b,
		    r->lo[0], r->lo[1], r->lo[2], r->lx, r->ly, r->lz, r->xy,
		    r->xz, r->yz);
		for (int k = 0; k < FEK_NHC_MAX; k++)
			p += sprintf(p, " %a %a", c->xi[k], c->vxi[k]);
		fek_hdr_add(&h, "CHAIN", "%d %a%s", b, s->twoK[b], line);
		fek_hdr_add(&h, "BAROSTAT", "%d %a %ld %ld %ld", b, s->dvmax[b],
		    s->natt[b], s->nacc[b], s->nacc0[b]);
	}
	if (fek_begin_section(&w, &h) < 0)
		goto out;
	rows = fek_alloc(CKPT_COLS * s->n, sizeof *rows);
	for (int b = 0; b < s->nbox; b++) {
		for (long i = 0; i < s->n; i++) {
			double *r = rows + CKPT_COLS * i;
			long k = 3 * (s->n * b + i);

			for (int d = 0; d < 3; d++) {
				r[d] = s->x[k + d];
				r[3 + d] = s->v[k + d];
				r[6 + d] = s->xref[k + d];
			}
			r[9] = s->type[i];
			r[10] = (double)s->id[i];
		}
		if (fek_write_rows(&w, rows, s->n) < 0) {
			free(rows);
			goto out;
		}
	}
	free(rows);
	if (fek_end_section(&w) < 0)
		goto out;
	rc = 0;
out:
	fek_hdr_free(&h);
	fek_writer_free(&w);
	if ((fflush(fp) != 0 || ferror(fp)) | fclose(fp)) {
		if (rc == 0)
			fek_seterr(FEK_EX_IOERR, "%s: write error: %s", tmp,
			    strerror(errno ? errno : EIO));
		rc = -1;
	}
	if (rc == 0 && rename(tmp, path) != 0)
		rc = fek_seterr(FEK_EX_IOERR, "%s: %s", path, strerror(errno));
	if (rc < 0)
		remove(tmp);
	free(tmp);
	return rc;
}

/* The n-th line of key as numbers after its leading box index b; -1 with
 * a message naming the key. */
static int
key_numbers(struct fek_reader *r, const struct fek_header *h,
    const char *key, int b, int want, double *out)
{
	const char *v;
	char *end;
	int n = fek_hdr_count(h, key);

	for (int k = 0; k < n; k++) {
		v = fek_hdr_get(h, key, k);
		if (strtol(v, &end, 10) != b || end == v)
			continue;
		for (int j = 0; j < want; j++) {
			v = end;
			out[j] = strtod(v, &end);
			if (end == v || !isfinite(out[j]))
				return fek_rerr(r, FEK_EX_DATA, "%s %d: want %d "
				    "numbers", key, b, want);
		}
		return 0;
	}
	return fek_rerr(r, FEK_EX_DATA, "no %s line for replica %d", key, b);
}

int
fek_pmd_checkpoint_read(struct fek_psys *s, const char *path, char *units,
    size_t ulen)
{
	struct fek_reader r;
	struct fek_header h;
	double *rows = NULL, v[2 + 2 * FEK_NHC_MAX];
	long n, nt, nbox;
	long long nrow;
	int rc = -1, got;
	const char *val;
	char name[64];

	memset(s, 0, sizeof *s);
	if (fek_reader_open(&r, path) < 0)
		return -1;
	memset(&h, 0, sizeof h);
	if ((got = fek_next_section(&r, &h)) <= 0) {
		if (got == 0)
			fek_rerr(&r, FEK_EX_DATA, "empty: not a checkpoint");
		goto out_noh;
	}
	if (strcmp(h.kind, "checkpoint") != 0) {
		fek_rerr(&r, FEK_EX_DATA, "KIND %s: not a checkpoint", h.kind);
		goto out;
	}
	if (fek_key_doubles(&r, &h, "PARTICLES", 1, v) < 0)
		goto out;
	n = (long)v[0];
	if (fek_key_doubles(&r, &h, "REPLICAS", 1, v) < 0)
		goto out;
	nbox = (long)v[0];
	if (fek_key_doubles(&r, &h, "NTYPES", 1, v) < 0)
		goto out;
	nt = (long)v[0];
	if (n < 1 || nbox < 1 || nbox > 1 << 30 || nt < 1 || nt >
	    FEK_PMD_MAXTYPES || h.rows != (long long)n * nbox || h.ncols !=
	    CKPT_COLS) {
		fek_rerr(&r, FEK_EX_DATA, "PARTICLES, REPLICAS, NTYPES or the "
		    "rows do not fit");
		goto out;
	}
	fek_psys_alloc(s, n, (int)nbox, (int)nt);
	if (fek_key_doubles(&r, &h, "STEP", 1, v) < 0)
		goto out;
	s->step = (long long)v[0];
	if ((val = fek_hdr_get(&h, "SEED", 0)) == NULL) {
		fek_rerr(&r, FEK_EX_DATA, "no SEED");
		goto out;
	}
	s->seed = strtoull(val, NULL, 10);
	if ((val = fek_hdr_get(&h, "UNITS", 0)) == NULL) {
		fek_rerr(&r, FEK_EX_DATA, "no UNITS");
		goto out;
	}
	snprintf(units, ulen, "%s", val);
	for (int t = 0; t < nt; t++) {
		int tt;
		double m;

		val = fek_hdr_get(&h, "TYPE", t);
		if (val == NULL || sscanf(val, "%d %63s %la", &tt, name, &m) !=
		    3 || tt != t || !(m > 0)) {
			fek_rerr(&r, FEK_EX_DATA, "TYPE line %d", t);
			goto out;
		}
		s->mass[t] = m;
		if (strcmp(name, "-") != 0) {
			name[sizeof s->tname[t] - 1] = '\0';
			memcpy(s->tname[t], name, strlen(name) + 1);
		}
	}
	for (int b = 0; b < nbox; b++) {
		struct fek_box *bx[2] = { &s->box[b], &s->boxref[b] };
		const char *key[2] = { "CELL", "CELLREF" };
		double c[9];

		for (int k = 0; k < 2; k++) {
			if (key_numbers(&r, &h, key[k], b, 9, c) < 0)
				goto out;
			memcpy(bx[k]->lo, c, 3 * sizeof *c);
			bx[k]->lx = c[3];
			bx[k]->ly = c[4];
			bx[k]->lz = c[5];
			bx[k]->xy = c[6];
			bx[k]->xz = c[7];
			bx[k]->yz = c[8];
			if (fek_box_set(bx[k]) < 0)
				goto out;
		}
		if (key_numbers(&r, &h, "CHAIN", b, 1 + 2 * FEK_NHC_MAX, v) < 0)
			goto out;
		s->twoK[b] = v[0];
		for (int k = 0; k < FEK_NHC_MAX; k++) {
			s->nhc[b].xi[k] = v[1 + 2 * k];
			s->nhc[b].vxi[k] = v[2 + 2 * k];
		}
		if (key_numbers(&r, &h, "BAROSTAT", b, 4, v) < 0)
			goto out;
		s->dvmax[b] = v[0];
		s->natt[b] = (long)v[1];
		s->nacc[b] = (long)v[2];
		s->nacc0[b] = (long)v[3];
	}
	if ((nrow = fek_read_all(&r, &h, &rows)) < 0)
		goto out;
	for (long long k = 0; k < nrow; k++) {
		const double *q = rows + CKPT_COLS * k;
		long i = (long)(k % n);

		for (int d = 0; d < 3; d++) {
			s->x[3 * k + d] = q[d];
			s->v[3 * k + d] = q[3 + d];
			s->xref[3 * k + d] = q[6 + d];
		}
		if (q[9] < 0 || q[9] >= nt) {
			fek_rerr(&r, FEK_EX_DATA, "row %lld: type %g", k + 1,
			    q[9]);
			goto out;
		}
		s->type[i] = (int)q[9];
		s->id[i] = (long long)q[10];
	}
	s->have_ref = 1;
	s->have_v = 1;
	rc = 0;
out:
	fek_hdr_free(&h);
out_noh:
	free(rows);
	fek_reader_close(&r);
	if (rc < 0 && s->x)
		fek_psys_free(s);
	return rc;
}
