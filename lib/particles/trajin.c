/*
 * trajin.c - trajectories read one frame at a time (trajin.h), for the
 * stages that post-process stored configurations.  Four formats:
 *
 *   fek frames sections (fek(5), "frames": a periodic particle system):
 *     one section a frame, read with stream/stream.c; the columns, BOX, ORIGIN,
 *     NTYPES and TYPE keys as config.c reads them (config_int.h); STEP
 *     and REPLICA b n into the frame, the whole header kept.
 *
 *   CHARMM/NAMD DCD, the layout lib/stream/dcd.c writes (and VMD's dcdplugin,
 *     mdtraj and MDAnalysis read): Fortran unformatted records, each
 *     between two markers that give its length in bytes (4 or 8 bytes,
 *     either byte order, told by the first marker, which says 84):
 *       "CORD" icntrl[20]     int32: 0 NSET (frames; 0: unknown), 1
 *                             ISTART (step of frame 0), 2 NSAVC (steps
 *                             between frames), 8 NAMNF (fixed atoms),
 *                             10 unit cell flag, 11 4D flag, 19 CHARMM
 *                             version (0: X-PLOR, which has no cells)
 *       NTITLE, 80-byte lines
 *       NATOM
 *     then per frame the unit cell record, 6 float64: a, gamma, b, beta,
 *     alpha, c (lengths; angles in degrees, or their cosines when all
 *     three are within [-1, 1], as NAMD writes them), and the X, Y and Z
 *     records of NATOM float32 each (then W, skipped, with the 4D flag).
 *     The cell becomes LAMMPS's restricted triclinic one (pmd_eval.h):
 *       lx = a, xy = b cos(gamma), ly = sqrt(b^2 - xy^2),
 *       xz = c cos(beta), yz = (b c cos(alpha) - xy xz) / ly,
 *       lz = sqrt(c^2 - xz^2 - yz^2),
 *     with the origin at 0.  Frame k is step ISTART + k NSAVC.  The
 *     file's size must be the header and a whole number of frames, NSET
 *     of them when NSET is not 0 (checked when it is opened).
 *
 *   GROMACS .gro (GROMACS reference manual, "File formats: gro"): frames
 *     one after another, each read as config.c reads one (the field
 *     width found on its first atom line); the step from "step= N" in the
 *     title (as trjconv writes "t= 1.00000 step= 500"), else -1.  Types
 *     are the distinct atom names in order of first appearance in the
 *     file, so that a name is the same type in every frame.
 *
 *   LAMMPS text dumps (LAMMPS documentation: the dump command, "dump
 *     atom" and "dump custom", and "Triclinic (non-orthogonal) simulation
 *     boxes"): per frame the items TIMESTEP, NUMBER OF ATOMS, BOX BOUNDS
 *     and ATOMS (TIME and UNITS, as dump_modify adds them, are skipped).
 *     The bounds of a triclinic box ("BOX BOUNDS xy xz yz ...", a third
 *     number per line) are those of its bounding box:
 *       xlo = xlo_bound - min(0, xy, xz, xy + xz),
 *       xhi = xhi_bound - max(0, xy, xz, xy + xz),
 *       ylo = ylo_bound - min(0, yz), yhi = yhi_bound - max(0, yz).
 *     The ATOMS line names the columns: id, type (LAMMPS type t is ours
 *     t - 1; 0 without the column) and the first complete set of x y z,
 *     xu yu zu, xs ys zs, xsu ysu zsu (scaled ones are fractional
 *     coordinates: r = lo + xs a + ys b + zs c).  With an id column the
 *     atoms are sorted by id, so that dumps written by several MPI ranks
 *     give frames in one order.
 *
 * Every frame is scaled by lscale (positions, cell and origin) and its
 * positions wrapped into the cell (fek_box_wrap).  Messages count frames
 * from 1.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "particles/particles.h"
#include "particles/config_int.h"
#include "particles/trajin.h"

#define MAXT FEK_PMD_MAXTYPES
#define MAXID 9007199254740992.0	/* 2^53: ids exact in a double */

enum trajin_fmt { TJ_FEK, TJ_DCD, TJ_GRO, TJ_DUMP };

static const char *fmt_names[] = { "fek", "dcd", "gro", "lammpsdump" };

/* A DCD file being read. */
struct dcd_in {
	FILE *fp;
	int big;			/* big-endian */
	int mark;			/* record marker bytes, 4 or 8 */
	long natom;
	long long istart, nsavc;
	long long nframe;		/* whole frames in the file */
	int four_d;			/* a W record after Z */
	size_t framesize;		/* bytes a frame */
	unsigned char *buf;		/* one frame */
};

/* One atom line of a dump. */
struct dump_atom {
	long long id;
	long line;
	int type;
	double x[3];
};

struct fek_trajin {
	enum trajin_fmt fmt;
	char name[256];			/* the path or "stdin", for messages */
	double lscale;
	long nread;			/* frames read */
	int state;			/* 0 reading, 1 at the end, -1 failed */
	/* fek */
	struct fek_reader r;
	double *rows;
	long long rowcap;
	/* gro, lammpsdump */
	struct cfg_lines l;
	struct cfg_conf c;		/* gro: a frame, and the type names;
					   fek: the TYPE keys */
	char **tok;
	int tokcap;
	struct dump_atom *atoms;
	long long atomcap;
	/* dcd */
	struct dcd_in d;
};

/* Room for n particles in f. */
static void
frame_reserve(struct fek_frame *f, long n)
{
	if (n <= f->cap)
		return;
	f->cap = n;
	f->x = cfg_grow(f->x, 3 * (size_t)n, sizeof *f->x);
	f->type = cfg_grow(f->type, n, sizeof *f->type);
}

/* fek_errmsg() "name: rest" as "name: frame K: rest" (K from 1). */
static int
frame_err(const struct fek_trajin *t)
{
	char msg[1024];
	const char *m = fek_errmsg();
	size_t len = strlen(t->name);

	if (strncmp(m, t->name, len) == 0 && strncmp(m + len, ": ", 2) == 0)
		m += len + 2;
	snprintf(msg, sizeof msg, "%s", m);
	return fek_seterr(fek_errcode(), "%s: frame %ld: %s", t->name,
	    t->nread + 1, msg);
}

/* ---- fek frames --------------------------------------------------------- */

/* The integer value of key (its whole value), or -1 with 65. */
static int
key_ll(struct fek_reader *r, const struct fek_header *h, const char *key,
    long long *out)
{
	const char *val = fek_hdr_get(h, key, 0);
	char buf[64];
	size_t len;

	val += strspn(val, " \t");
	len = strlen(val);
	while (len > 0 && isspace((unsigned char)val[len - 1]))
		len--;
	if (len < sizeof buf) {
		memcpy(buf, val, len);
		buf[len] = '\0';
		if (cfg_parse_ll(buf, out) == 0)
			return 0;
	}
	return fek_rerr(r, FEK_EX_DATA, "key %s '%.40s': expected an integer",
	    key, val);
}

static int
read_fek_frame(struct fek_trajin *t, struct fek_frame *f)
{
	struct fek_reader *r = &t->r;
	struct fek_header h;
	struct cfg_fek_cols k;
	const char *val;
	long long nr = 0, i, n;
	int rc, nt;

	rc = fek_next_section(r, &h);
	if (rc <= 0) {
		fek_hdr_free(&h);
		return rc;
	}
	if (strcmp(h.kind, "frames") != 0) {
		fek_rerr(r, FEK_EX_DATA, "KIND %s: a trajectory is read from "
		    "frames sections", h.kind);
		goto fail;
	}
	memset(&t->c, 0, sizeof t->c);
	if (cfg_fek_find_cols(r, &h, &k) < 0 ||
	    cfg_fek_box(r, &h, &f->box) < 0 ||
	    cfg_fek_types(r, &h, &t->c, &nt) < 0)
		goto fail;
	if (fek_hdr_get(&h, "STEP", 0) != NULL) {
		if (key_ll(r, &h, "STEP", &f->step) < 0)
			goto fail;
		if (f->step < 0) {
			fek_rerr(r, FEK_EX_DATA, "key STEP %lld: a step is 0 "
			    "or more", f->step);
			goto fail;
		}
	}
	if ((val = fek_hdr_get(&h, "REPLICA", 0)) != NULL) {
		double v[2];

		if (cfg_scan_numbers(val, v, 2) != 2 ||
		    !cfg_integral(v[1], 1, INT_MAX) ||
		    !cfg_integral(v[0], 1, v[1])) {
			fek_rerr(r, FEK_EX_DATA, "key REPLICA '%.40s': "
			    "expected b n, 1 <= b <= n", val);
			goto fail;
		}
		f->replica = (int)v[0];
		f->nreplica = (int)v[1];
	}
	for (;;) {
		long got;

		if (nr == t->rowcap) {
			t->rowcap = t->rowcap ? 2 * t->rowcap : 4096;
			t->rows = cfg_grow(t->rows, (size_t)t->rowcap * h.ncols,
			    sizeof *t->rows);
		}
		got = fek_read_rows(r, t->rows + nr * h.ncols,
		    (long)(t->rowcap - nr));
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		nr += got;
	}
	if (nr == 0) {
		fek_rerr(r, FEK_EX_DATA, "no particles");
		goto fail;
	}
	n = nr;
	frame_reserve(f, (long)n);
	f->n = (long)n;
	f->ntypes = nt;
	for (i = 0; i < n; i++) {
		const double *row = t->rows + i * h.ncols;
		int ty = 0;

		if (k.type >= 0) {
			if (!cfg_integral(row[k.type], 0, MAXT - 1)) {
				fek_rerr(r, FEK_EX_DATA, "row %lld: type %g: "
				    "expected an integer from 0 to %d", i + 1,
				    row[k.type], MAXT - 1);
				goto fail;
			}
			ty = (int)row[k.type];
			if (nt > 0 && fek_hdr_get(&h, "NTYPES", 0) != NULL &&
			    ty >= nt) {
				fek_rerr(r, FEK_EX_DATA, "row %lld: type %d, "
				    "but NTYPES %d", i + 1, ty, nt);
				goto fail;
			}
		}
		if (k.id >= 0 && !cfg_integral(row[k.id], -MAXID, MAXID)) {
			fek_rerr(r, FEK_EX_DATA, "row %lld: id %g: expected an "
			    "integer of at most 2^53 in size", i + 1,
			    row[k.id]);
			goto fail;
		}
		f->type[i] = ty;
		for (int d = 0; d < 3; d++)
			f->x[3 * i + d] = row[k.x[d]];
	}
	for (int ty = 0; ty < MAXT; ty++)
		memcpy(f->tname[ty], t->c.tname[ty], sizeof f->tname[ty]);
	fek_hdr_free(&f->hdr);
	f->hdr = h;
	return 1;
fail:
	fek_hdr_free(&h);
	return -1;
}

/* ---- DCD ---------------------------------------------------------------- */

static uint64_t
get_uint(const unsigned char *p, int nbyte, int big)
{
	uint64_t v = 0;

	for (int k = 0; k < nbyte; k++)
		v |= (uint64_t)p[big ? nbyte - 1 - k : k] << (8 * k);
	return v;
}

static int32_t
get_i32(const unsigned char *p, int big)
{
	uint32_t u = (uint32_t)get_uint(p, 4, big);
	int32_t v;

	memcpy(&v, &u, sizeof v);
	return v;
}

static float
get_f32(const unsigned char *p, int big)
{
	uint32_t u = (uint32_t)get_uint(p, 4, big);
	float v;

	memcpy(&v, &u, sizeof v);
	return v;
}

static double
get_f64(const unsigned char *p, int big)
{
	uint64_t u = get_uint(p, 8, big);
	double v;

	memcpy(&v, &u, sizeof v);
	return v;
}

/* A record marker as a length (-1 for one that cannot be). */
static long long
get_mark(const struct dcd_in *d, const unsigned char *p)
{
	uint64_t v = get_uint(p, d->mark, d->big);

	if (d->mark == 4)
		return (int32_t)(uint32_t)v;
	return v > (uint64_t)1 << 40 ? -1 : (long long)v;
}

/* The next header record, of want bytes (0: any length up to 1 MB), into
 * a fresh *out; its length in *len. */
static int
dcd_record(struct fek_trajin *t, const char *what, size_t want,
    unsigned char **out, size_t *len)
{
	struct dcd_in *d = &t->d;
	unsigned char m[8];
	long long n, n2;

	*out = NULL;
	if (fread(m, d->mark, 1, d->fp) != 1)
		goto short_read;
	n = get_mark(d, m);
	if (n < 0 || (want != 0 && (size_t)n != want) || n > 1 << 20)
		return fek_seterr(FEK_EX_DATA, "%s: header: the %s record is "
		    "%lld bytes, expected %zu", t->name, what, n, want);
	*out = cfg_grow(NULL, n, 1);
	*len = (size_t)n;
	if ((n > 0 && fread(*out, n, 1, d->fp) != 1) ||
	    fread(m, d->mark, 1, d->fp) != 1)
		goto short_read;
	if ((n2 = get_mark(d, m)) != n)
		return fek_seterr(FEK_EX_DATA, "%s: header: the %s record "
		    "ends with the marker %lld, begins with %lld", t->name,
		    what, n2, n);
	return 0;
short_read:
	if (ferror(d->fp))
		return fek_seterr(FEK_EX_DATA, "%s: read error: %s", t->name,
		    strerror(errno ? errno : EIO));
	return fek_seterr(FEK_EX_DATA, "%s: header: the file ends in the %s "
	    "record", t->name, what);
}

/* The header of a DCD file open at t->d.fp. */
static int
dcd_open(struct fek_trajin *t)
{
	struct dcd_in *d = &t->d;
	unsigned char h[12], *rec = NULL;
	size_t len, got;
	int32_t ic[20], nset;
	long long first, size, nbyte;
	int rc = -1;

	if ((got = fread(h, 1, sizeof h, d->fp)) != sizeof h)
		return fek_seterr(FEK_EX_DATA, "%s: %zu bytes: too short for a "
		    "DCD file", t->name, got);
	if (memcmp(h + 4, "CORD", 4) == 0 && get_uint(h, 4, 0) == 84)
		d->mark = 4, d->big = 0;
	else if (memcmp(h + 4, "CORD", 4) == 0 && get_uint(h, 4, 1) == 84)
		d->mark = 4, d->big = 1;
	else if (memcmp(h + 8, "CORD", 4) == 0 && get_uint(h, 8, 0) == 84)
		d->mark = 8, d->big = 0;
	else if (memcmp(h + 8, "CORD", 4) == 0 && get_uint(h, 8, 1) == 84)
		d->mark = 8, d->big = 1;
	else
		return fek_seterr(FEK_EX_DATA, "%s: header: not a DCD file of "
		    "coordinates (a first record of 84 bytes that begins "
		    "with CORD)", t->name);
	rewind(d->fp);
	if (dcd_record(t, "first", 84, &rec, &len) < 0)
		goto out;
	for (int k = 0; k < 20; k++)
		ic[k] = get_i32(rec + 4 + 4 * k, d->big);
	free(rec);
	rec = NULL;
	nset = ic[0];
	d->istart = ic[1];
	d->nsavc = ic[2];
	d->four_d = ic[11] != 0;
	if (ic[19] == 0 || ic[10] == 0) {
		fek_seterr(FEK_EX_DATA, "%s: header: no unit cell (%s): the "
		    "box is needed", t->name, ic[19] == 0 ? "an X-PLOR DCD" :
		    "the cell flag, icntrl[10], is 0");
		goto out;
	}
	if (ic[8] != 0) {
		fek_seterr(FEK_EX_DATA, "%s: header: %d fixed atoms (NAMNF): "
		    "DCD files with fixed atoms are not read", t->name, ic[8]);
		goto out;
	}
	if (d->istart < 0 || d->nsavc < 0) {
		fek_seterr(FEK_EX_DATA, "%s: header: ISTART %lld, NSAVC %lld: "
		    "steps are 0 or more", t->name, d->istart, d->nsavc);
		goto out;
	}
	if (nset < 0) {
		fek_seterr(FEK_EX_DATA, "%s: header: %d frames (NSET)",
		    t->name, nset);
		goto out;
	}
	if (dcd_record(t, "title", 0, &rec, &len) < 0)
		goto out;
	if (len < 4 || (len - 4) % 80 != 0 ||
	    get_i32(rec, d->big) != (int32_t)((len - 4) / 80)) {
		fek_seterr(FEK_EX_DATA, "%s: header: a title record of %zu "
		    "bytes: not a count and 80-byte lines", t->name, len);
		goto out;
	}
	free(rec);
	rec = NULL;
	if (dcd_record(t, "atom count", 4, &rec, &len) < 0)
		goto out;
	d->natom = get_i32(rec, d->big);
	if (d->natom < 1) {
		fek_seterr(FEK_EX_DATA, "%s: header: %ld atoms", t->name,
		    d->natom);
		goto out;
	}
	nbyte = 4 * (long long)d->natom;
	d->framesize = (size_t)(2 * d->mark + 48 +
	    (3 + d->four_d) * (2 * d->mark + nbyte));
	/* frames: the whole number that the file's size holds (the
	 * frame's buffer only after: a count of atoms the file cannot
	 * hold is an error, not an allocation) */
	first = ftello(d->fp);
	if (first < 0 || fseeko(d->fp, 0, SEEK_END) != 0 ||
	    (size = ftello(d->fp)) < 0 || fseeko(d->fp, first, SEEK_SET) != 0) {
		fek_seterr(FEK_EX_DATA, "%s: cannot seek: %s (a DCD file is "
		    "read from a regular file)", t->name, strerror(errno));
		goto out;
	}
	d->nframe = (size - first) / (long long)d->framesize;
	if ((size - first) % (long long)d->framesize != 0) {
		fek_seterr(FEK_EX_DATA, "%s: frame %lld: truncated, %lld of "
		    "its %zu bytes (%ld atoms%s)", t->name, d->nframe + 1,
		    (size - first) % (long long)d->framesize, d->framesize,
		    d->natom, d->four_d ? ", 4D" : "");
		goto out;
	}
	if (nset != 0 && nset != d->nframe) {
		fek_seterr(FEK_EX_DATA, "%s: header: %d frames (NSET), but the "
		    "file holds %lld of %ld atoms (truncated?)", t->name, nset,
		    d->nframe, d->natom);
		goto out;
	}
	if (d->nframe > 0)
		d->buf = cfg_grow(NULL, d->framesize, 1);
	rc = 0;
out:
	free(rec);
	return rc;
}

/* cos of x degrees; exactly 0 at 90. */
static double
cos_deg(double x)
{
	return x == 90 ? 0 : cos(x * (M_PI / 180));
}

/* The restricted triclinic cell of a, b, c and the angles alpha (b, c),
 * beta (a, c), gamma (a, b), in degrees or (NAMD) as cosines. */
static int
dcd_cell(struct fek_trajin *t, const double *u, struct fek_box *bx)
{
	double a = u[0], b = u[2], c = u[5], ca, cb, cg, lz2;

	if (fabs(u[4]) <= 1 && fabs(u[3]) <= 1 && fabs(u[1]) <= 1) {
		ca = u[4];
		cb = u[3];
		cg = u[1];
	} else {
		if (!(u[1] > 0 && u[1] < 180) || !(u[3] > 0 && u[3] < 180) ||
		    !(u[4] > 0 && u[4] < 180))
			goto bad;
		ca = cos_deg(u[4]);
		cb = cos_deg(u[3]);
		cg = cos_deg(u[1]);
	}
	if (!(a > 0 && b > 0 && c > 0) || !isfinite(a) || !isfinite(b) ||
	    !isfinite(c))
		goto bad;
	memset(bx, 0, sizeof *bx);
	bx->lx = a;
	bx->xy = b * cg;
	bx->ly = sqrt(b * b - bx->xy * bx->xy);
	bx->xz = c * cb;
	bx->yz = (b * c * ca - bx->xy * bx->xz) / bx->ly;
	lz2 = c * c - bx->xz * bx->xz - bx->yz * bx->yz;
	if (!(bx->ly > 0) || !(lz2 > 0))
		goto bad;
	bx->lz = sqrt(lz2);
	return 0;
bad:
	return fek_seterr(FEK_EX_DATA, "%s: frame %ld: unit cell a %g b %g c "
	    "%g alpha %g beta %g gamma %g: not a cell", t->name, t->nread + 1,
	    u[0], u[2], u[5], u[4], u[3], u[1]);
}

static int
read_dcd_frame(struct fek_trajin *t, struct fek_frame *f)
{
	struct dcd_in *d = &t->d;
	const unsigned char *p = d->buf;
	static const char *what[4] = { "X", "Y", "Z", "W" };
	double u[6];
	long n = d->natom;

	if (t->nread == d->nframe)
		return 0;
	if (fread(d->buf, d->framesize, 1, d->fp) != 1)
		return fek_seterr(FEK_EX_DATA, "%s: frame %ld: %s", t->name,
		    t->nread + 1, ferror(d->fp) ? strerror(errno ? errno :
		    EIO) : "the file ends early (did it shrink?)");
	for (int r = -1; r < 3 + d->four_d; r++) {
		long long want = r < 0 ? 48 : 4 * (long long)n;

		if (get_mark(d, p) != want || get_mark(d, p + d->mark + want) !=
		    want)
			return fek_seterr(FEK_EX_DATA, "%s: frame %ld: the %s "
			    "record's markers are %lld and %lld, expected %lld",
			    t->name, t->nread + 1, r < 0 ? "unit cell" :
			    what[r], get_mark(d, p), get_mark(d, p + d->mark +
			    want), want);
		p += d->mark;
		if (r < 0) {
			for (int k = 0; k < 6; k++)
				u[k] = get_f64(p + 8 * k, d->big);
			if (dcd_cell(t, u, &f->box) < 0)
				return -1;
		} else if (r < 3) {
			frame_reserve(f, n);
			for (long i = 0; i < n; i++)
				f->x[3 * i + r] = get_f32(p + 4 * i, d->big);
		}
		p += want + d->mark;
	}
	f->n = n;
	for (long i = 0; i < n; i++)
		f->type[i] = 0;
	f->ntypes = 1;
	f->step = d->istart + t->nread * d->nsavc;
	return 1;
}

/* ---- GROMACS .gro ------------------------------------------------------- */

static int
read_gro_frame(struct fek_trajin *t, struct fek_frame *f)
{
	struct cfg_lines *l = &t->l;
	const char *s;
	char *end;
	int rc;

	if ((rc = cfg_lines_next(l)) <= 0)
		return rc;
	if (cfg_blank(l->buf)) {
		/* a blank title, or blank lines at the end */
		do
			rc = cfg_lines_next(l);
		while (rc > 0 && cfg_blank(l->buf));
		if (rc <= 0)
			return rc;
		l->pushed = 1;
	} else if ((s = strstr(l->buf, "step=")) != NULL) {
		long long v;

		errno = 0;
		v = strtoll(s + 5, &end, 10);
		if (end != s + 5 && (errno != 0 || v < 0))
			return cfg_line_err(l, "title: 'step=%.30s': a step is "
			    "an integer, 0 or more", s + 5);
		if (end != s + 5)
			f->step = v;
	}
	if (cfg_gro_frame(&t->c, l, &f->box) < 0)
		return -1;
	frame_reserve(f, t->c.n);
	f->n = t->c.n;
	memcpy(f->type, t->c.type, f->n * sizeof *f->type);
	memcpy(f->x, t->c.x, 3 * f->n * sizeof *f->x);
	f->ntypes = t->c.ntypes;
	for (int ty = 0; ty < t->c.ntypes; ty++)
		memcpy(f->tname[ty], t->c.tname[ty], sizeof f->tname[ty]);
	return 1;
}

/* ---- LAMMPS dumps ------------------------------------------------------- */

/* The next line that is not blank into t->l.buf: 1, 0 at the end, -1. */
static int
dump_line(struct fek_trajin *t)
{
	int rc;

	do
		rc = cfg_lines_next(&t->l);
	while (rc > 0 && cfg_blank(t->l.buf));
	return rc;
}

/* The line after ITEM: what, split into t->tok: its field count. */
static int
dump_item_line(struct fek_trajin *t, const char *what)
{
	int rc;

	if ((rc = dump_line(t)) < 0)
		return -1;
	if (rc == 0)
		return fek_seterr(FEK_EX_DATA, "%s: the file ends after ITEM: "
		    "%s", t->name, what);
	if (strncmp(t->l.buf, "ITEM:", 5) == 0)
		return cfg_line_err(&t->l, "an ITEM: line where the value of "
		    "ITEM: %s belongs", what);
	return cfg_split(t->l.buf, t->tok, t->tokcap);
}

/* Room for n fields in t->tok. */
static void
dump_tok_reserve(struct fek_trajin *t, int n)
{
	if (n <= t->tokcap)
		return;
	t->tokcap = n;
	t->tok = cfg_grow(t->tok, n, sizeof *t->tok);
}

/* The three bounds lines into bx. */
static int
dump_bounds(struct fek_trajin *t, const char *flags, struct fek_box *bx)
{
	double b[3][3], lo[3], hi[3], tilt[3] = { 0, 0, 0 };
	int tric = strstr(flags, "xy") != NULL, nf;

	if (strstr(flags, "abc") != NULL)
		return cfg_line_err(&t->l, "ITEM: BOX BOUNDS %.40s: a general "
		    "triclinic box is not read (dump LAMMPS's restricted "
		    "triclinic box)", flags);
	for (int d = 0; d < 3; d++) {
		char line[64];
		int rc;

		if ((rc = dump_line(t)) <= 0)
			return rc < 0 ? -1 : fek_seterr(FEK_EX_DATA, "%s: the "
			    "file ends in ITEM: BOX BOUNDS", t->name);
		snprintf(line, sizeof line, "%s", t->l.buf);
		nf = cfg_scan_numbers(t->l.buf, b[d], 3);
		if (nf != 2 + tric)
			return cfg_line_err(&t->l, "'%.40s': expected %s",
			    line, tric ? "lo_bound hi_bound tilt" : "lo hi");
	}
	if (tric) {
		double xy = b[0][2], xz = b[1][2], yz = b[2][2];

		tilt[0] = xy;
		tilt[1] = xz;
		tilt[2] = yz;
		lo[0] = b[0][0] - fmin(fmin(0, xy), fmin(xz, xy + xz));
		hi[0] = b[0][1] - fmax(fmax(0, xy), fmax(xz, xy + xz));
		lo[1] = b[1][0] - fmin(0, yz);
		hi[1] = b[1][1] - fmax(0, yz);
	} else {
		lo[0] = b[0][0];
		hi[0] = b[0][1];
		lo[1] = b[1][0];
		hi[1] = b[1][1];
	}
	lo[2] = b[2][0];
	hi[2] = b[2][1];
	memset(bx, 0, sizeof *bx);
	for (int d = 0; d < 3; d++)
		bx->lo[d] = lo[d];
	bx->lx = hi[0] - lo[0];
	bx->ly = hi[1] - lo[1];
	bx->lz = hi[2] - lo[2];
	bx->xy = tilt[0];
	bx->xz = tilt[1];
	bx->yz = tilt[2];
	if (!(bx->lx > 0 && bx->ly > 0 && bx->lz > 0))
		return cfg_line_err(&t->l, "ITEM: BOX BOUNDS: edges %g %g %g "
		    "(from the bounds and tilts): not positive", bx->lx,
		    bx->ly, bx->lz);
	return 0;
}

static int
dump_atom_cmp(const void *a, const void *b)
{
	const struct dump_atom *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The ATOMS item: its line in t->l.buf (after "ITEM: ATOMS"), then n
 * atom lines. */
static int
dump_atoms(struct fek_trajin *t, struct fek_frame *f, char *names,
    long long n)
{
	static const char *sets[4][3] = { { "x", "y", "z" },
	    { "xu", "yu", "zu" }, { "xs", "ys", "zs" },
	    { "xsu", "ysu", "zsu" } };
	const struct fek_box *bx = &f->box;
	int ncol, id = -1, ty = -1, xc[3] = { -1, -1, -1 }, scaled = 0;
	int maxt = 0;
	long headline = t->l.lineno;

	/* (a field and a blank at least each) */
	dump_tok_reserve(t, (int)(strlen(names) / 2 + 2));
	ncol = cfg_split(names, t->tok, t->tokcap);
	for (int k = 0; k < ncol; k++) {
		if (strcmp(t->tok[k], "id") == 0)
			id = k;
		else if (strcmp(t->tok[k], "type") == 0)
			ty = k;
	}
	for (int s = 0; s < 4 && xc[0] < 0; s++) {
		int c[3] = { -1, -1, -1 };

		for (int k = 0; k < ncol; k++)
			for (int d = 0; d < 3; d++)
				if (strcmp(t->tok[k], sets[s][d]) == 0)
					c[d] = k;
		if (c[0] >= 0 && c[1] >= 0 && c[2] >= 0) {
			memcpy(xc, c, sizeof xc);
			scaled = s >= 2;
		}
	}
	if (xc[0] < 0)
		return cfg_line_err(&t->l, "ITEM: ATOMS: no columns x y z (or "
		    "xu yu zu, xs ys zs, xsu ysu zsu)");
	/* a line a field and a blank or newline each at least: the count
	 * against what is left of a regular file, and room made as the
	 * lines come (a pipe's count is not trusted either) */
	if (cfg_lines_fit(&t->l, "ITEM: NUMBER OF ATOMS", n, 2 * ncol) < 0)
		return -1;
	dump_tok_reserve(t, ncol + 1);
	for (long long i = 0; i < n; i++) {
		struct dump_atom *a;
		int rc, nf;
		long long v;

		if (i == t->atomcap) {
			t->atomcap = t->atomcap ? 2 * t->atomcap : 1024;
			if (t->atomcap > n)
				t->atomcap = n;
			t->atoms = cfg_grow(t->atoms, t->atomcap,
			    sizeof *t->atoms);
		}
		a = &t->atoms[i];
		if ((rc = dump_line(t)) < 0)
			return -1;
		if (rc == 0)
			return fek_seterr(FEK_EX_DATA, "%s: the file ends "
			    "after %lld of the %lld atoms of ITEM: ATOMS (line "
			    "%ld)", t->name, i, n, headline);
		if (strncmp(t->l.buf, "ITEM:", 5) == 0)
			return cfg_line_err(&t->l, "an ITEM: line after %lld "
			    "of the %lld atoms", i, n);
		nf = cfg_split(t->l.buf, t->tok, t->tokcap);
		if (nf != ncol)
			return cfg_line_err(&t->l, "%d fields, but ITEM: ATOMS "
			    "(line %ld) names %d columns", nf, headline, ncol);
		a->line = t->l.lineno;
		a->id = i + 1;
		a->type = 0;
		if (id >= 0 && (cfg_parse_ll(t->tok[id], &a->id) < 0 ||
		    a->id < 1))
			return cfg_line_err(&t->l, "id '%.40s' is not a "
			    "positive integer (a LAMMPS atom id)", t->tok[id]);
		if (ty >= 0) {
			if (cfg_parse_ll(t->tok[ty], &v) < 0 || v < 1 ||
			    v > MAXT)
				return cfg_line_err(&t->l, "type '%.40s': "
				    "expected an integer from 1 to %d",
				    t->tok[ty], MAXT);
			a->type = (int)v - 1;
			if (a->type > maxt)
				maxt = a->type;
		}
		for (int d = 0; d < 3; d++)
			if (cfg_parse_double(t->tok[xc[d]], &a->x[d]) < 0)
				return cfg_line_err(&t->l, "%s '%.40s' is not "
				    "a finite number", scaled ? sets[2][d] :
				    sets[0][d], t->tok[xc[d]]);
		if (scaled) {
			double s0 = a->x[0], s1 = a->x[1], s2 = a->x[2];

			a->x[0] = bx->lo[0] + s0 * bx->lx + s1 * bx->xy +
			    s2 * bx->xz;
			a->x[1] = bx->lo[1] + s1 * bx->ly + s2 * bx->yz;
			a->x[2] = bx->lo[2] + s2 * bx->lz;
		}
	}
	if (id >= 0) {
		qsort(t->atoms, n, sizeof *t->atoms, dump_atom_cmp);
		for (long long i = 1; i < n; i++)
			if (t->atoms[i].id == t->atoms[i - 1].id)
				return fek_seterr(FEK_EX_DATA, "%s: lines %ld "
				    "and %ld: atom id %lld twice", t->name,
				    t->atoms[i - 1].line < t->atoms[i].line ?
				    t->atoms[i - 1].line : t->atoms[i].line,
				    t->atoms[i - 1].line < t->atoms[i].line ?
				    t->atoms[i].line : t->atoms[i - 1].line,
				    t->atoms[i].id);
	}
	frame_reserve(f, (long)n);
	f->n = (long)n;
	for (long long i = 0; i < n; i++) {
		f->type[i] = t->atoms[i].type;
		memcpy(f->x + 3 * i, t->atoms[i].x, sizeof t->atoms[i].x);
	}
	f->ntypes = maxt + 1;
	return 0;
}

/* One frame: items up to and with ATOMS. */
static int
read_dump_frame(struct fek_trajin *t, struct fek_frame *f)
{
	long long n = -1;
	int rc, nf, have_box = 0, have_step = 0;
	char *item;

	for (;;) {
		if ((rc = dump_line(t)) < 0)
			return -1;
		if (rc == 0) {
			if (n < 0 && !have_box && !have_step)
				return 0;
			return fek_seterr(FEK_EX_DATA, "%s: the file ends "
			    "before ITEM: ATOMS", t->name);
		}
		if (strncmp(t->l.buf, "ITEM:", 5) != 0)
			return cfg_line_err(&t->l, "'%.40s' where an ITEM: "
			    "line belongs%s", t->l.buf, t->nread > 0 &&
			    n < 0 && !have_box && !have_step ? " (more atoms "
			    "than the frame before says?)" : "");
		item = t->l.buf + 5 + strspn(t->l.buf + 5, " \t");
		if (strncmp(item, "TIMESTEP", 8) == 0 && cfg_blank(item + 8)) {
			if (have_step)
				return cfg_line_err(&t->l, "a second ITEM: "
				    "TIMESTEP before ITEM: ATOMS");
			dump_tok_reserve(t, 2);
			if ((nf = dump_item_line(t, "TIMESTEP")) < 0)
				return -1;
			if (nf != 1 || cfg_parse_ll(t->tok[0], &f->step) < 0 ||
			    f->step < 0)
				return cfg_line_err(&t->l, "ITEM: TIMESTEP: "
				    "expected one integer, 0 or more");
			have_step = 1;
		} else if (strncmp(item, "NUMBER OF ATOMS", 15) == 0 &&
		    cfg_blank(item + 15)) {
			if (n >= 0)
				return cfg_line_err(&t->l, "a second ITEM: "
				    "NUMBER OF ATOMS before ITEM: ATOMS");
			dump_tok_reserve(t, 2);
			if ((nf = dump_item_line(t, "NUMBER OF ATOMS")) < 0)
				return -1;
			if (nf != 1 || cfg_parse_ll(t->tok[0], &n) < 0 ||
			    n < 0 || n > 1LL << 40)
				return cfg_line_err(&t->l, "ITEM: NUMBER OF "
				    "ATOMS: expected one count");
			if (n == 0)
				return cfg_line_err(&t->l, "ITEM: NUMBER OF "
				    "ATOMS: 0: no particles");
		} else if (strncmp(item, "BOX BOUNDS", 10) == 0) {
			char flags[128];

			if (have_box)
				return cfg_line_err(&t->l, "a second ITEM: BOX "
				    "BOUNDS before ITEM: ATOMS");
			snprintf(flags, sizeof flags, "%s", item + 10);
			if (dump_bounds(t, flags, &f->box) < 0)
				return -1;
			have_box = 1;
		} else if (strncmp(item, "ATOMS", 5) == 0 &&
		    (item[5] == '\0' || isspace((unsigned char)item[5]))) {
			if (n < 0 || !have_box)
				return cfg_line_err(&t->l, "ITEM: ATOMS before "
				    "ITEM: %s", n < 0 ? "NUMBER OF ATOMS" :
				    "BOX BOUNDS");
			if (dump_atoms(t, f, item + 5, n) < 0)
				return -1;
			return 1;
		} else if ((strncmp(item, "TIME", 4) == 0 &&
		    cfg_blank(item + 4)) || (strncmp(item, "UNITS", 5) == 0 &&
		    cfg_blank(item + 5))) {
			if ((rc = dump_line(t)) <= 0)
				return rc < 0 ? -1 : fek_seterr(FEK_EX_DATA,
				    "%s: the file ends after ITEM: %.5s",
				    t->name, item);
		} else {
			return cfg_line_err(&t->l, "ITEM: %.40s: not an item "
			    "of a LAMMPS atom dump (TIMESTEP, NUMBER OF ATOMS, "
			    "BOX BOUNDS, ATOMS)", item);
		}
	}
}

/* ---- the format --------------------------------------------------------- */

static int
is_dcd_head(const unsigned char *h, size_t n)
{
	return (n >= 8 && memcmp(h + 4, "CORD", 4) == 0 &&
	    (get_uint(h, 4, 0) == 84 || get_uint(h, 4, 1) == 84)) ||
	    (n >= 12 && memcmp(h + 8, "CORD", 4) == 0 &&
	    (get_uint(h, 8, 0) == 84 || get_uint(h, 8, 1) == 84));
}

/* The format of path from its name, else from its first bytes and lines;
 * -1 with 66 or 65. */
static int
guess_format(const char *path, enum trajin_fmt *fmt)
{
	static const struct {
		const char *suffix;
		enum trajin_fmt fmt;
	} suffixes[] = { { ".fek", TJ_FEK }, { ".dcd", TJ_DCD },
	    { ".gro", TJ_GRO }, { ".lammpstrj", TJ_DUMP },
	    { ".dump", TJ_DUMP } };
	const char *base = strrchr(path, '/'), *dot;
	unsigned char h[16];
	struct cfg_lines l;
	size_t got;
	int rc;

	if (strcmp(path, "-") == 0) {
		*fmt = TJ_FEK;
		return 0;
	}
	base = base ? base + 1 : path;
	if ((dot = strrchr(base, '.')) != NULL)
		for (size_t k = 0; k < sizeof suffixes / sizeof suffixes[0];
		    k++)
			if (strcasecmp(dot, suffixes[k].suffix) == 0) {
				*fmt = suffixes[k].fmt;
				return 0;
			}
	if (cfg_lines_open(&l, path) < 0)
		return -1;
	got = fread(h, 1, sizeof h, l.fp);
	rc = 0;
	if (got >= 4 && (memcmp(h, FEK_MAGIC_TEXT, 4) == 0 ||
	    memcmp(h, FEK_MAGIC_BIN, 4) == 0))
		*fmt = TJ_FEK;
	else if (is_dcd_head(h, got))
		*fmt = TJ_DCD;
	else if (got >= 5 && memcmp(h, "ITEM:", 5) == 0)
		*fmt = TJ_DUMP;
	else {
		char *end;
		long v;

		/* .gro: a title, then a line of only the atom count */
		rewind(l.fp);
		rc = -1;
		if (cfg_lines_next(&l) > 0 && cfg_lines_next(&l) > 0) {
			errno = 0;
			v = strtol(l.buf, &end, 10);
			if (end != l.buf && errno == 0 && v > 0 &&
			    cfg_blank(end)) {
				*fmt = TJ_GRO;
				rc = 0;
			}
		}
		if (rc < 0)
			fek_seterr(FEK_EX_DATA, "%s: not a trajectory format "
			    "known by its name (.fek .dcd .gro .lammpstrj "
			    ".dump) or its first bytes: name the format (fek, "
			    "dcd, gro, lammpsdump)", path);
	}
	cfg_lines_close(&l);
	return rc;
}

struct fek_trajin *
fek_trajin_open(const char *path, const char *format, double lscale)
{
	struct fek_trajin *t;
	enum trajin_fmt fmt = TJ_FEK;
	int k, rc;

	if (!(lscale > 0) || !isfinite(lscale)) {
		fek_seterr(FEK_EX_USAGE, "%s: length scale %g: a positive "
		    "number", path, lscale);
		return NULL;
	}
	if (format != NULL) {
		for (k = 0; k < 4; k++)
			if (strcmp(format, fmt_names[k]) == 0)
				break;
		if (k == 4) {
			fek_seterr(FEK_EX_USAGE, "format '%s': fek, dcd, gro "
			    "or lammpsdump", format);
			return NULL;
		}
		fmt = (enum trajin_fmt)k;
	} else if (guess_format(path, &fmt) < 0) {
		return NULL;
	}
	t = fek_alloc(1, sizeof *t);
	t->fmt = fmt;
	t->lscale = lscale;
	snprintf(t->name, sizeof t->name, "%s", strcmp(path, "-") == 0 ?
	    "stdin" : path);
	switch (fmt) {
	case TJ_FEK:
		rc = fek_reader_open(&t->r, path);
		break;
	case TJ_DCD:
		if (strcmp(path, "-") == 0) {
			rc = fek_seterr(FEK_EX_USAGE, "stdin: a DCD file is "
			    "read from a file (with seeks), not from standard "
			    "input");
			break;
		}
		if ((t->d.fp = fek_open_input(path, "rb")) == NULL) {
			rc = -1;
			break;
		}
		rc = dcd_open(t);
		break;
	default:
		rc = cfg_lines_open(&t->l, path);
		t->l.name = t->name;
		break;
	}
	if (rc < 0) {
		fek_trajin_close(t);
		return NULL;
	}
	return t;
}

const char *
fek_trajin_format(const struct fek_trajin *t)
{
	return fmt_names[t->fmt];
}

/* f as read: scaled, its cell set, its positions checked and wrapped. */
static int
frame_finish(struct fek_trajin *t, struct fek_frame *f)
{
	struct fek_box *bx = &f->box;
	double s = t->lscale;

	for (int d = 0; d < 3; d++)
		bx->lo[d] *= s;
	bx->lx *= s;
	bx->ly *= s;
	bx->lz *= s;
	bx->xy *= s;
	bx->xz *= s;
	bx->yz *= s;
	if (fek_box_set(bx) < 0 || !isfinite(bx->lo[0]) ||
	    !isfinite(bx->lo[1]) || !isfinite(bx->lo[2]))
		return fek_seterr(FEK_EX_DATA, "%s: frame %ld: cell %g %g %g "
		    "%g %g %g from %g %g %g: edges must be positive and "
		    "finite", t->name, t->nread + 1, bx->lx, bx->ly, bx->lz,
		    bx->xy, bx->xz, bx->yz, bx->lo[0], bx->lo[1], bx->lo[2]);
	for (long i = 0; i < f->n; i++) {
		double *x = f->x + 3 * i;

		x[0] *= s;
		x[1] *= s;
		x[2] *= s;
		if (!isfinite(x[0]) || !isfinite(x[1]) || !isfinite(x[2]))
			return fek_seterr(FEK_EX_DATA, "%s: frame %ld: "
			    "particle %ld: position %g %g %g is not finite",
			    t->name, t->nread + 1, i + 1, x[0], x[1], x[2]);
		fek_box_wrap(bx, x);
	}
	if (f->ntypes < 1)
		f->ntypes = 1;
	for (long i = 0; i < f->n; i++)
		if (f->type[i] >= f->ntypes)
			f->ntypes = f->type[i] + 1;
	return 0;
}

int
fek_trajin_next(struct fek_trajin *t, struct fek_frame *f)
{
	int rc;

	if (t->state > 0)
		return 0;
	if (t->state < 0)
		return fek_seterr(FEK_EX_DATA, "%s: frame %ld: not read after "
		    "the error before it", t->name, t->nread + 1);
	f->ordinal = t->nread;
	f->step = -1;
	f->replica = f->nreplica = 1;
	f->ntypes = 0;
	memset(f->tname, 0, sizeof f->tname);
	fek_hdr_free(&f->hdr);
	fek_hdr_init(&f->hdr, "frames");
	switch (t->fmt) {
	case TJ_FEK:
		rc = read_fek_frame(t, f);
		break;
	case TJ_DCD:
		rc = read_dcd_frame(t, f);
		break;
	case TJ_GRO:
		if ((rc = read_gro_frame(t, f)) < 0)
			frame_err(t);
		break;
	default:
		if ((rc = read_dump_frame(t, f)) < 0)
			frame_err(t);
		break;
	}
	if (rc > 0 && frame_finish(t, f) < 0)
		rc = -1;
	if (rc > 0)
		t->nread++;
	else
		t->state = rc == 0 ? 1 : -1;
	return rc;
}

void
fek_trajin_close(struct fek_trajin *t)
{
	if (t == NULL)
		return;
	if (t->fmt == TJ_FEK)
		fek_reader_close(&t->r);
	else if (t->fmt != TJ_DCD)
		cfg_lines_close(&t->l);
	if (t->d.fp != NULL)
		fclose(t->d.fp);
	free(t->d.buf);
	free(t->rows);
	free(t->tok);
	free(t->atoms);
	cfg_conf_free(&t->c);
	free(t);
}

void
fek_frame_free(struct fek_frame *f)
{
	free(f->x);
	free(f->type);
	fek_hdr_free(&f->hdr);
	memset(f, 0, sizeof *f);
}

void
fek_trajin_set_lscale(struct fek_trajin *t, double lscale)
{
	t->lscale = lscale;
}

void
fek_trajin_set_untyped(struct fek_trajin *t)
{
	t->c.untyped = 1;
}
