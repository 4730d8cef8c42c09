/*
 * rerun.c - md-gpu --top --rerun (mm_setup.h): the energies of stored
 * frames, every term of each as gmx mdrun -rerun reports them, on the
 * CPU (energy.c) or the GPU (kernels/mm/energy.cu), as one mmenergy section.
 */
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "particles/trajin.h"
#include "mm/mm_setup.h"
#include "mm/mm_gpu.h"

/* The frames of tin, a row each, into w's open section. */
static int
rerun_frames(const struct fek_mm_top *t, const struct fek_mm_opt *o,
    const char *top, const char *path, struct fek_trajin *tin, int gpu,
    struct fek_writer *w)
{
	struct fek_mm_gpu *g = NULL;
	struct fek_mm_energy e;
	struct fek_frame fr;
	double *f, row[2 + FEK_MM_NTERM + 1];
	long nframes = 0;
	int rc;

	memset(&fr, 0, sizeof fr);
	f = fek_alloc(3 * (t->n > 0 ? t->n : 1), sizeof *f);
	while ((rc = fek_trajin_next(tin, &fr)) == 1) {
		if (fr.n != t->n) {
			rc = fek_seterr(FEK_EX_DATA, "%s: frame %ld: %ld "
			    "atoms, but %s has %ld", path, fr.ordinal + 1,
			    fr.n, top, t->n);
			break;
		}
		/* the frame's virtual sites as they are, as gmx mdrun
		 * -rerun takes them; on the GPU the PME grid of the first
		 * frame's cell */
		if (gpu && g == NULL && (g = fek_mm_gpu_new(t, o, &fr.box)) ==
		    NULL) {
			rc = -1;
			break;
		}
		if ((gpu ? fek_mm_gpu_eval(g, &fr.box, 0, fr.x, f, &e) :
		    fek_mm_single_point(t, o, &fr.box, 0, fr.x, f, &e)) < 0) {
			rc = -1;
			break;
		}
		row[0] = (double)nframes;
		row[1] = (double)fr.step;
		for (int k = 0; k < FEK_MM_NTERM; k++)
			row[2 + k] = e.term[k];
		row[2 + FEK_MM_NTERM] = e.pot;
		if ((rc = fek_write_rows(w, row, 1)) < 0)
			break;
		nframes++;
	}
	if (rc == 0 && nframes == 0)
		rc = fek_seterr(FEK_EX_DATA, "%s: no frames", path);
	fek_frame_free(&fr);
	fek_mm_gpu_free(g);
	free(f);
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
	int rc = -1;

	if ((tin = fek_trajin_open(path, format, 1)) == NULL)
		return -1;
	fek_trajin_set_untyped(tin);
	fek_writer_init(&w, fp, text);
	fek_mm_energy_header(&h, t, 0);
	fek_hdr_add(&h, "PROV", "%s", cmd);
	if (fek_begin_section(&w, &h) == 0 && rerun_frames(t, o, top, path,
	    tin, gpu, &w) == 0 && fek_end_section(&w) == 0)
		rc = 0;
	fek_writer_free(&w);
	fek_hdr_free(&h);
	fek_trajin_close(tin);
	return rc;
}
