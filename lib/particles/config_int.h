/*
 * config_int.h - internal to lib/particles: the pieces of the configuration
 * reader (config.c) that the trajectory reader (trajin.c) shares with it.
 *
 *   textline.c  text lines with their numbers for messages, whole-field
 *               number parsing, blank-separated fields
 *   config.c    a configuration as read (struct cfg_conf), the columns,
 *               BOX/ORIGIN and NTYPES/TYPE keys of a fek(5) frames section,
 *               one GROMACS .gro frame
 *
 * Errors as everywhere in libfek: -1 after fek_seterr (65 malformed,
 * naming the file and the line or section; 66 cannot open).
 */
#ifndef FEK_CONFIG_INT_H
#define FEK_CONFIG_INT_H

#include <stddef.h>
#include <stdio.h>

#include "stream/stream.h"
#include "particles/particles.h"

/* ---- textline.c --------------------------------------------------------- */

/* realloc to n x size bytes; exits 70 on overflow or no memory, as
 * fek_alloc does. */
void	*cfg_grow(void *p, size_t n, size_t size);

/* The whole of s as a finite number / a decimal integer: 0 or -1. */
int	cfg_parse_double(const char *s, double *out);
int	cfg_parse_ll(const char *s, long long *out);
/* v as an integer in [lo, hi]: 1 or 0. */
int	cfg_integral(double v, double lo, double hi);
/* Up to max finite numbers separated by blanks from s into b: their
 * count (max + 1 when there are more), or -1 when a field is not one. */
int	cfg_scan_numbers(const char *s, double *b, int max);
/* Only blanks: 1 or 0. */
int	cfg_blank(const char *s);
/* Split s in place at blanks (a '#' ends it): up to max fields into tok;
 * returns how many there are in all. */
int	cfg_split(char *s, char **tok, int max);

/* A text file read a line at a time. */
struct cfg_lines {
	FILE *fp;
	int owned;
	const char *name;		/* the path, or "stdin" */
	char *buf;
	size_t cap;
	size_t len;			/* up to the first NUL */
	long lineno;
	int pushed;			/* buf is to be read again */
};

/* Open path ("-": stdin); l->name points into path.  -1 with 66. */
int	cfg_lines_open(struct cfg_lines *l, const char *path);
void	cfg_lines_close(struct cfg_lines *l);
/* The next line into l->buf without its newline (and carriage return):
 * 1, 0 at the end of the file, -1 (65) on a read error. */
int	cfg_lines_next(struct cfg_lines *l);
/* The bytes after what has been read where l is a regular file, else -1. */
long long cfg_lines_left(const struct cfg_lines *l);
/* 0 when the rest of the file can hold count lines of at least minlen
 * bytes (newline included) or is not a regular file (a pipe's lines are
 * counted as they come); else -1 with fek_seterr(65) naming what and the
 * line last read: a count in a header is checked so before anything is
 * sized by it. */
int	cfg_lines_fit(const struct cfg_lines *l, const char *what,
	    long long count, int minlen);
/* fek_seterr(65, "name: line N: ...") of the line last read. */
int	cfg_line_err(const struct cfg_lines *l, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* ---- config.c ----------------------------------------------------------- */

/* What a file gives, before it becomes a fek_psys. */
struct cfg_conf {
	const char *name;		/* the file, for messages */
	long n, cap;			/* particles (a frame), room for */
	int nframe;			/* configurations: boxes */
	int ntypes;
	int *type;			/* n */
	long long *id;			/* n */
	double *x, *v;			/* nframe n x 3 */
	int have_v;
	struct fek_box *box;		/* nframe */
	int untyped;			/* .gro: atom names are not types (all
					   type 0; molecules have too many) */
	int have_mass[FEK_PMD_MAXTYPES];
	double mass[FEK_PMD_MAXTYPES];
	char tname[FEK_PMD_MAXTYPES][16];
};

void	cfg_conf_free(struct cfg_conf *c);
/* Room for need particles in type, id, x and v (one frame). */
void	cfg_conf_reserve(struct cfg_conf *c, long need);
/* Type t's name: the first len bytes of name, cut to 15. */
void	cfg_set_tname(struct cfg_conf *c, int t, const char *name, size_t len);

/* The columns of one frames section, by name; -1 where absent. */
struct cfg_fek_cols {
	int x[3], v[3], type, id;
};

/* x y z (required, f64 or f32), vx vy vz or v_x v_y v_z (all or none),
 * type and id of h. */
int	cfg_fek_find_cols(struct fek_reader *r, const struct fek_header *h,
	    struct cfg_fek_cols *k);
/* The cell from the keys BOX (required) and ORIGIN (default 0 0 0); no
 * fek_box_set. */
int	cfg_fek_box(struct fek_reader *r, const struct fek_header *h,
	    struct fek_box *bx);
/* NTYPES (or 0 when absent) into *ntypes and the TYPE lines (names,
 * masses) into c when c->nframe is 0, else checked against c's. */
int	cfg_fek_types(struct fek_reader *r, const struct fek_header *h,
	    struct cfg_conf *c, int *ntypes);

/* One .gro frame after its title line: the count, the atoms and the box
 * line.  Into c: n, type (atom names looked up in c's types, new ones
 * appended), id (1 .. n), x, v and have_v; the cell into *bx (origin 0),
 * in the file's units (nm). */
int	cfg_gro_frame(struct cfg_conf *c, struct cfg_lines *l,
	    struct fek_box *bx);

#endif
