/*
 * output.c - tpi-gpu's results as the fek(5) sections bar-solve(1) reads:
 * per frame a tpisums row (the sums of Daly et al. 2012, Algorithm 1, as
 * logarithms) and a sparse tpihist section (the energy histograms P_ins
 * and P_del of the same algorithm), or, with raw energies, insertions
 * and deletions sections (one row a move).  Energies are beta u, in kT.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "tpi/tpi_output.h"

void
fek_tpi_out_init(struct fek_tpi_out *o, FILE *fp, int text,
    const struct fek_tpi_par *par, const char *vunit, int raw)
{
	memset(o, 0, sizeof *o);
	fek_writer_init(&o->w, fp, text);
	o->par = par;
	o->raw = raw;
	snprintf(o->vunit, sizeof o->vunit, "%s", vunit);
	fek_hdr_init(&o->keys, NULL);
}

void
fek_tpi_out_free(struct fek_tpi_out *o)
{
	fek_hdr_free(&o->keys);
	fek_writer_free(&o->w);
}

/* A section's header: kind, the run's keys, the frame's provenance. */
static void
header(struct fek_tpi_out *o, struct fek_header *h, const char *kind,
    const struct fek_header *fkeys)
{
	const char *v;

	fek_hdr_init(h, kind);
	fek_hdr_copy_keys(h, &o->keys);
	for (int k = 0; fkeys && (v = fek_hdr_get(fkeys, "PROV", k)); k++)
		fek_hdr_add(h, "PROV", "%s", v);
	if (o->prov)
		fek_hdr_add(h, "PROV", "%s", o->prov);
}

static int
sums(struct fek_tpi_out *o, long long id, double V,
    const struct fek_tpi_result *r, const struct fek_header *fkeys)
{
	struct fek_header h;
	double row[10] = { (double)id, V, (double)r->n_ins, r->lnIT, r->lnIO,
	    r->uw, (double)r->n_del, r->lnDO, r->lnDT, r->um };
	int rc;

	header(o, &h, "tpisums", fkeys);
	h.rows = 1;
	fek_hdr_addcol(&h, "config", FEK_I64, "1");
	fek_hdr_addcol(&h, "V", FEK_F64, o->vunit);
	fek_hdr_addcol(&h, "n_ins", FEK_I64, "1");
	fek_hdr_addcol(&h, "lnI_T", FEK_F64, "1");
	fek_hdr_addcol(&h, "lnI_O", FEK_F64, "1");
	fek_hdr_addcol(&h, "uw_ins", FEK_F64, "kT");
	fek_hdr_addcol(&h, "n_del", FEK_I64, "1");
	fek_hdr_addcol(&h, "lnD_O", FEK_F64, "1");
	fek_hdr_addcol(&h, "lnD_T", FEK_F64, "1");
	fek_hdr_addcol(&h, "um_del", FEK_F64, "kT");
	if (r->n_del == 0)
		row[9] = 0;
	rc = fek_begin_section(&o->w, &h) < 0 ||
	    fek_write_rows(&o->w, row, 1) < 0 || fek_end_section(&o->w) < 0;
	fek_hdr_free(&h);
	return rc ? -1 : 0;
}

static int
hist(struct fek_tpi_out *o, long long id, double V,
    const struct fek_tpi_result *r, const struct fek_header *fkeys)
{
	const struct fek_tpi_par *par = o->par;
	struct fek_header h;
	long nnz = 0;
	double *rows;
	int rc;

	for (long b = 0; b < par->nbins + 2; b++)
		nnz += r->hins[b] > 0 || r->hdel[b] > 0;
	rows = fek_alloc(5 * (nnz > 0 ? nnz : 1), sizeof *rows);
	nnz = 0;
	for (long b = 0; b < par->nbins + 2; b++)
		if (r->hins[b] > 0 || r->hdel[b] > 0) {
			double *p = rows + 5 * nnz++;

			p[0] = (double)id;
			p[1] = (double)(b - 1);
			p[2] = (double)r->hins[b];
			p[3] = (double)r->hdel[b];
			p[4] = V;
		}
	header(o, &h, "tpihist", fkeys);
	h.rows = nnz;
	fek_hdr_add(&h, "AXIS", "u %.17g %.17g open kT", par->hlo, par->hlo +
	    par->nbins * par->hw);
	fek_hdr_add(&h, "BINS", "%ld", par->nbins);
	fek_hdr_addcol(&h, "config", FEK_I64, "1");
	fek_hdr_addcol(&h, "bin", FEK_I32, "1");
	fek_hdr_addcol(&h, "n_ins", FEK_I64, "1");
	fek_hdr_addcol(&h, "n_del", FEK_I64, "1");
	fek_hdr_addcol(&h, "V", FEK_F64, o->vunit);
	rc = fek_begin_section(&o->w, &h) < 0 ||
	    fek_write_rows(&o->w, rows, nnz) < 0 || fek_end_section(&o->w) < 0;
	fek_hdr_free(&h);
	free(rows);
	return rc ? -1 : 0;
}

/* insertions or deletions: a row a move */
static int
moves(struct fek_tpi_out *o, const char *kind, long long id, double V,
    const double *bu, long long n, const struct fek_header *fkeys)
{
	struct fek_header h;
	double rows[3 * 1024];
	int rc = 0;

	header(o, &h, kind, fkeys);
	h.rows = n;
	fek_hdr_addcol(&h, "config", FEK_I64, "1");
	fek_hdr_addcol(&h, "u", FEK_F64, "kT");
	fek_hdr_addcol(&h, "V", FEK_F64, o->vunit);
	if (fek_begin_section(&o->w, &h) < 0)
		rc = -1;
	for (long long i = 0; rc == 0 && i < n; i += 1024) {
		long m = n - i < 1024 ? (long)(n - i) : 1024;

		for (long k = 0; k < m; k++) {
			rows[3 * k] = (double)id;
			rows[3 * k + 1] = bu[i + k];
			rows[3 * k + 2] = V;
		}
		if (fek_write_rows(&o->w, rows, m) < 0)
			rc = -1;
	}
	if (rc == 0 && fek_end_section(&o->w) < 0)
		rc = -1;
	fek_hdr_free(&h);
	return rc;
}

int
fek_tpi_out_frame(struct fek_tpi_out *o, long long id, double V,
    const struct fek_tpi_result *r, const struct fek_header *fkeys)
{
	if (o->raw)
		return moves(o, "insertions", id, V, r->u_ins, r->n_ins,
		    fkeys) < 0 || (r->n_del > 0 && moves(o, "deletions", id, V,
		    r->u_del, r->n_del, fkeys) < 0) ? -1 : 0;
	return sums(o, id, V, r, fkeys) < 0 || hist(o, id, V, r, fkeys) < 0 ?
	    -1 : 0;
}
