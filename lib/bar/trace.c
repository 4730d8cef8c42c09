/*
 * trace.c - bar-solve -c: the convergence trace of the estimates of bar.c
 * (Daly, Benziger, Debenedetti and Panagiotopoulos, Comput. Phys. Commun.
 * 183, 2054 (2012), Eqs. 1-6; their errors as bar.h says) over growing
 * prefixes of the data (fek_trace_points), as a fek(5) convergence
 * section; fek_trace_save writes it to a file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "bar/bar.h"
#include "stream/stream.h"

int
fek_trace_write(FILE *fp, const struct fek_pert *p, const int *want,
    int argc, char **argv, void (*progress)(long row, long n))
{
	struct fek_header h;
	struct fek_writer w;
	struct fek_estimate e;
	char col[32];
	double row[4 + 2 * FEK_NMETHOD + 1];
	long *pt = NULL, npt, j, c, k[2];
	int m, s, nc, ok;

	fek_hdr_init(&h, "convergence");
	h.rows = -1;
	fek_hdr_addcol(&h, "k_ins", FEK_I64, "1");
	fek_hdr_addcol(&h, "k_del", FEK_I64, "1");
	fek_hdr_addcol(&h, "n_ins", FEK_F64, "1");
	fek_hdr_addcol(&h, "n_del", FEK_F64, "1");
	for (m = 0; m < FEK_NMETHOD; m++) {
		const char *nm = fek_method_name(m, p->work);

		if (!want[m])
			continue;
		for (s = 0; nm[s] && s < 30; s++)
			col[s] = (char)(nm[s] | 0x20);
		col[s] = '\0';
		fek_hdr_addcol(&h, col, FEK_F64, "kT");
		memmove(col + 3, col, strlen(col) + 1);
		memcpy(col, "sd_", 3);
		fek_hdr_addcol(&h, col, FEK_F64, "kT");
	}
	if (want[FEK_M_BAR])
		fek_hdr_addcol(&h, "beta_C", FEK_F64, "kT");
	fek_hdr_add(&h, "ENSEMBLE", "%s", p->npt ? "NPT" : "NVT");
	if (p->temp > 0)
		fek_hdr_add(&h, "TEMP", "%.17g", p->temp);
	fek_hdr_prov(&h, argc, argv);
	fek_writer_init(&w, fp, 1);
	if (fek_begin_section(&w, &h) < 0)
		goto fail;
	npt = fek_trace_points(p, &pt);
	for (j = 0; j < npt; j++) {
		if (progress)
			progress(j + 1, npt);
		k[0] = pt[2 * j];
		k[1] = pt[2 * j + 1];
		row[0] = k[0];
		row[1] = k[1];
		for (s = 0; s < 2; s++)
			for (row[2 + s] = 0, c = 0; c < k[s] &&
			    c < p->s[s].nconf; c++)
				row[2 + s] += p->s[s].n[c];
		nc = 4;
		ok = 1;
		for (m = 0; m < FEK_NMETHOD && ok; m++) {
			if (!want[m])
				continue;
			if (fek_estimate(p, m, k, &e) < 0) {
				ok = 0;
				break;
			}
			row[nc++] = e.value;
			row[nc++] = e.sd;
			if (m == FEK_M_BAR)
				row[4 + 2 * FEK_NMETHOD] = e.C;
		}
		if (!ok)
			continue;
		if (want[FEK_M_BAR])
			row[nc++] = row[4 + 2 * FEK_NMETHOD];
		if (fek_write_rows(&w, row, 1) < 0)
			goto fail;
	}
	if (progress)
		progress(-1, npt);
	if (fek_end_section(&w) < 0)
		goto fail;
	fek_writer_free(&w);
	fek_hdr_free(&h);
	free(pt);
	return 0;
fail:
	fek_hdr_free(&h);
	free(pt);
	return -1;
}


/* The whole trace is made before the file is opened, so that a failure
 * leaves no file behind. */
int
fek_trace_save(const char *path, const struct fek_pert *p, const int *want,
    int argc, char **argv, void (*progress)(long row, long n))
{
	FILE *fp;
	char *buf = NULL;
	size_t len = 0;
	int rc = -1;

	if ((fp = open_memstream(&buf, &len)) == NULL)
		return fek_seterr(FEK_EX_SOFTWARE, "cannot buffer the trace");
	if (fek_trace_write(fp, p, want, argc, argv, progress) < 0) {
		fclose(fp);
		free(buf);
		return -1;
	}
	if (fclose(fp) != 0) {
		free(buf);
		return fek_seterr(FEK_EX_SOFTWARE, "cannot buffer the trace");
	}
	if ((fp = fopen(path, "w")) == NULL)
		fek_seterr(FEK_EX_IOERR, "%s: %s", path, strerror(errno));
	else if (len && fwrite(buf, 1, len, fp) != len) {
		fek_seterr(FEK_EX_IOERR, "%s: write error", path);
		fclose(fp);
	} else if (fclose(fp) != 0)
		fek_seterr(FEK_EX_IOERR, "%s: %s", path, strerror(errno));
	else
		rc = 0;
	free(buf);
	return rc;
}
