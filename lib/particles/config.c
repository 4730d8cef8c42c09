/*
 * config.c - a starting configuration for md-gpu's particle engine
 * (pmd.h), read from a file in one of three formats:
 *
 *   fek frames sections (fek(5)), as lib/pmd/output.c writes them: one
 *     section of KIND frames per box, a row per particle; columns found by
 *     name: x y z (f64 or f32), optionally type (integer, 0 ..
 *     FEK_PMD_MAXTYPES - 1; default 0), id (integer; default 1 .. n) and
 *     vx vy vz (or v_x v_y v_z); keys BOX lx ly lz [xy xz yz] (required),
 *     ORIGIN x y z (default 0 0 0), NTYPES n and TYPE t name [mass] (name
 *     "-": none).  Other columns and keys are ignored.
 *
 *   GROMACS .gro (GROMACS reference manual, "File formats: gro"): a title
 *     line, the atom count, one fixed-column line per atom, "%5d%-5s%5s%5d"
 *     (residue number, residue name, atom name, atom number) then x y z in
 *     nm in "%8.3f" fields and optionally vx vy vz in nm/ps in "%8.4f"
 *     fields, and the box line v1(x) v2(y) v3(z) [v1(y) v1(z) v2(x) v2(z)
 *     v3(x) v3(y)] in free format.  Higher precision files widen the
 *     fields (n decimals in n + 5 characters, velocities n + 1 decimals in
 *     as many); as GROMACS's own reader does, the width is the distance
 *     between the decimal points of the first atom's x and y, and the
 *     velocity fields have the same width.  Types are the distinct atom
 *     names in order of first appearance; ids are the line order.
 *
 *   LAMMPS data files (LAMMPS documentation, read_data command: "Format
 *     of a data file"): a comment line, header lines "N atoms", "M atom
 *     types", "xlo xhi", "ylo yhi", "zlo zhi", "xy xz yz" (others, such
 *     as "N bonds", are ignored), then sections, each a keyword line, a
 *     blank line and the data lines: Masses (type mass), Atoms (atom
 *     styles atomic, charge, molecular, bond, angle and full, named by the
 *     "# style" comment after the keyword as write_data writes it, else
 *     told by the number of fields; optional image flags), Velocities
 *     (id vx vy vz) and Atom Type Labels (type label: the type names, and
 *     labels may stand for types in Atoms and Masses).  Other sections
 *     (Bonds, Pair Coeffs, ...) are skipped.  The box is LAMMPS's
 *     restricted triclinic one, which is ours (pmd_eval.h): a = (xhi -
 *     xlo, 0, 0), b = (xy, yhi - ylo, 0), c = (xz, yz, zhi - zlo) from
 *     (xlo, ylo, zlo).  Atoms are stored in the order of their ids;
 *     LAMMPS type t is our type t - 1.
 *
 * Positions are unwrapped by the image flags where a LAMMPS file gives
 * them, scaled, and wrapped into the cell (fek_box_wrap).
 *
 * The frames keys and columns and the .gro frame are shared with the
 * trajectory reader (trajin.c) through config_int.h; text lines and
 * numbers are textline.c's.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/fek.h"
#include "stream/stream.h"
#include "particles/particles.h"
#include "particles/config_int.h"

#define MAXT FEK_PMD_MAXTYPES
#define MAXTOK 16		/* fields of a LAMMPS line we look at */

void
cfg_conf_free(struct cfg_conf *c)
{
	free(c->type);
	free(c->id);
	free(c->x);
	free(c->v);
	free(c->box);
}

/* Room for need particles of one frame (the text formats). */
void
cfg_conf_reserve(struct cfg_conf *c, long need)
{
	if (need <= c->cap)
		return;
	c->cap = c->cap ? 2 * c->cap : 1024;
	if (c->cap < need)
		c->cap = need;
	c->type = cfg_grow(c->type, c->cap, sizeof *c->type);
	c->id = cfg_grow(c->id, c->cap, sizeof *c->id);
	c->x = cfg_grow(c->x, 3 * c->cap, sizeof *c->x);
	c->v = cfg_grow(c->v, 3 * c->cap, sizeof *c->v);
}

void
cfg_set_tname(struct cfg_conf *c, int t, const char *name, size_t len)
{
	if (len > sizeof c->tname[t] - 1)
		len = sizeof c->tname[t] - 1;
	memcpy(c->tname[t], name, len);
	c->tname[t][len] = '\0';
}

/* ---- fek frames --------------------------------------------------------- */

int
cfg_fek_find_cols(struct fek_reader *r, const struct fek_header *h,
    struct cfg_fek_cols *k)
{
	static const char *xn[3] = { "x", "y", "z" };
	static const char *vn[2][3] = { { "vx", "vy", "vz" },
	    { "v_x", "v_y", "v_z" } };
	int nv = 0;

	for (int d = 0; d < 3; d++) {
		k->x[d] = fek_hdr_col(h, xn[d]);
		if (k->x[d] < 0)
			return fek_rerr(r, FEK_EX_DATA, "no column %s (a "
			    "frames section needs x, y and z)", xn[d]);
		if (h->cols[k->x[d]].type != FEK_F64 &&
		    h->cols[k->x[d]].type != FEK_F32)
			return fek_rerr(r, FEK_EX_DATA, "column %s is %s: "
			    "coordinates are f64 (or f32)", xn[d],
			    fek_type_name(h->cols[k->x[d]].type));
	}
	for (int s = 0; s < 2 && nv == 0; s++)
		for (int d = 0; d < 3; d++) {
			k->v[d] = fek_hdr_col(h, vn[s][d]);
			nv += k->v[d] >= 0;
		}
	if (nv != 0 && nv != 3)
		return fek_rerr(r, FEK_EX_DATA, "velocity columns: all three "
		    "of vx vy vz (or v_x v_y v_z) or none");
	if (nv == 0)
		k->v[0] = k->v[1] = k->v[2] = -1;
	k->type = fek_hdr_col(h, "type");
	k->id = fek_hdr_col(h, "id");
	return 0;
}

/* The cell from BOX and ORIGIN. */
int
cfg_fek_box(struct fek_reader *r, const struct fek_header *h,
    struct fek_box *bx)
{
	const char *val = fek_hdr_get(h, "BOX", 0);
	double b[6];
	int nb;

	if (val == NULL)
		return fek_rerr(r, FEK_EX_DATA, "no BOX key (BOX lx ly lz "
		    "[xy xz yz])");
	if (fek_hdr_count(h, "BOX") > 1 || fek_hdr_count(h, "ORIGIN") > 1)
		return fek_rerr(r, FEK_EX_DATA, "more than one BOX or ORIGIN "
		    "line");
	nb = cfg_scan_numbers(val, b, 6);
	if (nb != 3 && nb != 6)
		return fek_rerr(r, FEK_EX_DATA, "key BOX: '%s' is not 3 or 6 "
		    "numbers", val);
	memset(bx, 0, sizeof *bx);
	bx->lx = b[0];
	bx->ly = b[1];
	bx->lz = b[2];
	if (nb == 6) {
		bx->xy = b[3];
		bx->xz = b[4];
		bx->yz = b[5];
	}
	if (!(bx->lx > 0 && bx->ly > 0 && bx->lz > 0))
		return fek_rerr(r, FEK_EX_DATA, "key BOX: edges %g %g %g must "
		    "be positive", bx->lx, bx->ly, bx->lz);
	if (fek_hdr_get(h, "ORIGIN", 0) != NULL &&
	    fek_key_doubles(r, h, "ORIGIN", 3, bx->lo) < 0)
		return -1;
	return 0;
}

/* NTYPES and the TYPE lines into c (the first section) or checked
 * against it (the others). */
int
cfg_fek_types(struct fek_reader *r, const struct fek_header *h,
    struct cfg_conf *c, int *ntypes)
{
	const char *val;
	double nt;

	*ntypes = 0;
	if (fek_hdr_get(h, "NTYPES", 0) != NULL) {
		if (fek_key_double(r, h, "NTYPES", &nt) < 0)
			return -1;
		if (!cfg_integral(nt, 1, MAXT))
			return fek_rerr(r, FEK_EX_DATA, "key NTYPES: %g: "
			    "expected 1 to %d", nt, MAXT);
		*ntypes = (int)nt;
	}
	for (int k = 0; (val = fek_hdr_get(h, "TYPE", k)) != NULL; k++) {
		const char *p = val, *name;
		char *end;
		long t;
		size_t len;
		double m = 0;
		int have_m = 0;

		errno = 0;
		t = strtol(p, &end, 10);
		if (end == p || (*end != ' ' && *end != '\t') || errno ||
		    t < 0 || t >= MAXT)
			return fek_rerr(r, FEK_EX_DATA, "key TYPE '%s': "
			    "expected a type from 0 to %d, a name and a mass",
			    val, MAXT - 1);
		p = end + strspn(end, " \t");
		name = p;
		len = strcspn(p, " \t");
		if (len == 0)
			return fek_rerr(r, FEK_EX_DATA, "key TYPE '%s': no "
			    "name", val);
		p += len;
		p += strspn(p, " \t");
		if (*p != '\0') {
			errno = 0;
			m = strtod(p, &end);
			end += strspn(end, " \t");
			if (end == p || *end != '\0' || errno == ERANGE ||
			    !(m > 0) || !isfinite(m))
				return fek_rerr(r, FEK_EX_DATA, "key TYPE "
				    "'%s': the mass must be a positive number",
				    val);
			have_m = 1;
		}
		if (len == 1 && *name == '-')
			len = 0;
		if (t + 1 > *ntypes && fek_hdr_get(h, "NTYPES", 0) != NULL)
			return fek_rerr(r, FEK_EX_DATA, "key TYPE '%s': type "
			    "%ld, but NTYPES %d", val, t, *ntypes);
		if (t + 1 > *ntypes)
			*ntypes = (int)t + 1;
		if (c->nframe == 0) {
			for (int j = 0; j < k; j++)
				if (atol(fek_hdr_get(h, "TYPE", j)) == t)
					return fek_rerr(r, FEK_EX_DATA, "two "
					    "TYPE lines for type %ld", t);
			cfg_set_tname(c, (int)t, name, len);
			c->have_mass[t] = have_m;
			if (have_m)
				c->mass[t] = m;
		} else if (strlen(c->tname[t]) != (len < 15 ? len : 15) ||
		    strncmp(c->tname[t], name, strlen(c->tname[t])) != 0 ||
		    have_m != c->have_mass[t] ||
		    (have_m && m != c->mass[t])) {
			return fek_rerr(r, FEK_EX_DATA, "key TYPE '%s' differs "
			    "from section 1's: every box must have the same "
			    "types", val);
		}
	}
	return 0;
}

static int
id_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* One frames section per box; every section the same particles. */
static int
read_fek(struct cfg_conf *c, const char *path)
{
	struct fek_reader r;
	struct fek_header h;
	struct cfg_fek_cols k = { { -1, -1, -1 }, { -1, -1, -1 }, -1, -1 };
	struct fek_box bx;
	double *rows = NULL;
	long long *ids = NULL;
	long long cap = 0, nr;
	int rc, nt, nt0 = 0;

	if (fek_reader_open(&r, path) < 0)
		return -1;
	c->name = strcmp(path, "-") == 0 ? "stdin" : path;
	fek_hdr_init(&h, NULL);
	for (;;) {
		fek_hdr_free(&h);
		rc = fek_next_section(&r, &h);
		if (rc < 0)
			goto fail;
		if (rc == 0)
			break;
		if (strcmp(h.kind, "frames") != 0) {
			fek_rerr(&r, FEK_EX_DATA, "KIND %s: a configuration is "
			    "read from frames sections", h.kind);
			goto fail;
		}
		if (cfg_fek_find_cols(&r, &h, &k) < 0 ||
		    cfg_fek_box(&r, &h, &bx) < 0 ||
		    cfg_fek_types(&r, &h, c, &nt) < 0)
			goto fail;
		for (nr = 0;;) {
			long got;

			if (nr == cap) {
				cap = cap ? 2 * cap : 4096;
				rows = cfg_grow(rows, (size_t)cap * h.ncols,
				    sizeof *rows);
			}
			got = fek_read_rows(&r, rows + nr * h.ncols,
			    (long)(cap - nr));
			if (got < 0)
				goto fail;
			if (got == 0)
				break;
			nr += got;
		}
		if (nr == 0) {
			fek_rerr(&r, FEK_EX_DATA, "no particles");
			goto fail;
		}
		if (c->nframe == 0) {
			c->n = (long)nr;
			c->type = cfg_grow(NULL, c->n, sizeof *c->type);
			c->id = cfg_grow(NULL, c->n, sizeof *c->id);
			c->have_v = k.v[0] >= 0;
			c->ntypes = nt > 0 ? nt : 1;
			nt0 = nt;
		} else if (nr != c->n) {
			fek_rerr(&r, FEK_EX_DATA, "%lld particles, section 1 "
			    "has %ld: every box must have the same particles",
			    nr, c->n);
			goto fail;
		} else if ((k.v[0] >= 0) != c->have_v) {
			fek_rerr(&r, FEK_EX_DATA, "velocities in some sections "
			    "but not in others");
			goto fail;
		} else if (nt != 0 && nt != nt0) {
			fek_rerr(&r, FEK_EX_DATA, "NTYPES or TYPE lines for %d "
			    "types, section 1's for %d: every box must have "
			    "the same types", nt, nt0);
			goto fail;
		}
		c->x = cfg_grow(c->x, 3 * (size_t)c->n * (c->nframe + 1),
		    sizeof *c->x);
		c->v = cfg_grow(c->v, 3 * (size_t)c->n * (c->nframe + 1),
		    sizeof *c->v);
		c->box = cfg_grow(c->box, c->nframe + 1, sizeof *c->box);
		c->box[c->nframe] = bx;
		for (long i = 0; i < c->n; i++) {
			const double *row = rows + i * h.ncols;
			double *x = c->x + 3 * (c->n * c->nframe + i);
			double *v = c->v + 3 * (c->n * c->nframe + i);
			int t = 0;
			long long id = i + 1;

			if (k.type >= 0) {
				if (!cfg_integral(row[k.type], 0, MAXT - 1)) {
					fek_rerr(&r, FEK_EX_DATA, "row %ld: "
					    "type %g: expected an integer from "
					    "0 to %d", i + 1, row[k.type],
					    MAXT - 1);
					goto fail;
				}
				t = (int)row[k.type];
			}
			if (k.id >= 0) {
				if (!cfg_integral(row[k.id],
				    -9007199254740992.0, 9007199254740992.0)) {
					fek_rerr(&r, FEK_EX_DATA, "row %ld: id "
					    "%g is not an integer", i + 1,
					    row[k.id]);
					goto fail;
				}
				id = (long long)row[k.id];
			}
			if (c->nframe == 0) {
				c->type[i] = t;
				c->id[i] = id;
				if (t >= c->ntypes) {
					if (fek_hdr_get(&h, "NTYPES", 0)) {
						fek_rerr(&r, FEK_EX_DATA, "row "
						    "%ld: type %d, but NTYPES "
						    "%d", i + 1, t, c->ntypes);
						goto fail;
					}
					c->ntypes = t + 1;
				}
			} else if (c->type[i] != t || c->id[i] != id) {
				fek_rerr(&r, FEK_EX_DATA, "row %ld: id %lld "
				    "type %d, section 1 has id %lld type %d: "
				    "every box must have the same particles",
				    i + 1, id, t, c->id[i], c->type[i]);
				goto fail;
			}
			for (int d = 0; d < 3; d++) {
				x[d] = row[k.x[d]];
				v[d] = c->have_v ? row[k.v[d]] : 0;
				if (!isfinite(x[d]) || !isfinite(v[d])) {
					fek_rerr(&r, FEK_EX_DATA, "row %ld: "
					    "infinite position or velocity",
					    i + 1);
					goto fail;
				}
			}
		}
		if (c->nframe == 0) {
			ids = cfg_grow(NULL, c->n, sizeof *ids);
			memcpy(ids, c->id, c->n * sizeof *ids);
			qsort(ids, c->n, sizeof *ids, id_cmp);
			for (long i = 1; i < c->n; i++)
				if (ids[i] == ids[i - 1]) {
					fek_rerr(&r, FEK_EX_DATA, "id %lld "
					    "appears twice", ids[i]);
					goto fail;
				}
			free(ids);
			ids = NULL;
		}
		c->nframe++;
	}
	fek_hdr_free(&h);
	fek_reader_close(&r);
	free(rows);
	return 0;
fail:
	fek_hdr_free(&h);
	fek_reader_close(&r);
	free(rows);
	free(ids);
	return -1;
}

/* ---- GROMACS .gro ------------------------------------------------------- */

/* The w characters at p as a number (spaces around it allowed). */
static int
gro_field(const char *p, int w, double *out)
{
	char buf[64];
	size_t a, b;

	memcpy(buf, p, w);
	buf[w] = '\0';
	a = strspn(buf, " ");
	for (b = w; b > a && buf[b - 1] == ' '; b--)
		;
	buf[b] = '\0';
	return b > a ? cfg_parse_double(buf + a, out) : -1;
}

/* Atom line i (0-based): its name's type, x and v into c.  *w is the
 * field width, found on the first line. */
static int
gro_atom(struct cfg_conf *c, struct cfg_lines *l, long i, int *w, long *vline)
{
	static const char *xyz = "xyz";
	char *s = l->buf, name[6];
	size_t len = l->len, a, b;
	int t, hasv;

	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len < 21)
		return cfg_line_err(l, "%zu characters: too short for a .gro "
		    "atom line (x, y and z from column 21)", len);
	if (*w == 0) {
		/* GROMACS's get_w_conf: the distance between the decimal
		 * points of x and y, the same to z */
		const char *p1 = memchr(s + 20, '.', len - 20), *p2 = NULL,
		    *p3 = NULL;

		if (p1 != NULL)
			p2 = memchr(p1 + 1, '.', s + len - p1 - 1);
		if (p2 != NULL)
			p3 = memchr(p2 + 1, '.', s + len - p2 - 1);
		if (p3 == NULL)
			return cfg_line_err(l, "x, y and z must each have a "
			    "decimal point (.gro is a fixed-column format)");
		if (p3 - p2 != p2 - p1 || p2 - p1 < 3 || p2 - p1 > 40)
			return cfg_line_err(l, "the decimal points of x, y and "
			    "z are %d and %d characters apart: not fields of "
			    "one width", (int)(p2 - p1), (int)(p3 - p2));
		*w = (int)(p2 - p1);
	}
	if (len < 20 + 3 * (size_t)*w)
		return cfg_line_err(l, "%zu characters: too short for x, y and "
		    "z in fields of %d from column 21", len, *w);
	memcpy(name, s + 10, 5);
	name[5] = '\0';
	a = strspn(name, " ");
	for (b = 5; b > a && name[b - 1] == ' '; b--)
		;
	name[b] = '\0';
	for (t = 0; t < c->ntypes && !c->untyped; t++)
		if (strcmp(c->tname[t], name + a) == 0)
			break;
	if (c->untyped) {
		t = 0;
		if (c->ntypes == 0) {
			cfg_set_tname(c, 0, "", 0);
			c->ntypes = 1;
		}
	} else if (t == c->ntypes) {
		if (t == MAXT)
			return cfg_line_err(l, "atom name '%s': more than %d "
			    "distinct atom names (types)", name + a, MAXT);
		cfg_set_tname(c, t, name + a, strlen(name + a));
		c->ntypes++;
	}
	cfg_conf_reserve(c, i + 1);
	c->type[i] = t;
	c->id[i] = i + 1;
	for (int d = 0; d < 3; d++)
		if (gro_field(s + 20 + d * *w, *w, &c->x[3 * i + d]) < 0)
			return cfg_line_err(l, "%c: '%.*s' in columns %d-%d is "
			    "not a number", xyz[d], *w, s + 20 + d * *w,
			    21 + d * *w, 20 + (d + 1) * *w);
	hasv = len > 20 + 3 * (size_t)*w;
	if (i == 0) {
		c->have_v = hasv;
		*vline = l->lineno;
	} else if (hasv != c->have_v) {
		return cfg_line_err(l, hasv ? "velocities, but line %ld has "
		    "none: all atoms or none" : "no velocities, but line %ld "
		    "has them: all atoms or none", *vline);
	}
	for (int d = 0; d < 3; d++) {
		const char *p = s + 20 + (3 + d) * *w;

		c->v[3 * i + d] = 0;
		if (!hasv)
			continue;
		if (len < 20 + (4 + (size_t)d) * *w)
			return cfg_line_err(l, "%zu characters: too short for "
			    "vx, vy and vz in fields of %d from column %d",
			    len, *w, 21 + 3 * *w);
		if (gro_field(p, *w, &c->v[3 * i + d]) < 0)
			return cfg_line_err(l, "v%c: '%.*s' in columns %d-%d "
			    "is not a number", xyz[d], *w, p, 21 + (3 + d) * *w,
			    20 + (4 + d) * *w);
	}
	return 0;
}

int
cfg_gro_frame(struct cfg_conf *c, struct cfg_lines *l, struct fek_box *bx)
{
	long n, i, vline = 0;
	int rc, w = 0, nb = 0;
	double b[10];
	char *p, *end;

	if ((rc = cfg_lines_next(l)) <= 0) {
		if (rc == 0)
			fek_seterr(FEK_EX_DATA, "%s: the file ends after the "
			    "title: no atom count", l->name);
		return -1;
	}
	p = l->buf + strspn(l->buf, " \t");
	errno = 0;
	n = strtol(p, &end, 10);
	if (!isdigit((unsigned char)*p) || errno == ERANGE || !cfg_blank(end) ||
	    n < 1)
		return cfg_line_err(l, "'%.40s' is not an atom count of 1 or "
		    "more", l->buf);
	/* an atom line has x, y and z from column 21 */
	if (cfg_lines_fit(l, "atom count", n, 22) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if ((rc = cfg_lines_next(l)) <= 0) {
			if (rc == 0)
				fek_seterr(FEK_EX_DATA, "%s: the file ends "
				    "after %ld of the %ld atoms", l->name, i,
				    n);
			return -1;
		}
		if (gro_atom(c, l, i, &w, &vline) < 0)
			return -1;
	}
	c->n = n;
	if ((rc = cfg_lines_next(l)) <= 0) {
		if (rc == 0)
			fek_seterr(FEK_EX_DATA, "%s: the file ends after the "
			    "atoms: no box line", l->name);
		return -1;
	}
	if ((nb = cfg_scan_numbers(l->buf, b, 9)) < 0)
		return cfg_line_err(l, "box: '%.60s' is not 3 or 9 numbers",
		    l->buf);
	if (nb != 3 && nb != 9)
		return cfg_line_err(l, "box: %d numbers, expected 3 or 9", nb);
	if (nb == 9 && (b[3] != 0 || b[4] != 0 || b[6] != 0))
		return cfg_line_err(l, "box: v1(y) v1(z) v2(z) = %g %g %g: "
		    "must be 0 (GROMACS's triclinic convention)", b[3], b[4],
		    b[6]);
	memset(bx, 0, sizeof *bx);
	bx->lx = b[0];
	bx->ly = b[1];
	bx->lz = b[2];
	if (nb == 9) {
		bx->xy = b[5];
		bx->xz = b[7];
		bx->yz = b[8];
	}
	if (!(b[0] > 0 && b[1] > 0 && b[2] > 0))
		return cfg_line_err(l, "box: edges %g %g %g must be positive",
		    b[0], b[1], b[2]);
	return 0;
}

static int
read_gro(struct cfg_conf *c, const char *path)
{
	struct cfg_lines l;
	int rc;

	if (cfg_lines_open(&l, path) < 0)
		return -1;
	c->name = l.name;
	c->nframe = 1;
	c->box = cfg_grow(NULL, 1, sizeof *c->box);
	memset(c->box, 0, sizeof *c->box);
	if ((rc = cfg_lines_next(&l)) <= 0) {
		if (rc == 0)
			fek_seterr(FEK_EX_DATA, "%s: empty file, expected a "
			    ".gro title line", l.name);
		goto fail;
	}
	if (cfg_gro_frame(c, &l, c->box) < 0)
		goto fail;
	while ((rc = cfg_lines_next(&l)) > 0)
		if (!cfg_blank(l.buf)) {
			cfg_line_err(&l, "text after the box line (a .gro of "
			    "more than one frame?): one configuration is read");
			goto fail;
		}
	if (rc < 0)
		goto fail;
	cfg_lines_close(&l);
	return 0;
fail:
	cfg_lines_close(&l);
	return -1;
}

/* ---- LAMMPS data files -------------------------------------------------- */

/* Atom styles: fields of an Atoms line without image flags, where type
 * and x are. */
static const struct atom_style {
	const char *name;
	int nfield, type_at, x_at, mol_at, q_at;
} atom_styles[] = {
	{ "atomic", 5, 1, 2, -1, -1 },
	{ "charge", 6, 1, 3, -1, 2 },
	{ "molecular", 6, 2, 3, 1, -1 },
	{ "bond", 6, 2, 3, 1, -1 },
	{ "angle", 6, 2, 3, 1, -1 },
	{ "full", 7, 2, 4, 1, 3 },
};

struct atom_rec {
	long long id;
	long line;
	int type;
	double x[3];
};

struct lmp {
	struct cfg_lines l;
	long long natoms;
	int ntypes;
	double lo[3], hi[3], tilt[3];
	char *label[MAXT];		/* Atom Type Labels, or NULL */
	struct atom_rec *atoms;
	unsigned char *vseen;
	int have_atoms;
};

/* Blank or only a comment. */
static int
lmp_blank(const char *s)
{
	s += strspn(s, " \t\r\f\v");
	return *s == '\0' || *s == '#';
}

/* The first character after blanks. */
static int
lmp_first(const char *s)
{
	return (unsigned char)s[strspn(s, " \t\r\f\v")];
}

/* A type: 1 .. ntypes or a label -> 0 .. ntypes - 1. */
static int
lmp_type(struct lmp *m, const char *s, int *t)
{
	long long v;

	if (cfg_parse_ll(s, &v) == 0) {
		if (v < 1 || v > m->ntypes)
			return cfg_line_err(&m->l, "type %lld: the header has "
			    "%d atom types", v, m->ntypes);
		*t = (int)v - 1;
		return 0;
	}
	for (int k = 0; k < m->ntypes; k++)
		if (m->label[k] != NULL && strcmp(m->label[k], s) == 0) {
			*t = k;
			return 0;
		}
	return cfg_line_err(&m->l, "type '%.40s' is neither a number nor a "
	    "type label", s);
}

/* The next data line of a section (blank and comment lines skipped),
 * for the k-th of count lines of section what.  With keyword_ends, a
 * line that starts with a letter is an error (a section keyword too
 * early). */
static int
lmp_data_line(struct lmp *m, const char *what, long k, long long count,
    int keyword_ends)
{
	int rc;

	do {
		if ((rc = cfg_lines_next(&m->l)) < 0)
			return -1;
		if (rc == 0)
			return fek_seterr(FEK_EX_DATA, "%s: the file ends in "
			    "the %s section after %ld of %lld lines", m->l.name,
			    what, k, count);
	} while (lmp_blank(m->l.buf));
	if (keyword_ends && isalpha(lmp_first(m->l.buf)))
		return cfg_line_err(&m->l, "'%.40s' after %ld of the %lld %s "
		    "lines", m->l.buf + strspn(m->l.buf, " \t"), k, count,
		    what);
	return 0;
}

/* The header: counts and the cell. */
static int
lmp_header(struct lmp *m)
{
	int have_n = 0, have_t = 0, have_b[3] = { 0, 0, 0 };
	char *tok[MAXTOK], kw[64];
	int rc, ntok, nnum;
	double num[MAXTOK];

	if ((rc = cfg_lines_next(&m->l)) <= 0) {
		if (rc == 0)
			fek_seterr(FEK_EX_DATA, "%s: empty file, expected a "
			    "LAMMPS data file", m->l.name);
		return -1;
	}
	for (;;) {
		if ((rc = cfg_lines_next(&m->l)) < 0)
			return -1;
		if (rc == 0)
			return fek_seterr(FEK_EX_DATA, "%s: the file ends in "
			    "the header: no Atoms section", m->l.name);
		if (lmp_blank(m->l.buf))
			continue;
		if (isalpha(lmp_first(m->l.buf))) {
			m->l.pushed = 1;	/* the first section */
			break;
		}
		ntok = cfg_split(m->l.buf, tok, MAXTOK);
		if (ntok > MAXTOK)
			return cfg_line_err(&m->l, "not a header line (%d "
			    "fields)", ntok);
		for (nnum = 0; nnum < ntok; nnum++)
			if (cfg_parse_double(tok[nnum], &num[nnum]) < 0)
				break;
		kw[0] = '\0';
		for (int k = nnum; k < ntok; k++) {
			if (strlen(kw) + strlen(tok[k]) + 2 > sizeof kw)
				break;
			if (k > nnum)
				strcat(kw, " ");
			strcat(kw, tok[k]);
		}
		if (nnum == 0 || kw[0] == '\0')
			return cfg_line_err(&m->l, "'%.40s' is not a header "
			    "line (numbers, then a keyword such as atoms)",
			    tok[0]);
		if (strcmp(kw, "atoms") == 0 || strcmp(kw, "atom types") == 0) {
			long long v;

			if (nnum != 1 || cfg_parse_ll(tok[0], &v) < 0 || v < 0)
				return cfg_line_err(&m->l, "%s: expected one "
				    "count", kw);
			if (kw[4] == 's') {
				m->natoms = v;
				have_n = 1;
			} else {
				if (v < 1 || v > MAXT)
					return cfg_line_err(&m->l, "%lld atom "
					    "types: 1 to %d are read", v, MAXT);
				m->ntypes = (int)v;
				have_t = 1;
			}
		} else if (strcmp(kw, "xlo xhi") == 0 ||
		    strcmp(kw, "ylo yhi") == 0 || strcmp(kw, "zlo zhi") == 0) {
			int d = kw[0] - 'x';

			if (nnum != 2 || !(num[1] > num[0]))
				return cfg_line_err(&m->l, "%s: expected two "
				    "numbers, lo < hi", kw);
			m->lo[d] = num[0];
			m->hi[d] = num[1];
			have_b[d] = 1;
		} else if (strcmp(kw, "xy xz yz") == 0) {
			if (nnum != 3)
				return cfg_line_err(&m->l, "xy xz yz: expected "
				    "three numbers");
			memcpy(m->tilt, num, sizeof m->tilt);
		} else if (strcmp(kw, "avec") == 0 || strcmp(kw, "bvec") == 0 ||
		    strcmp(kw, "cvec") == 0 || strcmp(kw, "abc origin") == 0) {
			return cfg_line_err(&m->l, "%s: a general triclinic "
			    "box is not read (write the data file with "
			    "LAMMPS's restricted triclinic box: xlo xhi ... "
			    "xy xz yz)", kw);
		}
		/* others (bonds, angles, ... types, extra ... per atom,
		 * ellipsoids, ...): nothing here uses them */
	}
	if (!have_n || m->natoms == 0)
		return fek_seterr(FEK_EX_DATA, "%s: %s", m->l.name, !have_n ?
		    "no 'N atoms' line in the header" : "the header says 0 "
		    "atoms");
	if (!have_t)
		return fek_seterr(FEK_EX_DATA, "%s: no 'M atom types' line in "
		    "the header", m->l.name);
	for (int d = 0; d < 3; d++)
		if (!have_b[d])
			return fek_seterr(FEK_EX_DATA, "%s: no '%clo %chi' "
			    "line in the header", m->l.name, "xyz"[d],
			    "xyz"[d]);
	return 0;
}

static int
atom_cmp(const void *a, const void *b)
{
	const struct atom_rec *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The Atoms section, whose keyword line had the comment hint (or
 * NULL). */
static int
lmp_atoms(struct lmp *m, struct cfg_conf *c, const char *hint)
{
	const struct atom_style *st = NULL;
	char *tok[MAXTOK];
	int ntok, nfield = 0, image = 0, guessed = 0;
	long long cap = 0;
	struct fek_box *bx = c->box;

	if (m->have_atoms)
		return cfg_line_err(&m->l, "a second Atoms section");
	if (hint != NULL) {
		for (size_t k = 0; k < sizeof atom_styles /
		    sizeof atom_styles[0]; k++)
			if (strcmp(hint, atom_styles[k].name) == 0)
				st = &atom_styles[k];
		if (st == NULL)
			return cfg_line_err(&m->l, "atom style '%.20s': "
			    "atomic, charge, molecular, bond, angle and full "
			    "are read", hint);
	}
	/* the count against what is left of a regular file (an Atoms line
	 * has five fields at least); room is made as the lines come */
	if (cfg_lines_fit(&m->l, "the header's atom count", m->natoms, 10) < 0)
		return -1;
	for (long long k = 0; k < m->natoms; k++) {
		struct atom_rec *a;
		long long v, img[3] = { 0, 0, 0 };
		double q;

		if (lmp_data_line(m, "Atoms", k, m->natoms, 1) < 0)
			return -1;
		ntok = cfg_split(m->l.buf, tok, MAXTOK);
		if (k == 0) {
			/* No hint: by the count of fields.  6 (9 with image
			 * flags) is charge or molecular; we take charge, as
			 * ASE and MDAnalysis do.  Name the style after the
			 * keyword ("Atoms # molecular") to read the other. */
			guessed = st == NULL;
			if (st == NULL)
				for (size_t j = 0; j < sizeof atom_styles /
				    sizeof atom_styles[0]; j++)
					if ((ntok == atom_styles[j].nfield ||
					    ntok == atom_styles[j].nfield + 3)
					    && (j == 0 || j == 1 || j == 5)) {
						st = &atom_styles[j];
						break;
					}
			if (st == NULL)
				return cfg_line_err(&m->l, "%d fields: not an "
				    "Atoms line of style atomic (5 or 8 "
				    "fields), charge (6 or 9) or full (7 or "
				    "10)", ntok);
			if (ntok != st->nfield && ntok != st->nfield + 3)
				return cfg_line_err(&m->l, "%d fields: atom "
				    "style %s has %d (or %d with image flags)",
				    ntok, st->name, st->nfield, st->nfield + 3);
			nfield = ntok;
			image = ntok == st->nfield + 3;
		} else if (ntok != nfield) {
			return cfg_line_err(&m->l, "%d fields, but the first "
			    "Atoms line has %d", ntok, nfield);
		}
		if (k == cap) {
			cap = cap ? 2 * cap : 1024;
			if (cap > m->natoms)
				cap = m->natoms;
			m->atoms = cfg_grow(m->atoms, cap, sizeof *m->atoms);
		}
		a = &m->atoms[k];
		a->line = m->l.lineno;
		if (cfg_parse_ll(tok[0], &a->id) < 0 || a->id < 1)
			return cfg_line_err(&m->l, "atom id '%.40s' is not a "
			    "positive integer", tok[0]);
		if (lmp_type(m, tok[st->type_at], &a->type) < 0) {
			char msg[512];

			if (!guessed)
				return -1;
			snprintf(msg, sizeof msg, "%s", fek_errmsg());
			return fek_seterr(FEK_EX_DATA, "%s (atom style %s, "
			    "told by the %d fields: name the style after the "
			    "keyword, as in 'Atoms # molecular', if it is "
			    "another)", msg, st->name, nfield);
		}
		if (st->mol_at >= 0 && (cfg_parse_ll(tok[st->mol_at], &v) < 0 ||
		    v < 0))
			return cfg_line_err(&m->l, "molecule id '%.40s' is not "
			    "an integer, 0 or more", tok[st->mol_at]);
		if (st->q_at >= 0 && cfg_parse_double(tok[st->q_at], &q) < 0)
			return cfg_line_err(&m->l, "charge '%.40s' is not a "
			    "number", tok[st->q_at]);
		for (int d = 0; d < 3; d++)
			if (cfg_parse_double(tok[st->x_at + d], &a->x[d]) < 0)
				return cfg_line_err(&m->l, "%c '%.40s' is not "
				    "a number", "xyz"[d], tok[st->x_at + d]);
		for (int d = 0; image && d < 3; d++)
			if (cfg_parse_ll(tok[st->x_at + 3 + d], &img[d]) < 0 ||
			    img[d] < -(1LL << 40) || img[d] > (1LL << 40))
				return cfg_line_err(&m->l, "image flag '%.40s' "
				    "is not an integer", tok[st->x_at + 3 + d]);
		/* unwrapped: x + ix a + iy b + iz c */
		a->x[0] += (double)img[0] * bx->lx + (double)img[1] * bx->xy +
		    (double)img[2] * bx->xz;
		a->x[1] += (double)img[1] * bx->ly + (double)img[2] * bx->yz;
		a->x[2] += (double)img[2] * bx->lz;
	}
	qsort(m->atoms, m->natoms, sizeof *m->atoms, atom_cmp);
	for (long long k = 1; k < m->natoms; k++)
		if (m->atoms[k].id == m->atoms[k - 1].id)
			return fek_seterr(FEK_EX_DATA, "%s: lines %ld and %ld: "
			    "atom id %lld twice", m->l.name,
			    m->atoms[k - 1].line < m->atoms[k].line ?
			    m->atoms[k - 1].line : m->atoms[k].line,
			    m->atoms[k - 1].line < m->atoms[k].line ?
			    m->atoms[k].line : m->atoms[k - 1].line,
			    m->atoms[k].id);
	cfg_conf_reserve(c, m->natoms);
	for (long long k = 0; k < m->natoms; k++) {
		c->id[k] = m->atoms[k].id;
		c->type[k] = m->atoms[k].type;
		memcpy(c->x + 3 * k, m->atoms[k].x, sizeof m->atoms[k].x);
		c->v[3 * k] = c->v[3 * k + 1] = c->v[3 * k + 2] = 0;
	}
	c->n = m->natoms;
	m->have_atoms = 1;
	return 0;
}

static int
lmp_velocities(struct lmp *m, struct cfg_conf *c)
{
	char *tok[MAXTOK];
	int ntok;

	if (!m->have_atoms)
		return cfg_line_err(&m->l, "Velocities before Atoms (LAMMPS "
		    "reads Atoms first)");
	if (c->have_v)
		return cfg_line_err(&m->l, "a second Velocities section");
	m->vseen = cfg_grow(NULL, c->n, 1);
	memset(m->vseen, 0, c->n);
	for (long long k = 0; k < m->natoms; k++) {
		long long id;
		const long long *p;
		long i;

		if (lmp_data_line(m, "Velocities", k, m->natoms, 1) < 0)
			return -1;
		ntok = cfg_split(m->l.buf, tok, MAXTOK);
		if (ntok != 4)
			return cfg_line_err(&m->l, "%d fields, expected 4 (id "
			    "vx vy vz)", ntok);
		if (cfg_parse_ll(tok[0], &id) < 0)
			return cfg_line_err(&m->l, "atom id '%.40s' is not an "
			    "integer", tok[0]);
		p = bsearch(&id, c->id, c->n, sizeof *c->id, id_cmp);
		if (p == NULL)
			return cfg_line_err(&m->l, "velocity of atom %lld, "
			    "which the Atoms section does not have", id);
		i = (long)(p - c->id);
		if (m->vseen[i])
			return cfg_line_err(&m->l, "a second velocity of atom "
			    "%lld", id);
		m->vseen[i] = 1;
		for (int d = 0; d < 3; d++)
			if (cfg_parse_double(tok[1 + d], &c->v[3 * i + d]) < 0)
				return cfg_line_err(&m->l, "v%c '%.40s' is not "
				    "a number", "xyz"[d], tok[1 + d]);
	}
	c->have_v = 1;
	return 0;
}

static int
lmp_masses(struct lmp *m, struct cfg_conf *c)
{
	char *tok[MAXTOK];
	int ntok, t;
	double mass;

	for (int k = 0; k < m->ntypes; k++) {
		if (lmp_data_line(m, "Masses", k, m->ntypes, 0) < 0)
			return -1;
		ntok = cfg_split(m->l.buf, tok, MAXTOK);
		if (ntok != 2)
			return cfg_line_err(&m->l, "%d fields, expected 2 "
			    "(type mass)", ntok);
		if (lmp_type(m, tok[0], &t) < 0)
			return -1;
		if (cfg_parse_double(tok[1], &mass) < 0 || !(mass > 0))
			return cfg_line_err(&m->l, "mass '%.40s' is not a "
			    "positive number", tok[1]);
		if (c->have_mass[t])
			return cfg_line_err(&m->l, "a second mass for type %d",
			    t + 1);
		c->have_mass[t] = 1;
		c->mass[t] = mass;
	}
	return 0;
}

static int
lmp_labels(struct lmp *m, struct cfg_conf *c)
{
	char *tok[MAXTOK];
	int ntok;
	long long t;

	for (int k = 0; k < m->ntypes; k++) {
		if (lmp_data_line(m, "Atom Type Labels", k, m->ntypes, 1) < 0)
			return -1;
		ntok = cfg_split(m->l.buf, tok, MAXTOK);
		if (ntok != 2 || cfg_parse_ll(tok[0], &t) < 0 || t < 1 ||
		    t > m->ntypes)
			return cfg_line_err(&m->l, "expected a type from 1 to "
			    "%d and its label", m->ntypes);
		if (m->label[t - 1] != NULL)
			return cfg_line_err(&m->l, "a second label for type "
			    "%lld", t);
		m->label[t - 1] = strdup(tok[1]);
		if (m->label[t - 1] == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
		cfg_set_tname(c, (int)t - 1, tok[1], strlen(tok[1]));
	}
	return 0;
}

/* Skip a section we do not read: up to the next line that starts with a
 * capital letter after a blank line (a section keyword), or the end. */
static int
lmp_skip(struct lmp *m)
{
	int rc, was_blank = 0;

	while ((rc = cfg_lines_next(&m->l)) > 0) {
		if (lmp_blank(m->l.buf)) {
			was_blank = 1;
			continue;
		}
		if (was_blank && isupper(lmp_first(m->l.buf))) {
			m->l.pushed = 1;
			return 0;
		}
		was_blank = 0;
	}
	return rc;
}

static int
read_lammps(struct cfg_conf *c, const char *path)
{
	struct lmp m;
	int rc;

	memset(&m, 0, sizeof m);
	if (cfg_lines_open(&m.l, path) < 0)
		return -1;
	c->name = m.l.name;
	c->nframe = 1;
	c->box = cfg_grow(NULL, 1, sizeof *c->box);
	memset(c->box, 0, sizeof *c->box);
	if (lmp_header(&m) < 0)
		goto fail;
	c->ntypes = m.ntypes;
	for (int d = 0; d < 3; d++)
		c->box->lo[d] = m.lo[d];
	c->box->lx = m.hi[0] - m.lo[0];
	c->box->ly = m.hi[1] - m.lo[1];
	c->box->lz = m.hi[2] - m.lo[2];
	c->box->xy = m.tilt[0];
	c->box->xz = m.tilt[1];
	c->box->yz = m.tilt[2];
	for (;;) {
		char *kw, *hint = NULL, *p, *e;

		do {
			if ((rc = cfg_lines_next(&m.l)) < 0)
				goto fail;
		} while (rc > 0 && lmp_blank(m.l.buf));
		if (rc == 0)
			break;
		kw = m.l.buf + strspn(m.l.buf, " \t");
		if (!isupper((unsigned char)*kw)) {
			cfg_line_err(&m.l, "'%.40s' where a section keyword "
			    "(Atoms, Velocities, Masses, ...) belongs: more "
			    "lines than the header's counts?", kw);
			goto fail;
		}
		if ((p = strchr(kw, '#')) != NULL) {
			*p++ = '\0';
			p += strspn(p, " \t");
			if (*p != '\0') {
				hint = p;
				p[strcspn(p, " \t")] = '\0';
			}
		}
		for (e = kw + strlen(kw); e > kw && isspace((unsigned char)
		    e[-1]); e--)
			;
		*e = '\0';
		if (strcmp(kw, "Atoms") == 0)
			rc = lmp_atoms(&m, c, hint);
		else if (strcmp(kw, "Velocities") == 0)
			rc = lmp_velocities(&m, c);
		else if (strcmp(kw, "Masses") == 0)
			rc = lmp_masses(&m, c);
		else if (strcmp(kw, "Atom Type Labels") == 0)
			rc = lmp_labels(&m, c);
		else
			rc = lmp_skip(&m);
		if (rc < 0)
			goto fail;
	}
	if (!m.have_atoms) {
		fek_seterr(FEK_EX_DATA, "%s: no Atoms section", m.l.name);
		goto fail;
	}
	rc = 0;
	goto out;
fail:
	rc = -1;
out:
	for (int t = 0; t < MAXT; t++)
		free(m.label[t]);
	free(m.atoms);
	free(m.vseen);
	cfg_lines_close(&m.l);
	return rc;
}

/* ---- the format --------------------------------------------------------- */

/* "<n> atoms", as in a LAMMPS data file's header. */
static int
atoms_line(const char *s)
{
	s += strspn(s, " \t");
	if (!isdigit((unsigned char)*s))
		return 0;
	s += strspn(s, "0123456789");
	if (*s != ' ' && *s != '\t')
		return 0;
	s += strspn(s, " \t");
	if (strncmp(s, "atoms", 5) != 0)
		return 0;
	s += 5;
	s += strspn(s, " \t\r");
	return *s == '\0' || *s == '#';
}

/* The format of path: by its name, else by its first bytes and lines.
 * NULL with fek_seterr(66) when it cannot be opened. */
static const char *
guess_format(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;
	unsigned char head[4];
	struct cfg_lines l;
	const char *fmt = "gro";
	size_t got;

	if (strcmp(path, "-") == 0)
		return "fek";
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	if (dot != NULL) {
		if (strcasecmp(dot, ".gro") == 0)
			return "gro";
		if (strcasecmp(dot, ".data") == 0 ||
		    strcasecmp(dot, ".lmp") == 0 ||
		    strcasecmp(dot, ".lammps") == 0)
			return "lammps";
		if (strcasecmp(dot, ".fek") == 0 || strcasecmp(dot, ".txt") == 0)
			return "fek";
	}
	if (strncmp(base, "data.", 5) == 0)
		return "lammps";
	if (cfg_lines_open(&l, path) < 0)
		return NULL;
	got = fread(head, 1, sizeof head, l.fp);
	if (got == 4 && (memcmp(head, FEK_MAGIC_TEXT, 4) == 0 ||
	    memcmp(head, FEK_MAGIC_BIN, 4) == 0)) {
		cfg_lines_close(&l);
		return "fek";
	}
	rewind(l.fp);
	/* a LAMMPS header: the comment line, then "N atoms" among the
	 * numbered lines before the first section keyword */
	if (cfg_lines_next(&l) > 0)
		while (l.lineno < 200 && cfg_lines_next(&l) > 0) {
			if (atoms_line(l.buf)) {
				fmt = "lammps";
				break;
			}
			if (isalpha(lmp_first(l.buf)))
				break;
		}
	cfg_lines_close(&l);
	return fmt;
}

/* ---- the batch ---------------------------------------------------------- */

/* c into a fresh s of nbox boxes (k > 1 configurations: nbox 1 or k). */
static int
conf_to_psys(struct cfg_conf *c, struct fek_psys *s, double lscale,
    double vscale, int nbox)
{
	int nb;

	if (c->nframe > 1 && nbox != 1 && nbox != c->nframe)
		return fek_seterr(FEK_EX_USAGE, "%s: %d configurations (one a "
		    "box), but %d boxes were asked for: ask for %d (or 1)",
		    c->name, c->nframe, nbox, c->nframe);
	nb = c->nframe > 1 ? c->nframe : nbox;
	fek_psys_alloc(s, c->n, nb, c->ntypes);
	memcpy(s->type, c->type, c->n * sizeof *s->type);
	memcpy(s->id, c->id, c->n * sizeof *s->id);
	for (int t = 0; t < MAXT; t++) {
		if (c->have_mass[t])
			s->mass[t] = c->mass[t];
		memcpy(s->tname[t], c->tname[t], sizeof s->tname[t]);
	}
	s->have_v = c->have_v;
	s->copied = c->nframe == 1 && nb > 1;
	for (int b = 0; b < nb; b++) {
		int f = c->nframe > 1 ? b : 0;
		struct fek_box *bx = &s->box[b];
		const double *x = c->x + 3 * c->n * f, *v = c->v + 3 * c->n * f;
		double *xb = s->x + 3 * s->n * b, *vb = s->v + 3 * s->n * b;

		*bx = c->box[f];
		for (int d = 0; d < 3; d++)
			bx->lo[d] *= lscale;
		bx->lx *= lscale;
		bx->ly *= lscale;
		bx->lz *= lscale;
		bx->xy *= lscale;
		bx->xz *= lscale;
		bx->yz *= lscale;
		if (fek_box_set(bx) < 0) {
			char msg[512];

			snprintf(msg, sizeof msg, "%s", fek_errmsg());
			fek_seterr(fek_errcode(), "%s: %s", c->name, msg);
			goto fail;
		}
		for (long i = 0; i < c->n; i++) {
			for (int d = 0; d < 3; d++) {
				xb[3 * i + d] = lscale * x[3 * i + d];
				vb[3 * i + d] = c->have_v ?
				    vscale * v[3 * i + d] : 0;
				if (!isfinite(xb[3 * i + d]) ||
				    !isfinite(vb[3 * i + d])) {
					fek_seterr(FEK_EX_DATA, "%s: particle "
					    "%lld: position or velocity "
					    "overflows when scaled", c->name,
					    s->id[i]);
					goto fail;
				}
			}
			fek_box_wrap(bx, xb + 3 * i);
		}
	}
	return 0;
fail:
	fek_psys_free(s);
	return -1;
}

const char *
fek_config_format(const char *path, const char *format)
{
	return format != NULL ? format : guess_format(path);
}

int
fek_config_read(struct fek_psys *s, const char *path, const char *format,
    double lscale, double vscale, int nbox)
{
	struct cfg_conf c;
	int rc;

	memset(s, 0, sizeof *s);
	memset(&c, 0, sizeof c);
	if (!(lscale > 0) || !isfinite(lscale) || !isfinite(vscale))
		return fek_seterr(FEK_EX_USAGE, "%s: length scale %g, velocity "
		    "scale %g: a positive length scale and a finite velocity "
		    "scale", path, lscale, vscale);
	if (nbox < 1)
		return fek_seterr(FEK_EX_USAGE, "%s: %d boxes: at least 1",
		    path, nbox);
	if (format == NULL && (format = guess_format(path)) == NULL)
		return -1;
	if (strcmp(format, "fek") == 0)
		rc = read_fek(&c, path);
	else if (strcmp(format, "gro") == 0)
		rc = read_gro(&c, path);
	else if (strcmp(format, "lammps") == 0)
		rc = read_lammps(&c, path);
	else
		return fek_seterr(FEK_EX_USAGE, "format '%s': fek, gro or "
		    "lammps", format);
	if (rc == 0)
		rc = conf_to_psys(&c, s, lscale, vscale, nbox);
	cfg_conf_free(&c);
	return rc;
}
