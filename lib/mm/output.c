/*
 * output.c - md-gpu --top's input configuration and its outputs (mm.h):
 * a GROMACS .gro file (positions, velocities where it has them, the box;
 * GROMACS reference manual, "File formats: gro"), and the sinks of a run
 * (run.c): frames as fek frames sections (fek(5); trajin.c reads them
 * back, so a run's frames can be rerun), a DCD file with the unit cell (in
 * A, as DCD readers expect), a .gro of the last frame, and the energy log
 * as an mmenergy section with the kinetic energy and temperature.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/dcd.h"
#include "stream/stream.h"
#include "particles/config_int.h"
#include "pmd/output.h"
#include "mm/mm.h"
#include "mm/mm_output.h"

int
fek_mm_gro_read(const char *path, struct fek_mm_conf *c)
{
	struct cfg_lines l;
	struct cfg_conf cf;
	int rc;

	memset(c, 0, sizeof *c);
	memset(&cf, 0, sizeof cf);
	cf.untyped = 1;
	if (cfg_lines_open(&l, path) < 0)
		return -1;
	if ((rc = cfg_lines_next(&l)) <= 0) {
		if (rc == 0)
			fek_seterr(FEK_EX_DATA, "%s: empty file, expected a "
			    ".gro title line", l.name);
		goto fail;
	}
	snprintf(c->title, sizeof c->title, "%s", l.buf);
	if (cfg_gro_frame(&cf, &l, &c->box) < 0)
		goto fail;
	fek_box_set(&c->box);
	c->n = cf.n;
	c->x = cf.x;
	c->v = cf.v;
	c->have_v = cf.have_v;
	cf.x = cf.v = NULL;
	cfg_conf_free(&cf);
	cfg_lines_close(&l);
	return 0;
fail:
	cfg_conf_free(&cf);
	cfg_lines_close(&l);
	return -1;
}

void
fek_mm_conf_free(struct fek_mm_conf *c)
{
	free(c->x);
	free(c->v);
	memset(c, 0, sizeof *c);
}

/* ---- the sinks ------------------------------------------------------------- */

/* The columns and keys of an mmenergy section (fek(5)): frame, step, a
 * run's t, every term, pot, and a run's K, E, T and H. */
void
fek_mm_energy_header(struct fek_header *h, const struct fek_mm_top *t,
    int run)
{
	static const char *cols[FEK_MM_NTERM] = {
		"bond", "angle", "ub", "pdih", "pidih", "rb", "idih", "lj14",
		"coul14", "ljsr", "dispcorr", "coulsr", "coulrecip",
	};

	fek_hdr_init(h, "mmenergy");
	h->rows = -1;
	fek_hdr_addcol(h, "frame", FEK_I64, "1");
	fek_hdr_addcol(h, "step", FEK_I64, "1");
	if (run)
		fek_hdr_addcol(h, "t", FEK_F64, "ps");
	for (int i = 0; i < FEK_MM_NTERM; i++)
		fek_hdr_addcol(h, cols[i], FEK_F64, "kJ/mol");
	fek_hdr_addcol(h, "pot", FEK_F64, "kJ/mol");
	if (run) {
		fek_hdr_addcol(h, "K", FEK_F64, "kJ/mol");
		fek_hdr_addcol(h, "E", FEK_F64, "kJ/mol");
		fek_hdr_addcol(h, "T", FEK_F64, "K");
		fek_hdr_addcol(h, "H", FEK_F64, "kJ/mol");
		fek_hdr_addcol(h, "V", FEK_F64, "nm^3");
	}
	fek_hdr_add(h, "UNITS", "gmx");
	fek_hdr_add(h, "ATOMS", "%ld", t->n);
	if (t->system[0])
		fek_hdr_add(h, "SYSTEM", "%s", t->system);
}

static int
out_log(void *ctx, long long step, double t, const struct fek_mm_energy *e,
    double K, double T, double H, double V)
{
	struct fek_mm_out *o = ctx;
	double row[3 + FEK_MM_NTERM + 6];
	int k = 0;

	if (!isfinite(e->pot) || !isfinite(K))
		return fek_seterr(FEK_EX_NUMERIC, "step %lld: the energy is not "
		    "finite (is the time step too long, or atoms on top "
		    "of each other?)", step);
	if (o->logfp == NULL)
		return 0;
	if (!o->lw.open) {
		struct fek_header h;

		fek_mm_energy_header(&h, o->t, 1);
		fek_hdr_add(&h, "INTEGRATOR", "%s", o->integ_name);
		fek_hdr_add(&h, "TIMESTEP", "%.17g ps", o->dt);
		fek_hdr_add(&h, "DOF", "%ld", o->dof);
		if (o->temp > 0)
			fek_hdr_add(&h, "TEMP", "%.17g K", o->temp);
		fek_hdr_add(&h, "PROV", "%s", o->cmd);
		if (fek_begin_section(&o->lw, &h) < 0) {
			fek_hdr_free(&h);
			return -1;
		}
		fek_hdr_free(&h);
	}
	row[k++] = (double)o->nlog++;
	row[k++] = (double)step;
	row[k++] = t;
	for (int i = 0; i < FEK_MM_NTERM; i++)
		row[k++] = e->term[i];
	row[k++] = e->pot;
	row[k++] = K;
	row[k++] = e->pot + K;
	row[k++] = T;
	row[k++] = H;
	row[k++] = V;
	return fek_write_rows(&o->lw, row, 1);
}

static int
out_frame(void *ctx, long long step, double t, const struct fek_box *b,
    const double *x, const double *v)
{
	struct fek_mm_out *o = ctx;
	long n = o->t->n;
	struct fek_header h;

	o->last_step = step;
	for (long i = 0; i < 3 * n; i++)
		if (!isfinite(x[i]) || !isfinite(v[i]))
			return fek_seterr(FEK_EX_NUMERIC, "step %lld: atom %ld: "
			    "the state is no longer finite (is the time step too "
			    "long, or atoms on top of each other?)", step,
			    i / 3 + 1);
	if (o->fp != NULL) {
		double *rows = fek_alloc(n > 0 ? 6 * n : 1, sizeof *rows);
		int rc;

		for (long i = 0; i < n; i++)
			for (int d = 0; d < 3; d++) {
				rows[6 * i + d] = x[3 * i + d];
				rows[6 * i + 3 + d] = v[3 * i + d];
			}
		fek_hdr_init(&h, "frames");
		h.rows = n;
		fek_hdr_addcol(&h, "x", FEK_F64, "nm");
		fek_hdr_addcol(&h, "y", FEK_F64, "nm");
		fek_hdr_addcol(&h, "z", FEK_F64, "nm");
		fek_hdr_addcol(&h, "vx", FEK_F64, "nm/ps");
		fek_hdr_addcol(&h, "vy", FEK_F64, "nm/ps");
		fek_hdr_addcol(&h, "vz", FEK_F64, "nm/ps");
		fek_hdr_add(&h, "STEP", "%lld", step);
		fek_hdr_add(&h, "TIME", "%.17g ps", t);
		fek_box_keys(&h, b);
		fek_hdr_add(&h, "UNITS", "gmx");
		if (o->t->system[0])
			fek_hdr_add(&h, "SYSTEM", "%s", o->t->system);
		fek_hdr_add(&h, "PROV", "%s", o->cmd);
		rc = fek_begin_section(&o->wr, &h) < 0 ||
		    fek_write_rows(&o->wr, rows, n) < 0 ||
		    fek_end_section(&o->wr) < 0 ? -1 : 0;
		fek_hdr_free(&h);
		free(rows);
		if (rc < 0)
			return -1;
	}
	if (o->dcd != NULL) {
		double *a = fek_alloc(n > 0 ? 3 * n : 1, sizeof *a), cell[6];
		double bb = hypot(b->xy, b->ly);
		double cc = sqrt(b->xz * b->xz + b->yz * b->yz + b->lz * b->lz);
		int rc;

		for (long i = 0; i < 3 * n; i++)
			a[i] = 10 * x[i];
		/* a, gamma (a, b), b, beta (a, c), alpha (b, c), c */
		cell[0] = 10 * b->lx;
		cell[2] = 10 * bb;
		cell[5] = 10 * cc;
		cell[1] = acos(b->xy / bb) * 180 / M_PI;
		cell[3] = acos(b->xz / cc) * 180 / M_PI;
		cell[4] = acos((b->xy * b->xz + b->ly * b->yz) / (bb * cc)) *
		    180 / M_PI;
		rc = fek_dcd_frame_cell(o->dcd, a, 3, cell);
		free(a);
		if (rc < 0)
			return -1;
	}
	return 0;
}

void
fek_mm_out_init(struct fek_mm_out *o, const struct fek_mm_top *t, FILE *fp,
    FILE *logfp, int text)
{
	memset(o, 0, sizeof *o);
	o->t = t;
	o->fp = fp;
	o->logfp = logfp;
	if (fp != NULL)
		fek_writer_init(&o->wr, fp, text);
	if (logfp != NULL)
		fek_writer_init(&o->lw, logfp, 1);
	o->sink.ctx = o;
	o->sink.log = out_log;
	o->sink.frame = out_frame;
}

int
fek_mm_out_finish(struct fek_mm_out *o)
{
	int rc = 0;

	if (o->logfp != NULL && o->lw.open && fek_end_section(&o->lw) < 0)
		rc = -1;
	if (o->dcd != NULL && fek_dcd_close(o->dcd) < 0)
		rc = -1;
	o->dcd = NULL;
	if (o->fp != NULL)
		fek_writer_free(&o->wr);
	if (o->logfp != NULL)
		fek_writer_free(&o->lw);
	return rc;
}

int
fek_mm_gro_write(FILE *fp, const struct fek_mm_top *t, const char *title,
    const struct fek_box *b, const double *x, const double *v)
{
	fprintf(fp, "%s\n%ld\n", title, t->n);
	for (long i = 0; i < t->n; i++) {
		fprintf(fp, "%5d%-5.5s%5.5s%5ld%8.3f%8.3f%8.3f", t->resnr[i] %
		    100000, t->resname[i], t->aname[i], (i + 1) % 100000,
		    x[3 * i], x[3 * i + 1], x[3 * i + 2]);
		if (v != NULL)
			fprintf(fp, "%8.4f%8.4f%8.4f", v[3 * i], v[3 * i + 1],
			    v[3 * i + 2]);
		fputc('\n', fp);
	}
	if (b->xy == 0 && b->xz == 0 && b->yz == 0)
		fprintf(fp, "%10.5f%10.5f%10.5f\n", b->lx, b->ly, b->lz);
	else
		fprintf(fp, "%10.5f%10.5f%10.5f%10.5f%10.5f%10.5f%10.5f%10.5f"
		    "%10.5f\n", b->lx, b->ly, b->lz, 0.0, 0.0, b->xy, 0.0,
		    b->xz, b->yz);
	return ferror(fp) ? fek_seterr(FEK_EX_IOERR, "write error") : 0;
}
