/*
 * stream.c - reader and writer of the fek stream format, version 1, and
 * its text twin; the one module that knows the bytes (fek(5)).  Models:
 * Netpbm's PAM (KEY value header, sections back to back) and NumPy's .npy
 * (a magic string with a non-ASCII first byte and a major version).
 */
#define _GNU_SOURCE	/* F_SETPIPE_SZ */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "stream/stream.h"

#define HDR_MAXLINE 65536
#define BLOCK_BYTES (1 << 16)	/* rows per block of ROWS ? */
#define CHUNK_BYTES (1 << 20)	/* bytes per fread/fwrite of rows */

static const char *type_names[] = { "f64", "f32", "i64", "i32" };
static const size_t type_sizes[] = { 8, 4, 8, 4 };

const char *
fek_type_name(enum fek_type t)
{
	return type_names[t];
}

int
fek_type_parse(const char *s, enum fek_type *t)
{
	int i;

	for (i = 0; i < 4; i++)
		if (strcmp(s, type_names[i]) == 0) {
			*t = (enum fek_type)i;
			return 0;
		}
	return -1;
}

/* ---- headers ---------------------------------------------------------- */

static char *
xstrdup(const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory");
	return d;
}

void
fek_hdr_init(struct fek_header *h, const char *kind)
{
	memset(h, 0, sizeof *h);
	snprintf(h->kind, sizeof h->kind, "%s", kind ? kind : "");
	h->rows = -1;
}

void
fek_hdr_free(struct fek_header *h)
{
	int i;

	for (i = 0; i < h->nkv; i++) {
		free(h->kv[i].key);
		free(h->kv[i].val);
	}
	free(h->kv);
	h->kv = NULL;
	h->nkv = h->kvcap = 0;
}

static void
kv_append(struct fek_header *h, const char *key, const char *val)
{
	if (h->nkv == h->kvcap) {
		h->kvcap = h->kvcap ? 2 * h->kvcap : 16;
		h->kv = realloc(h->kv, h->kvcap * sizeof *h->kv);
		if (h->kv == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
	}
	h->kv[h->nkv].key = xstrdup(key);
	h->kv[h->nkv].val = xstrdup(val);
	h->nkv++;
}

void
fek_hdr_copy(struct fek_header *dst, const struct fek_header *src)
{
	int i;

	*dst = *src;
	dst->kv = NULL;
	dst->nkv = dst->kvcap = 0;
	for (i = 0; i < src->nkv; i++)
		kv_append(dst, src->kv[i].key, src->kv[i].val);
}

void
fek_hdr_copy_keys(struct fek_header *dst, const struct fek_header *src)
{
	int i;

	for (i = 0; i < src->nkv; i++)
		kv_append(dst, src->kv[i].key, src->kv[i].val);
}

int
fek_hdr_addcol(struct fek_header *h, const char *name, enum fek_type type,
    const char *unit)
{
	struct fek_col *c;

	if (h->ncols == FEK_MAXCOLS)
		return fek_seterr(FEK_EX_SOFTWARE, "more than %d columns",
		    FEK_MAXCOLS);
	c = &h->cols[h->ncols++];
	snprintf(c->name, sizeof c->name, "%s", name);
	c->type = type;
	snprintf(c->unit, sizeof c->unit, "%s", unit && *unit ? unit : "1");
	return 0;
}

int
fek_hdr_col(const struct fek_header *h, const char *name)
{
	int i;

	for (i = 0; i < h->ncols; i++)
		if (strcmp(h->cols[i].name, name) == 0)
			return i;
	return -1;
}

void
fek_hdr_add(struct fek_header *h, const char *key, const char *fmt, ...)
{
	char buf[HDR_MAXLINE];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	kv_append(h, key, buf);
}

void
fek_hdr_del(struct fek_header *h, const char *key)
{
	int i, j;

	for (i = j = 0; i < h->nkv; i++) {
		if (strcmp(h->kv[i].key, key) == 0) {
			free(h->kv[i].key);
			free(h->kv[i].val);
		} else
			h->kv[j++] = h->kv[i];
	}
	h->nkv = j;
}

void
fek_hdr_set(struct fek_header *h, const char *key, const char *fmt, ...)
{
	char buf[HDR_MAXLINE];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	for (i = 0; i < h->nkv; i++)
		if (strcmp(h->kv[i].key, key) == 0) {
			free(h->kv[i].val);
			h->kv[i].val = xstrdup(buf);
			/* drop later duplicates */
			for (i++; i < h->nkv; ) {
				if (strcmp(h->kv[i].key, key) == 0) {
					free(h->kv[i].key);
					free(h->kv[i].val);
					memmove(&h->kv[i], &h->kv[i + 1],
					    (h->nkv - i - 1) * sizeof *h->kv);
					h->nkv--;
				} else
					i++;
			}
			return;
		}
	kv_append(h, key, buf);
}

const char *
fek_hdr_get(const struct fek_header *h, const char *key, int n)
{
	int i;

	for (i = 0; i < h->nkv; i++)
		if (strcmp(h->kv[i].key, key) == 0 && n-- == 0)
			return h->kv[i].val;
	return NULL;
}

int
fek_hdr_count(const struct fek_header *h, const char *key)
{
	int i, n = 0;

	for (i = 0; i < h->nkv; i++)
		n += strcmp(h->kv[i].key, key) == 0;
	return n;
}

void
fek_hdr_prov(struct fek_header *h, int argc, char **argv)
{
	char *s = fek_cmdline(argc, argv);

	kv_append(h, "PROV", s);
	free(s);
}

/* ---- reader ----------------------------------------------------------- */

int
fek_rerr(struct fek_reader *r, int code, const char *fmt, ...)
{
	char buf[768];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (r->section > 0)
		return fek_seterr(code, "%s: section %ld: %s", r->name,
		    r->section, buf);
	return fek_seterr(code, "%s: %s", r->name, buf);
}

int
fek_key_doubles(struct fek_reader *r, const struct fek_header *h,
    const char *key, int n, double *out)
{
	const char *v = fek_hdr_get(h, key, 0);
	char *end;
	int i;

	if (v == NULL)
		return fek_rerr(r, FEK_EX_DATA, "missing key %s", key);
	for (i = 0; i < n; i++) {
		errno = 0;
		out[i] = strtod(v, &end);
		if (end == v || errno == ERANGE || isnan(out[i]))
			return fek_rerr(r, FEK_EX_DATA, "key %s: expected %d "
			    "number%s, found '%s'", key, n, n > 1 ? "s" : "",
			    fek_hdr_get(h, key, 0));
		v = end;
	}
	while (*v == ' ' || *v == '\t')
		v++;
	if (*v != '\0')
		return fek_rerr(r, FEK_EX_DATA, "key %s: expected %d number%s, "
		    "found '%s'", key, n, n > 1 ? "s" : "",
		    fek_hdr_get(h, key, 0));
	return 0;
}

int
fek_key_double(struct fek_reader *r, const struct fek_header *h,
    const char *key, double *out)
{
	return fek_key_doubles(r, h, key, 1, out);
}

/* A pipe of 1 MiB instead of 64 KiB: a sixteenth of the wake-ups for the
 * hundreds of megabytes a histogram stream can be (Linux; else nothing). */
static void
widen_pipe(FILE *fp)
{
#ifdef F_SETPIPE_SZ
	struct stat st;

	if (fstat(fileno(fp), &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(fileno(fp), F_SETPIPE_SZ, 1 << 20);
#else
	(void)fp;
#endif
}

int
fek_reader_open(struct fek_reader *r, const char *path)
{
	memset(r, 0, sizeof *r);
	if (path == NULL || strcmp(path, "-") == 0) {
		r->fp = stdin;
		snprintf(r->name, sizeof r->name, "stdin");
		if (fek_check_input(stdin, "stdin") < 0)
			return -1;
	} else {
		r->fp = fek_open_input(path, "rb");
		if (r->fp == NULL)
			return -1;
		r->owned = 1;
		snprintf(r->name, sizeof r->name, "%s", path);
	}
	widen_pipe(r->fp);
	return 0;
}

void
fek_reader_close(struct fek_reader *r)
{
	if (r->owned && r->fp)
		fclose(r->fp);
	free(r->line);
	free(r->chunk);
	r->fp = NULL;
	r->line = NULL;
	r->chunk = NULL;
}

/* Read one line of at most max bytes into r->line without its newline.
 * Returns its length, -1 at end of file, -2 after recording an error (an
 * overlong line, a NUL byte, a read error).  A pushed-back line is
 * returned first. */
static long
read_line(struct fek_reader *r, size_t max)
{
	ssize_t n;

	if (r->have_line) {
		r->have_line = 0;
		return (long)strlen(r->line);
	}
	errno = 0;
	n = fek_getline(&r->line, &r->linecap, r->fp, max);
	if (n == FEK_LINE_EOF)
		return -1;
	if (n < 0) {
		r->lineno++;
		fek_rerr(r, fek_getline_code(n), "line %ld: %s", r->lineno,
		    fek_getline_why(n, max));
		return -2;
	}
	r->lineno++;
	return (long)n;
}

/* v fits an integer column of type t: integral, and within the range of
 * an i32, or within +-2^53 for an i64 (beyond it a double, which readers
 * hand on, is no longer exact).  Floating-point columns take anything. */
static int
int_fits(enum fek_type t, double v)
{
	if (t == FEK_I32)
		return v >= -2147483648.0 && v <= 2147483647.0 && v == floor(v);
	if (t == FEK_I64)
		return v >= -9007199254740992.0 && v <= 9007199254740992.0 &&
		    v == floor(v);
	return 1;
}

static const char *
int_range(enum fek_type t)
{
	return t == FEK_I32 ? "-2147483648 to 2147483647" :
	    "-2^53 to 2^53";
}

static int
valid_key(const char *k)
{
	if (*k < 'A' || *k > 'Z')
		return 0;
	for (; *k; k++)
		if (!((*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
		    *k == '_'))
			return 0;
	return 1;
}

/* Parse one header line (without the text twin's '#').  Returns 1 at END,
 * 0 otherwise, -1 on error. */
static int
header_line(struct fek_reader *r, struct fek_header *h, char *s, int *have)
{
	char *key, *val;
	char name[256], type[64], unit[256], extra[2];
	enum fek_type t;
	int n;

	if (*s == '\0' || *s == ' ' || *s == '\t')	/* comment */
		return 0;
	key = s;
	val = s + strcspn(s, " \t");
	if (*val) {
		*val++ = '\0';
		val += strspn(val, " \t");
	}
	if (!valid_key(key))
		return fek_rerr(r, FEK_EX_DATA, "header: bad key '%.40s'",
		    key);
	if (strcmp(key, "END") == 0)
		return 1;
	if (strcmp(key, "KIND") == 0) {
		if (*val == '\0' || strlen(val) >= FEK_NAMELEN ||
		    strpbrk(val, " \t"))
			return fek_rerr(r, FEK_EX_DATA, "header: key KIND: "
			    "bad value '%.40s'", val);
		strcpy(h->kind, val);
		have[0] = 1;
	} else if (strcmp(key, "ROWS") == 0) {
		char *end;
		long long v;

		if (strcmp(val, "?") == 0)
			h->rows = -1;
		else {
			errno = 0;
			v = strtoll(val, &end, 10);
			if (end == val || *end || errno || v < 0)
				return fek_rerr(r, FEK_EX_DATA, "header: key "
				    "ROWS: '%.40s' is not a count or ?", val);
			h->rows = v;
		}
		have[1] = 1;
	} else if (strcmp(key, "COL") == 0) {
		n = sscanf(val, "%255s %63s %255s %1s", name, type, unit,
		    extra);
		if (n < 2 || n > 3 || fek_type_parse(type, &t) < 0 ||
		    strlen(name) >= FEK_NAMELEN ||
		    (n == 3 && strlen(unit) >= FEK_NAMELEN))
			return fek_rerr(r, FEK_EX_DATA, "header: key COL: "
			    "'%.60s' is not 'name f64|f32|i64|i32 [unit]'",
			    val);
		if (fek_hdr_addcol(h, name, t, n == 3 ? unit : "1") < 0)
			return fek_rerr(r, FEK_EX_DATA, "header: more than %d "
			    "columns", FEK_MAXCOLS);
	} else
		kv_append(h, key, val);
	return 0;
}

/* Headerless whitespace text (allow_plain): one section of KIND plain
 * whose columns are counted from the first data line. */
static int
plain_section(struct fek_reader *r, struct fek_header *h)
{
	char *p, *end;
	int n = 0;

	r->plain = 1;
	r->text = 1;
	snprintf(h->kind, sizeof h->kind, "plain");
	h->rows = -1;
	for (;;) {
		long len = read_line(r, FEK_LINE_MAX);

		if (len < 0)
			return len == -2 ? -1 : fek_rerr(r, FEK_EX_DATA,
			    "no data lines");
		p = r->line + strspn(r->line, " \t");
		if (*p != '\0' && *p != '#')
			break;
	}
	r->have_line = 1;
	for (p = r->line;;) {
		p += strspn(p, " \t");
		if (*p == '\0')
			break;
		end = p + strcspn(p, " \t");
		n++;
		p = end;
	}
	while (h->ncols < n) {
		char nm[16];

		snprintf(nm, sizeof nm, "c%d", h->ncols + 1);
		if (fek_hdr_addcol(h, nm, FEK_F64, "1") < 0)
			return fek_rerr(r, FEK_EX_DATA, "line %ld: more than "
			    "%d columns", r->lineno, FEK_MAXCOLS);
		r->types[h->ncols - 1] = FEK_F64;
	}
	r->ncols = h->ncols;
	r->rows = -1;
	r->row = 0;
	r->section = 1;
	r->in_payload = 1;
	return 0;
}

static int skip_rest(struct fek_reader *r);

/*
 * A binary section's ROWS checked against the bytes its file still holds,
 * where the input is a regular file: a count the data cannot have is the
 * short payload it would be found to be (65, with the rows the file can
 * hold), before anyone allocates for it.  Pipes are checked as their rows
 * come (read_rows_binary).
 */
static int
rows_beyond_file(struct fek_reader *r)
{
	struct stat st;
	long long rowsize = 0, left;
	off_t at;
	int c;

	if (r->rows <= 0 || fstat(fileno(r->fp), &st) < 0 ||
	    !S_ISREG(st.st_mode) || (at = ftello(r->fp)) < 0)
		return 0;
	for (c = 0; c < r->ncols; c++)
		rowsize += type_sizes[r->types[c]];
	left = (long long)st.st_size - (long long)at;
	if (r->rows > left / rowsize)
		return fek_rerr(r, FEK_EX_DATA, "truncated payload: %lld of "
		    "%lld rows", left / rowsize, r->rows);
	return 0;
}

static int next_section(struct fek_reader *r, struct fek_header *h);

/* The next section's header into h: 1, 0 at the end of the stream, -1 on
 * error; h is initialised in every case, and holds nothing to free after
 * an error (the keys read before it are freed here). */
int
fek_next_section(struct fek_reader *r, struct fek_header *h)
{
	int rc;

	fek_hdr_init(h, NULL);
	rc = next_section(r, h);
	if (rc < 0)
		fek_hdr_free(h);
	return rc;
}

static int
next_section(struct fek_reader *r, struct fek_header *h)
{
	int c, have[2] = { 0, 0 }, rc, major;
	long n;
	char *s, *end;

	if (r->in_payload && skip_rest(r) < 0)
		return -1;
	if (r->plain)
		return 0;
	if (r->have_line) {
		c = r->line[0];
	} else {
		c = getc(r->fp);
		if (c == EOF) {
			if (ferror(r->fp))
				return fek_rerr(r, FEK_EX_DATA, "read error: "
				    "%s", strerror(errno));
			if (r->section == 0)
				return fek_rerr(r, FEK_EX_DATA, "empty input, "
				    "expected a fek stream");
			return 0;
		}
		ungetc(c, r->fp);
	}
	r->section++;
	r->row = 0;
	r->block_left = 0;
	r->block_end = 0;
	if ((unsigned char)c == 0x93) {
		r->text = 0;
		n = read_line(r, FEK_HEADER_MAX);
		if (n == -2)
			return -1;
		if (n < 5 || memcmp(r->line, FEK_MAGIC_BIN, 4) != 0 ||
		    r->line[4] != ' ')
			return fek_rerr(r, FEK_EX_DATA, "bad magic, expected "
			    "a fek stream");
	} else if (c == '#') {
		r->text = 1;
		if ((n = read_line(r, FEK_HEADER_MAX)) < 0)
			return n == -2 ? -1 : fek_rerr(r, FEK_EX_DATA,
			    "read error");
		if (strncmp(r->line, FEK_MAGIC_TEXT " ", 5) != 0) {
			if (r->allow_plain && r->section == 1) {
				r->have_line = 1;
				return plain_section(r, h) < 0 ? -1 : 1;
			}
			return fek_rerr(r, FEK_EX_DATA, "bad magic '%.20s', "
			    "expected a fek stream (#FEK 1)", r->line);
		}
	} else {
		if (r->allow_plain && r->section == 1)
			return plain_section(r, h) < 0 ? -1 : 1;
		return fek_rerr(r, FEK_EX_DATA, "bad magic, expected a fek "
		    "stream (binary \\223FEK 1 or text #FEK 1)");
	}
	errno = 0;
	major = (int)strtol(r->line + 5, &end, 10);
	if (end == r->line + 5 || (*end != '\0' && *end != ' '))
		return fek_rerr(r, FEK_EX_DATA, "bad magic line '%.20s'",
		    r->line + (r->text ? 0 : 1));
	if (major != FEK_FORMAT_MAJOR)
		return fek_rerr(r, FEK_EX_DATA, "format version %d is not "
		    "supported (this fek reads version %d)", major,
		    FEK_FORMAT_MAJOR);
	for (;;) {
		n = read_line(r, FEK_HEADER_MAX);
		if (n == -2)
			return -1;
		if (n < 0)
			return fek_rerr(r, FEK_EX_DATA, "header: no END line");
		s = r->line;
		if (r->text) {
			if (*s != '#')
				return fek_rerr(r, FEK_EX_DATA, "header: no "
				    "END line before data");
			s++;
		}
		rc = header_line(r, h, s, have);
		if (rc < 0)
			return -1;
		if (rc == 1)
			break;
	}
	if (!have[0])
		return fek_rerr(r, FEK_EX_DATA, "header: missing key KIND");
	if (!have[1])
		return fek_rerr(r, FEK_EX_DATA, "header: missing key ROWS");
	if (h->ncols == 0)
		return fek_rerr(r, FEK_EX_DATA, "header: no COL lines");
	r->rows = h->rows;
	r->ncols = h->ncols;
	for (c = 0; c < h->ncols; c++)
		r->types[c] = h->cols[c].type;
	if (!r->text && rows_beyond_file(r) < 0)
		return -1;
	r->in_payload = 1;
	return 1;
}

static inline int
cell_from_bytes(const unsigned char *b, enum fek_type t, double *v)
{
	uint64_t u = 0;
	uint32_t w = 0;
	int i;

	switch (t) {
	case FEK_F64:
	case FEK_I64:
		for (i = 7; i >= 0; i--)
			u = (u << 8) | b[i];
		if (t == FEK_F64)
			memcpy(v, &u, 8);
		else
			*v = (double)(int64_t)u;
		break;
	case FEK_F32:
	case FEK_I32:
		for (i = 3; i >= 0; i--)
			w = (w << 8) | b[i];
		if (t == FEK_F32) {
			float f;

			memcpy(&f, &w, 4);
			*v = f;
		} else
			*v = (double)(int32_t)w;
		break;
	}
	return isnan(*v) ? -1 : 0;
}

/* One column of k rows of rowsize bytes from src into dst (every
 * ncols-th double), a loop per type; the row of the first NaN, else k. */
static size_t
column_from_bytes(const unsigned char *src, size_t rowsize, enum fek_type t,
    double *dst, int ncols, size_t k)
{
	size_t i;

	switch (t) {
	case FEK_F64:
		for (i = 0; i < k; i++)
			if (cell_from_bytes(src + i * rowsize, FEK_F64,
			    &dst[i * ncols]) < 0)
				return i;
		break;
	case FEK_F32:
		for (i = 0; i < k; i++)
			if (cell_from_bytes(src + i * rowsize, FEK_F32,
			    &dst[i * ncols]) < 0)
				return i;
		break;
	case FEK_I64:
		for (i = 0; i < k; i++)
			(void)cell_from_bytes(src + i * rowsize, FEK_I64,
			    &dst[i * ncols]);
		break;
	case FEK_I32:
		for (i = 0; i < k; i++)
			(void)cell_from_bytes(src + i * rowsize, FEK_I32,
			    &dst[i * ncols]);
		break;
	}
	return k;
}

/* The row of the first NaN among k cells of a float column, else k. */
static size_t
column_nan(const unsigned char *src, size_t rowsize, enum fek_type t,
    size_t k)
{
	size_t i;
	double v;

	for (i = 0; i < k; i++)
		if (cell_from_bytes(src + i * rowsize, t, &v) < 0)
			return i;
	return k;
}

/* Rows the binary reader and writer move per fread/fwrite. */
static size_t
chunk_rows(size_t rowsize)
{
	return CHUNK_BYTES / rowsize + 1;
}

static long read_rows(struct fek_reader *r, double *buf,
    unsigned char *packed, long max);
static void cell_to_bytes(unsigned char *b, enum fek_type t, double v);

/* Up to max binary rows: converted to doubles into buf, or, with packed,
 * as they are (the section's layout) into packed, checked for NaN. */
static long
read_rows_binary(struct fek_reader *r, double *buf, unsigned char *packed,
    long max)
{
	unsigned char cnt[8], *src;
	size_t rowsize = 0, off, k, want, got_bytes, i;
	long got = 0;
	int c;

	for (c = 0; c < r->ncols; c++)
		rowsize += type_sizes[r->types[c]];
	if (r->chunk == NULL)	/* chunk_rows(any row size) rows fit */
		r->chunk = fek_alloc(CHUNK_BYTES + FEK_MAXCOLS * 8, 1);
	while (got < max) {
		if (r->rows >= 0) {
			if (r->row >= r->rows)
				break;
			k = (size_t)(r->rows - r->row);
		} else {
			if (r->block_left == 0) {
				uint64_t n = 0;
				int j;

				if (r->block_end)
					break;
				if (fread(cnt, 1, 8, r->fp) != 8)
					return fek_rerr(r, FEK_EX_DATA,
					    "truncated payload: missing block "
					    "count after row %lld", r->row);
				for (j = 7; j >= 0; j--)
					n = (n << 8) | cnt[j];
				if (n == 0) {
					r->block_end = 1;
					break;
				}
				if (n > (1ULL << 40))
					return fek_rerr(r, FEK_EX_DATA, "bad "
					    "block count %llu after row %lld",
					    (unsigned long long)n, r->row);
				r->block_left = (long long)n;
			}
			k = (size_t)r->block_left;
		}
		if (k > (size_t)(max - got))
			k = (size_t)(max - got);
		/* a chunk at a time, into packed too: want never wraps, and a
		 * short payload is found at its first missing chunk */
		if (k > chunk_rows(rowsize))
			k = chunk_rows(rowsize);
		want = k * rowsize;
		src = packed != NULL ? packed + got * rowsize : r->chunk;
		got_bytes = fread(src, 1, want, r->fp);
		k = got_bytes / rowsize;	/* the whole rows that came */
		for (c = 0, off = 0; c < r->ncols; c++) {
			if (packed == NULL)
				i = column_from_bytes(src + off, rowsize,
				    r->types[c], buf + got * r->ncols + c,
				    r->ncols, k);
			else if (r->types[c] == FEK_F64 ||
			    r->types[c] == FEK_F32)
				i = column_nan(src + off, rowsize, r->types[c],
				    k);
			else
				i = k;
			if (i < k)
				return fek_rerr(r, FEK_EX_DATA, "row %lld: "
				    "column %d: NaN", r->row + (long long)i + 1,
				    c + 1);
			off += type_sizes[r->types[c]];
		}
		if (r->rows < 0)
			r->block_left -= (long long)k;
		r->row += (long long)k;
		got += (long)k;
		if (got_bytes != want) {
			if (r->rows >= 0)
				return fek_rerr(r, FEK_EX_DATA, "truncated "
				    "payload: %lld of %lld rows", r->row,
				    r->rows);
			return fek_rerr(r, FEK_EX_DATA, "truncated payload "
			    "at row %lld", r->row + 1);
		}
	}
	return got;
}

static long
read_rows_text(struct fek_reader *r, double *buf, long max)
{
	long got = 0, n;
	char *p, *end;
	int c;

	while (got < max) {
		if (!r->have_line && !r->plain) {
			int ch = getc(r->fp);

			if (ch == 0x93) {	/* a binary section follows */
				ungetc(ch, r->fp);
				r->block_end = 1;
				break;
			}
			if (ch != EOF)
				ungetc(ch, r->fp);
		}
		n = read_line(r, FEK_LINE_MAX);
		if (n == -2)
			return -1;
		if (n < 0) {
			r->block_end = 1;
			break;
		}
		p = r->line + strspn(r->line, " \t");
		if (strncmp(p, FEK_MAGIC_TEXT " ", 5) == 0 && !r->plain) {
			r->have_line = 1;
			r->block_end = 1;
			break;
		}
		if (*p == '\0' || *p == '#')
			continue;
		if (r->rows >= 0 && r->row == r->rows)
			return fek_rerr(r, FEK_EX_DATA, "line %ld: more rows "
			    "than ROWS %lld", r->lineno, r->rows);
		for (c = 0; c < r->ncols; c++) {
			double *v = &buf[got * r->ncols + c];

			p += strspn(p, " \t");
			if (*p == '\0')
				return fek_rerr(r, FEK_EX_DATA, "row %lld "
				    "(line %ld): %d columns, expected %d",
				    r->row + 1, r->lineno, c, r->ncols);
			errno = 0;
			*v = strtod(p, &end);
			if (end == p || (*end != '\0' && *end != ' ' &&
			    *end != '\t'))
				return fek_rerr(r, FEK_EX_DATA, "row %lld "
				    "(line %ld): column %d: '%.*s' is not a "
				    "number", r->row + 1, r->lineno, c + 1,
				    (int)(strcspn(p, " \t") > 30 ? 30 :
				    strcspn(p, " \t")), p);
			if (isnan(*v))
				return fek_rerr(r, FEK_EX_DATA, "row %lld "
				    "(line %ld): column %d: NaN", r->row + 1,
				    r->lineno, c + 1);
			if (!int_fits(r->types[c], *v))
				return fek_rerr(r, FEK_EX_DATA, "row %lld "
				    "(line %ld): column %d: '%.*s' is not an "
				    "%s integer (%s)", r->row + 1, r->lineno,
				    c + 1, (int)(end - p > 30 ? 30 : end - p),
				    p, fek_type_name(r->types[c]),
				    int_range(r->types[c]));
			p = end;
		}
		p += strspn(p, " \t");
		if (*p != '\0' && *p != '#')
			return fek_rerr(r, FEK_EX_DATA, "row %lld (line %ld): "
			    "more than %d columns", r->row + 1, r->lineno,
			    r->ncols);
		r->row++;
		got++;
	}
	if (got < max && r->block_end && r->rows >= 0 && r->row != r->rows)
		return fek_rerr(r, FEK_EX_DATA, "truncated payload: %lld of "
		    "%lld rows", r->row, r->rows);
	return got;
}

long
fek_read_rows(struct fek_reader *r, double *buf, long max)
{
	return read_rows(r, buf, NULL, max);
}

long
fek_read_packed(struct fek_reader *r, void *buf, long max)
{
	return read_rows(r, NULL, buf, max);
}

static long
read_rows(struct fek_reader *r, double *buf, unsigned char *packed, long max)
{
	long n, i;
	int c;

	if (!r->in_payload)
		return 0;
	if (!r->text)
		n = read_rows_binary(r, buf, packed, max);
	else if (packed == NULL)
		n = read_rows_text(r, buf, max);
	else {		/* text rows, encoded as the binary twin's */
		double row[FEK_MAXCOLS];
		size_t off;

		for (n = 0; n < max; n++) {
			if ((i = read_rows_text(r, row, 1)) <= 0) {
				if (i < 0)
					return -1;
				break;
			}
			for (c = 0; c < r->ncols; c++) {
				cell_to_bytes(packed, r->types[c], row[c]);
				off = type_sizes[r->types[c]];
				packed += off;
			}
		}
	}
	if (n < 0)
		return -1;
	if (n == 0) {
		if (!r->text && r->rows < 0 && !r->block_end)
			return fek_rerr(r, FEK_EX_DATA, "truncated payload");
		if (r->text && r->rows >= 0 && r->row != r->rows)
			return fek_rerr(r, FEK_EX_DATA, "truncated payload: "
			    "%lld of %lld rows", r->row, r->rows);
		r->in_payload = 0;
	}
	return n;
}

static int
skip_rest(struct fek_reader *r)
{
	double buf[FEK_MAXCOLS * 64];
	long n;

	while ((n = fek_read_rows(r, buf, 64)) > 0)
		;
	return n < 0 ? -1 : 0;
}

long long
fek_read_all(struct fek_reader *r, const struct fek_header *h, double **out)
{
	long long cap, n = 0;
	long got;
	double *buf;

	/* ROWS is not trusted for the allocation (through a pipe nothing
	 * checks it before the data come): the buffer grows as rows arrive,
	 * up to ROWS, so a header that promises more than the data hold
	 * ends in "truncated payload" (65), not in memory exhaustion */
	cap = h->rows >= 0 && h->rows < 65536 ? h->rows : 65536;
	buf = fek_alloc((size_t)(cap ? cap : 1) * h->ncols, sizeof *buf);
	for (;;) {
		if (n == cap && h->rows >= 0 && n == h->rows) {
			double tmp[FEK_MAXCOLS];

			got = fek_read_rows(r, tmp, 1);
			if (got != 0) {
				free(buf);
				return got < 0 ? -1 : fek_rerr(r, FEK_EX_DATA,
				    "more rows than ROWS");
			}
			break;
		}
		if (n == cap) {
			cap *= 2;
			if (h->rows >= 0 && cap > h->rows)
				cap = h->rows;
			buf = realloc(buf, (size_t)cap * h->ncols *
			    sizeof *buf);
			if (buf == NULL)
				fek_errx(FEK_EX_SOFTWARE, "out of memory");
		}
		got = fek_read_rows(r, buf + n * h->ncols,
		    (long)(cap - n > 65536 ? 65536 : cap - n));
		if (got < 0) {
			free(buf);
			return -1;
		}
		if (got == 0)
			break;
		n += got;
	}
	*out = buf;
	return n;
}

/* ---- writer ----------------------------------------------------------- */

void
fek_writer_init(struct fek_writer *w, FILE *fp, int text)
{
	const char *e = getenv("FEK_TEXT");

	memset(w, 0, sizeof *w);
	w->fp = fp;
	w->name = fp == stdout ? "stdout" : "output";
	w->text = text || (e != NULL && strcmp(e, "1") == 0);
	widen_pipe(fp);
}

static int
werr(struct fek_writer *w)
{
	return fek_seterr(FEK_EX_IOERR, "%s: write error: %s", w->name,
	    strerror(errno ? errno : EIO));
}

int
fek_begin_section(struct fek_writer *w, const struct fek_header *h)
{
	const char *p = w->text ? "#" : "";
	FILE *fp = w->fp;
	int i;

	if (w->open)
		return fek_seterr(FEK_EX_SOFTWARE, "section not ended");
	if (w->text)
		fprintf(fp, "%s %d\n", FEK_MAGIC_TEXT, FEK_FORMAT_MAJOR);
	else
		fprintf(fp, "%s %d\n", FEK_MAGIC_BIN, FEK_FORMAT_MAJOR);
	fprintf(fp, "%sKIND %s\n", p, h->kind);
	if (h->rows >= 0)
		fprintf(fp, "%sROWS %lld\n", p, h->rows);
	else
		fprintf(fp, "%sROWS ?\n", p);
	w->rowsize = 0;
	for (i = 0; i < h->ncols; i++) {
		fprintf(fp, "%sCOL %s %s %s\n", p, h->cols[i].name,
		    type_names[h->cols[i].type], h->cols[i].unit);
		w->types[i] = h->cols[i].type;
		w->rowsize += type_sizes[h->cols[i].type];
	}
	for (i = 0; i < h->nkv; i++)
		fprintf(fp, "%s%s %s\n", p, h->kv[i].key, h->kv[i].val);
	fprintf(fp, "%sEND\n", p);
	w->ncols = h->ncols;
	w->rows = h->rows;
	w->written = 0;
	w->blank_every = 0;
	w->open = 1;
	w->block_rows = 0;
	if (!w->text) {
		/* ROWS ?: one block of rows at a time; counted rows: chunks */
		w->block_cap = w->rows < 0 ? BLOCK_BYTES / (long)w->rowsize +
		    1 : (long)chunk_rows(w->rowsize);
		if (w->block == NULL)	/* once: chunk_rows(any size) fit */
			w->block = fek_alloc(CHUNK_BYTES + FEK_MAXCOLS * 8, 1);
	}
	return ferror(fp) ? werr(w) : 0;
}

static void
cell_to_bytes(unsigned char *b, enum fek_type t, double v)
{
	uint64_t u;
	uint32_t x;
	int i;

	switch (t) {
	case FEK_F64:
		memcpy(&u, &v, 8);
		goto put8;
	case FEK_I64:
		u = (uint64_t)(int64_t)v;
	put8:
		for (i = 0; i < 8; i++)
			b[i] = (unsigned char)(u >> (8 * i));
		break;
	case FEK_F32: {
		float f = (float)v;

		memcpy(&x, &f, 4);
		goto put4;
	}
	case FEK_I32:
		x = (uint32_t)(int32_t)v;
	put4:
		for (i = 0; i < 4; i++)
			b[i] = (unsigned char)(x >> (8 * i));
		break;
	}
}

static int
flush_block(struct fek_writer *w)
{
	unsigned char cnt[8];
	uint64_t k = (uint64_t)w->block_rows;
	int i;

	for (i = 0; i < 8; i++)
		cnt[i] = (unsigned char)(k >> (8 * i));
	if (fwrite(cnt, 1, 8, w->fp) != 8)
		return werr(w);
	if (k && fwrite(w->block, w->rowsize, (size_t)k, w->fp) != k)
		return werr(w);
	w->block_rows = 0;
	return 0;
}

/* The buffered rows of a section with a row count, as they are. */
static int
flush_chunk(struct fek_writer *w)
{
	size_t k = (size_t)w->block_rows;

	if (fwrite(w->block, w->rowsize, k, w->fp) != k)
		return werr(w);
	w->block_rows = 0;
	return 0;
}

/* v as text into buf (at least 32 bytes): the shortest of %.15g, %.17g
 * that reads back exactly; the length. */
static int
fmt_double(char *buf, size_t size, double v)
{
	if (isinf(v))
		return snprintf(buf, size, "%s", v > 0 ? "inf" : "-inf");
	snprintf(buf, size, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, size, "%.17g", v);
	return (int)strlen(buf);
}

void
fek_put_double(FILE *fp, double v)
{
	char buf[40];

	fmt_double(buf, sizeof buf, v);
	fputs(buf, fp);
}

#define TEXT_CELL 40	/* bytes a cell's text and its blank may take */

/* One row of the text twin into buf (ncols * TEXT_CELL + 2 bytes), with
 * its newline; the length. */
static size_t
fmt_row(const struct fek_writer *w, const double *row, char *buf)
{
	size_t k = 0;
	int c;

	for (c = 0; c < w->ncols; c++) {
		if (c)
			buf[k++] = ' ';
		if (w->types[c] == FEK_I64 || w->types[c] == FEK_I32)
			k += snprintf(buf + k, TEXT_CELL, "%.0f", row[c]);
		else if (w->types[c] == FEK_F32)
			k += snprintf(buf + k, TEXT_CELL, "%.9g",
			    (double)(float)row[c]);
		else
			k += fmt_double(buf + k, TEXT_CELL, row[c]);
	}
	buf[k++] = '\n';
	return k;
}

/* n text rows: formatted in parallel a block at a time (printing
 * doubles exactly is the cost of the text twin), written in order. */
static int
text_rows(struct fek_writer *w, const double *rows, long n)
{
	enum { BLOCK = 4096 };
	size_t slot = (size_t)w->ncols * TEXT_CELL + 2, *len;
	char *buf;
	long i0, i;

	buf = fek_alloc((size_t)(n < BLOCK ? n : BLOCK), slot);
	len = fek_alloc((size_t)(n < BLOCK ? n : BLOCK), sizeof *len);
	for (i0 = 0; i0 < n; i0 += BLOCK) {
		long m = n - i0 < BLOCK ? n - i0 : BLOCK;

#pragma omp parallel for schedule(static) if (m * w->ncols >= 512)
		for (i = 0; i < m; i++)
			len[i] = fmt_row(w, rows + (i0 + i) * w->ncols,
			    buf + i * slot);
		for (i = 0; i < m; i++) {
			long long at = w->written + i0 + i;

			if (w->blank_every > 0 && at > 0 &&
			    at % w->blank_every == 0)
				putc('\n', w->fp);
			if (fwrite(buf + i * slot, 1, len[i], w->fp) != len[i])
				break;
		}
		if (i < m)
			break;
	}
	free(buf);
	free(len);
	return ferror(w->fp) ? werr(w) : 0;
}

int
fek_write_rows(struct fek_writer *w, const double *rows, long n)
{
	unsigned char *dst;
	long i;
	int c;
	size_t off;

	if (!w->open)
		return fek_seterr(FEK_EX_SOFTWARE, "no section begun");
	if (w->rows >= 0 && w->written + n > w->rows)
		return fek_seterr(FEK_EX_SOFTWARE, "more rows than declared "
		    "(%lld)", w->rows);
	for (c = 0; c < w->ncols; c++)
		if (w->types[c] == FEK_I32 || w->types[c] == FEK_I64)
			for (i = 0; i < n; i++)
				if (!int_fits(w->types[c],
				    rows[i * w->ncols + c]))
					return fek_seterr(FEK_EX_SOFTWARE,
					    "row %lld: column %d: %g does not "
					    "fit an %s column",
					    w->written + i + 1, c + 1,
					    rows[i * w->ncols + c],
					    fek_type_name(w->types[c]));
	if (w->text) {
		if (text_rows(w, rows, n) < 0)
			return -1;
		w->written += n;
		return 0;
	}
	for (i = 0; i < n; i++) {
		const double *row = rows + i * w->ncols;

		dst = w->block + (size_t)w->block_rows * w->rowsize;
		for (c = 0, off = 0; c < w->ncols; c++) {
			cell_to_bytes(dst + off, w->types[c], row[c]);
			off += type_sizes[w->types[c]];
		}
		if (++w->block_rows == w->block_cap &&
		    (w->rows < 0 ? flush_block(w) : flush_chunk(w)) < 0)
			return -1;
	}
	/* rows of a counted section go out now: the caller may write to
	 * the stream next (another section's header) */
	if (!w->text && w->rows >= 0 && w->block_rows && flush_chunk(w) < 0)
		return -1;
	w->written += n;
	return ferror(w->fp) ? werr(w) : 0;
}

int
fek_write_packed(struct fek_writer *w, const void *rows, long n)
{
	const unsigned char *b = rows;
	double row[FEK_MAXCOLS];
	long i;
	int c;

	if (!w->open)
		return fek_seterr(FEK_EX_SOFTWARE, "no section begun");
	if (w->text || w->rows < 0) {	/* through the row writer */
		for (i = 0; i < n; i++) {
			for (c = 0; c < w->ncols; c++) {
				(void)cell_from_bytes(b, w->types[c], &row[c]);
				b += type_sizes[w->types[c]];
			}
			if (fek_write_rows(w, row, 1) < 0)
				return -1;
		}
		return 0;
	}
	if (w->written + n > w->rows)
		return fek_seterr(FEK_EX_SOFTWARE, "more rows than declared "
		    "(%lld)", w->rows);
	if (w->block_rows && flush_chunk(w) < 0)
		return -1;
	if (n && fwrite(rows, w->rowsize, (size_t)n, w->fp) != (size_t)n)
		return werr(w);
	w->written += n;
	return 0;
}

int
fek_end_section(struct fek_writer *w)
{
	if (!w->open)
		return 0;
	w->open = 0;
	if (w->rows >= 0 && w->written != w->rows)
		return fek_seterr(FEK_EX_SOFTWARE, "wrote %lld rows of %lld "
		    "declared", w->written, w->rows);
	if (!w->text && w->rows < 0) {
		if (w->block_rows && flush_block(w) < 0)
			return -1;
		if (flush_block(w) < 0)		/* the 0 block */
			return -1;
	}
	return ferror(w->fp) ? werr(w) : 0;
}

void
fek_writer_free(struct fek_writer *w)
{
	free(w->block);
	w->block = NULL;
}
