/*
 * read.c - bar-solve's inputs: the insertion and deletion streams of
 * Daly, Benziger, Debenedetti & Panagiotopoulos, Comput. Phys. Commun.
 * 183, 2054 (2012) (kinds insertions, deletions, tpisums, tpihist, read
 * section by section by pert.c) from a list of files, and the files of
 * work values in kT of Bennett's acceptance ratio on general work (pymbar's
 * w_F and w_R; Bennett, J. Comput. Phys. 22, 245 (1976)).  See bar/pert.h.
 */
#include <stdlib.h>

#include "core/fek.h"
#include "bar/pert.h"
#include "stream/stream.h"

/* The sections of one file into in; -1 on a bad stream. */
static int
read_file(struct fek_pert_input *in, const char *path)
{
	struct fek_reader r;
	struct fek_header h;
	int rc;

	if (fek_reader_open(&r, path) < 0)
		return -1;
	while ((rc = fek_next_section(&r, &h)) > 0) {
		rc = fek_pert_input_section(in, &r, &h);
		fek_hdr_free(&h);
		if (rc < 0)
			break;
	}
	fek_reader_close(&r);
	return rc < 0 ? -1 : 0;
}

int
fek_pert_read(int nfiles, char **paths, struct fek_pert *p)
{
	struct fek_pert_input *in = fek_pert_input_new();
	int i, rc = 0;

	if (nfiles == 0)
		rc = read_file(in, "-");
	for (i = 0; i < nfiles && rc == 0; i++)
		rc = read_file(in, paths[i]);
	if (rc == 0)
		rc = fek_pert_build(in, p);
	fek_pert_input_free(in);
	return rc;
}

double *
fek_work_read(const char *path, long *n)
{
	struct fek_reader r;
	struct fek_header h;
	double *all = NULL, *rows;
	long long k, got;
	long cap = 0;
	int rc;

	*n = 0;
	if (fek_reader_open(&r, path) < 0)
		return NULL;
	r.allow_plain = 1;
	while ((rc = fek_next_section(&r, &h)) > 0) {
		if (h.ncols != 1) {
			fek_seterr(FEK_EX_DATA, "%s: %s%d columns, expected "
			    "one work value (kT) per line", r.name, r.plain ?
			    "" : "section has ", h.ncols);
			fek_hdr_free(&h);
			rc = -1;
			break;
		}
		got = fek_read_all(&r, &h, &rows);
		fek_hdr_free(&h);
		if (got < 0) {
			rc = -1;
			break;
		}
		if (*n + got > cap) {
			cap = 2 * (*n + got) + 16;
			all = realloc(all, (size_t)cap * sizeof *all);
			if (all == NULL)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
		}
		for (k = 0; k < got; k++)
			all[(*n)++] = rows[k];
		free(rows);
	}
	if (rc == 0 && *n == 0) {
		fek_seterr(FEK_EX_DATA, "%s: no work values", r.name);
		rc = -1;
	}
	fek_reader_close(&r);
	if (rc < 0) {
		free(all);
		*n = 0;
		return NULL;
	}
	return all;
}
