/*
 * rerun.c - md-gpu --top --rerun (mm_setup.h): the energies of stored
 * frames, every term of each as gmx mdrun -rerun reports them, on the
 * CPU (energy.c) or the GPU (kernels/mm/energy.cu), as one mmenergy section.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "particles/trajin.h"
#include "mm/mm_setup.h"
#include "mm/mm_gpu.h"

/* The rows so far: nrow of them, room for cap. */
struct rows {
	double *r;
	long nrow, cap;
};

#define NCOL (2 + FEK_MM_NTERM + 1)

static double *
rows_next(struct rows *w)
{
	if (w->nrow == w->cap) {
		long cap = w->cap ? 2 * w->cap : 64;
		double *r = fek_alloc((size_t)cap * NCOL, sizeof *r);

		if (w->nrow > 0)
			memcpy(r, w->r, (size_t)w->nrow * NCOL * sizeof *r);
		free(w->r);
		w->r = r;
		w->cap = cap;
	}
	return w->r + (size_t)w->nrow++ * NCOL;
}

/* The first term of e that is not finite, or -1. */
static int
not_finite(const struct fek_mm_energy *e)
{
	for (int k = 0; k < FEK_MM_NTERM; k++)
		if (!isfinite(e->term[k]))
			return k;
	return isfinite(e->pot) ? -1 : FEK_MM_NTERM;
}

/*
 * The frames of tin, a row each, into out: every frame checked (its
 * atoms, its box against the cut-offs, its energies finite) before
 * anything is written.  The PME grid is the first frame's on both
 * devices, as gmx mdrun -rerun keeps the run input's.
 */
static int
rerun_frames(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const char *top, const char *path, struct fek_trajin *tin, int gpu,
    struct rows *out)
{
	struct fek_mm_gpu *g = NULL;
	struct fek_mm_force *c = NULL;
	struct fek_mm_energy e;
	struct fek_frame fr;
	size_t wlen = strlen(path) + 32;
	char *what = fek_alloc(wlen, 1);
	double *f, *row;
	int rc, bad;

	memset(&fr, 0, sizeof fr);
	f = fek_alloc(3 * (t->n > 0 ? t->n : 1), sizeof *f);
	while ((rc = fek_trajin_next(tin, &fr)) == 1) {
		snprintf(what, wlen, "%s: frame %ld", path, fr.ordinal + 1);
		if (fr.n != t->n) {
			rc = fek_seterr(FEK_EX_DATA, "%s: %ld atoms, but %s has "
			    "%ld", what, fr.n, top, t->n);
			break;
		}
		if ((rc = fek_mm_box_check(o, &fr.box, what)) < 0)
			break;
		/* the frame's virtual sites as they are, as gmx mdrun
		 * -rerun takes them; the PME grid of the first frame's cell */
		if (gpu && g == NULL && (g = fek_mm_gpu_new(t, o, &fr.box)) ==
		    NULL) {
			rc = -1;
			break;
		}
		if (!gpu && c == NULL && (c = fek_mm_force_new(t, o,
		    &fr.box)) == NULL) {
			rc = -1;
			break;
		}
		if ((gpu ? fek_mm_gpu_eval(g, &fr.box, 0, fr.x, f, &e) :
		    fek_mm_force_eval(c, &fr.box, 0, fr.x, f, &e)) < 0) {
			rc = -1;
			break;
		}
		if ((bad = not_finite(&e)) >= 0) {
			rc = fek_seterr(FEK_EX_NUMERIC, "%s: the energy %s is "
			    "not finite (atoms on top of each other?)", what,
			    bad < FEK_MM_NTERM ? fek_mm_term_name(bad) :
			    "(the sum)");
			break;
		}
		row = rows_next(out);
		row[0] = (double)(out->nrow - 1);
		row[1] = (double)fr.step;
		for (int k = 0; k < FEK_MM_NTERM; k++)
			row[2 + k] = e.term[k];
		row[2 + FEK_MM_NTERM] = e.pot;
	}
	if (rc == 0 && out->nrow == 0)
		rc = fek_seterr(FEK_EX_DATA, "%s: no frames", path);
	fek_frame_free(&fr);
	fek_mm_gpu_free(g);
	fek_mm_force_free(c);
	free(f);
	free(what);
	return rc < 0 ? -1 : 0;
}

int
fek_mm_rerun(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const char *top, const char *path, const char *format, int gpu,
    FILE *fp, int text, const char *cmd)
{
	struct fek_trajin *tin;
	struct fek_writer w;
	struct fek_header h;
	struct rows out = { NULL, 0, 0 };
	int rc = -1;

	if ((tin = fek_trajin_open(path, format, 1)) == NULL)
		return -1;
	fek_trajin_set_untyped(tin);
	if (rerun_frames(t, o, top, path, tin, gpu, &out) < 0) {
		fek_trajin_close(tin);
		free(out.r);
		return -1;
	}
	fek_trajin_close(tin);
	fek_writer_init(&w, fp, text);
	fek_mm_energy_header(&h, t, 0);
	fek_hdr_add(&h, "PROV", "%s", cmd);
	if (fek_begin_section(&w, &h) == 0 && fek_write_rows(&w, out.r,
	    out.nrow) == 0 && fek_end_section(&w) == 0)
		rc = 0;
	fek_writer_free(&w);
	fek_hdr_free(&h);
	free(out.r);
	return rc;
}
