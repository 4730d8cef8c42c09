/*
 * dcd.c - the DCD writer of stream/dcd.h.  Byte layout (as CHARMM, NAMD and
 * OpenMM write it; read by VMD's dcdplugin, which mdtraj and MDAnalysis
 * use):
 *   [84] "CORD" icntrl[20] [84]   icntrl: 0 NSET (frames), 1 ISTART,
 *                                 2 NSAVC, 3 NSTEP (last step), 9 DELTA
 *                                 (float32), 10 unit cell flag (0 or 1),
 *                                 19 CHARMM version (24)
 *   [164] NTITLE=2, two 80-byte lines [164]
 *   [4] NATOM [4]
 * then per frame, with the flag, [48] a gamma b beta alpha c [48] as
 * float64, then [4N] X[N] [4N] [4N] Y[N] [4N] [4N] Z[N] [4N], float32;
 * [n] is a little-endian int32 record marker.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/dcd.h"

static void
put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = (v >> 16) & 0xff;
	p[3] = (v >> 24) & 0xff;
}

static int
fail(struct fek_dcd *f)
{
	return fek_seterr(FEK_EX_IOERR, "%s: %s", f->path, errno ?
	    strerror(errno) : "write error");
}

/* The counts in the header: NSET at byte 8, NSTEP at byte 20. */
static int
update_counts(struct fek_dcd *f)
{
	unsigned char b[4];
	long pos = ftell(f->fp);

	if (pos < 0 || fseek(f->fp, 8, SEEK_SET) != 0)
		return -1;
	put32(b, (uint32_t)f->nframes);
	if (fwrite(b, 4, 1, f->fp) != 1 || fseek(f->fp, 20, SEEK_SET) != 0)
		return -1;
	put32(b, (uint32_t)(f->istart + (f->nframes - 1) * f->nsavc));
	if (fwrite(b, 4, 1, f->fp) != 1 || fseek(f->fp, pos, SEEK_SET) != 0)
		return -1;
	return 0;
}

static struct fek_dcd *open_dcd(const char *path, long natom, long istart,
    long nsavc, double delta, const char *title, int cell);

struct fek_dcd *
fek_dcd_open(const char *path, long natom, long istart, long nsavc,
    double delta, const char *title)
{
	return open_dcd(path, natom, istart, nsavc, delta, title, 0);
}

struct fek_dcd *
fek_dcd_open_cell(const char *path, long natom, long istart, long nsavc,
    double delta, const char *title)
{
	return open_dcd(path, natom, istart, nsavc, delta, title, 1);
}

static struct fek_dcd *
open_dcd(const char *path, long natom, long istart, long nsavc,
    double delta, const char *title, int cell)
{
	unsigned char h[276];
	struct fek_dcd *f;
	float dt = (float)delta;
	char line[81];

	f = fek_alloc(1, sizeof *f);
	f->path = strdup(path);
	f->natom = natom;
	f->istart = istart;
	f->nsavc = nsavc;
	f->cell = cell;
	f->buf = fek_alloc(natom + 2, sizeof(float));
	errno = 0;
	if ((f->fp = fopen(path, "wb")) == NULL) {
		fail(f);
		goto bad;
	}
	memset(h, 0, sizeof h);
	put32(h, 84);
	memcpy(h + 4, "CORD", 4);
	put32(h + 12, (uint32_t)istart);
	put32(h + 16, (uint32_t)nsavc);
	memcpy(h + 8 + 9 * 4, &dt, 4);		/* icntrl[9]; float32 LE */
	put32(h + 8 + 10 * 4, (uint32_t)cell);
	put32(h + 8 + 19 * 4, 24);
	put32(h + 88, 84);
	put32(h + 92, 164);
	put32(h + 96, 2);
	memset(h + 100, ' ', 160);
	snprintf(line, sizeof line, "%-80s", title);
	memcpy(h + 100, line, 80);
	snprintf(line, sizeof line, "%-80s", "REMARKS written by fek md-gpu");
	memcpy(h + 180, line, 80);
	put32(h + 260, 164);
	put32(h + 264, 4);
	put32(h + 268, (uint32_t)natom);
	put32(h + 272, 4);
	if (fseek(f->fp, 0, SEEK_SET) != 0) {
		fek_seterr(FEK_EX_IOERR, "%s: a DCD file must be a regular "
		    "file (its frame count is rewritten)", path);
		goto bad;
	}
	if (fwrite(h, sizeof h, 1, f->fp) != 1) {
		fail(f);
		goto bad;
	}
	return f;
bad:
	if (f->fp)
		fclose(f->fp);
	free(f->buf);
	free(f->path);
	free(f);
	return NULL;
}

int
fek_dcd_frame_cell(struct fek_dcd *f, const double *x, int D,
    const double *cell)
{
	unsigned char m[4];

	errno = 0;
	put32(m, 48);
	if (fwrite(m, 4, 1, f->fp) != 1 || fwrite(cell, sizeof(double), 6,
	    f->fp) != 6 || fwrite(m, 4, 1, f->fp) != 1)
		return fail(f);
	return fek_dcd_frame(f, x, D);
}

int
fek_dcd_frame(struct fek_dcd *f, const double *x, int D)
{
	unsigned char m[4];

	errno = 0;
	put32(m, (uint32_t)(4 * f->natom));
	for (int k = 0; k < 3; k++) {
		for (long i = 0; i < f->natom; i++)
			f->buf[i] = k < D ? (float)x[i * D + k] : 0.0f;
		if (fwrite(m, 4, 1, f->fp) != 1 ||
		    fwrite(f->buf, sizeof(float), f->natom, f->fp) !=
		    (size_t)f->natom || fwrite(m, 4, 1, f->fp) != 1)
			return fail(f);
	}
	f->nframes++;
	if (update_counts(f) < 0)
		return fail(f);
	return 0;
}

int
fek_dcd_close(struct fek_dcd *f)
{
	int rc = 0;

	errno = 0;
	if (ferror(f->fp) | fclose(f->fp))
		rc = fail(f);
	free(f->buf);
	free(f->path);
	free(f);
	return rc;
}
