/*
 * stream.h - the fek stream format, version 1 (specified in fek(5)).
 *
 * A stream is a sequence of sections.  Each section is a header of
 * "KEY value" lines between a magic line and an END line, then a payload
 * of fixed-width little-endian rows whose columns the COL lines declare.
 * The text twin writes the same header with a leading '#' on every line and
 * the rows as whitespace-separated numbers.  Concatenating streams gives
 * the union of their sections.  Readers accept either form, section by
 * section, and are strict: every defect is reported with the stream name,
 * the section number (from 1), and the row or key.
 *
 * Rows are handed to and from callers as doubles, column by column; i64
 * and i32 columns hold integers exactly (|v| < 2^53).
 */
#ifndef FEK_STREAM_H
#define FEK_STREAM_H

#include <stdio.h>

#define FEK_FORMAT_MAJOR 1
#define FEK_MAXCOLS 64
#define FEK_NAMELEN 32
#define FEK_MAGIC_BIN "\223FEK"	/* 0x93 'F' 'E' 'K' */
#define FEK_MAGIC_TEXT "#FEK"

enum fek_type { FEK_F64, FEK_F32, FEK_I64, FEK_I32 };

struct fek_col {
	char name[FEK_NAMELEN];
	enum fek_type type;
	char unit[FEK_NAMELEN];
};

struct fek_kv {
	char *key;
	char *val;
};

/* A section header.  kind, rows and cols come from the KIND, ROWS and COL
 * lines; every other line is kept, in order, in kv. */
struct fek_header {
	char kind[FEK_NAMELEN];
	long long rows;			/* -1: unknown, payload in blocks */
	int ncols;
	struct fek_col cols[FEK_MAXCOLS];
	int nkv, kvcap;
	struct fek_kv *kv;
};

void	fek_hdr_init(struct fek_header *h, const char *kind);
void	fek_hdr_free(struct fek_header *h);
/* Deep copy: dst must be uninitialised or freed. */
void	fek_hdr_copy(struct fek_header *dst, const struct fek_header *src);
/* Copy the key lines of src (not kind, rows, cols) onto the end of dst. */
void	fek_hdr_copy_keys(struct fek_header *dst, const struct fek_header *src);
int	fek_hdr_addcol(struct fek_header *h, const char *name,
	    enum fek_type type, const char *unit);
int	fek_hdr_col(const struct fek_header *h, const char *name);
/* Append a key line; keys repeat freely (AXIS, PROV). */
void	fek_hdr_add(struct fek_header *h, const char *key, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* Replace every line of key with one (or append it). */
void	fek_hdr_set(struct fek_header *h, const char *key, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	fek_hdr_del(struct fek_header *h, const char *key);
/* The value of the n-th line of key (from 0), or NULL. */
const char *fek_hdr_get(const struct fek_header *h, const char *key, int n);
int	fek_hdr_count(const struct fek_header *h, const char *key);
/* Add the PROV line "prog args..." of the running tool. */
void	fek_hdr_prov(struct fek_header *h, int argc, char **argv);

/* Typed key readers: -1 with a message naming stream, section and key. */
struct fek_reader;
int	fek_key_double(struct fek_reader *r, const struct fek_header *h,
	    const char *key, double *out);
int	fek_key_doubles(struct fek_reader *r, const struct fek_header *h,
	    const char *key, int n, double *out);

struct fek_reader {
	FILE *fp;
	char name[256];		/* for messages: "stdin" or the path */
	int owned;		/* fclose on close */
	long section;		/* number of the current section, from 1 */
	int text;		/* current section is the text twin */
	int in_payload;
	long long row;		/* rows read in the current section */
	long long rows;		/* declared rows, -1 for blocks */
	long long block_left;	/* rows left in the current block */
	int block_end;		/* the 0 block was read */
	int ncols;
	enum fek_type types[FEK_MAXCOLS];
	char *line;		/* text line buffer */
	size_t linecap;
	int have_line;		/* line holds a pushed-back line */
	int allow_plain;	/* accept headerless whitespace text */
	int plain;		/* reading headerless text */
	long lineno;		/* text line number, for messages */
	unsigned char *chunk;	/* binary rows read in one fread */
};

/* Open path ("-" or NULL for stdin).  -1 with code 66 on failure. */
int	fek_reader_open(struct fek_reader *r, const char *path);
void	fek_reader_close(struct fek_reader *r);
/* Read the next section's header into h (initialised here).  Returns 1,
 * 0 at a clean end of stream, -1 on error.  An unread rest of the previous
 * section is skipped (and still checked). */
int	fek_next_section(struct fek_reader *r, struct fek_header *h);
/* Read up to max rows of ncols doubles.  Returns the count, 0 at the end of
 * the section, -1 on error (short payload, NaN, bad number, bad count). */
long	fek_read_rows(struct fek_reader *r, double *buf, long max);
/* Read up to max rows as they lie in a binary section: little-endian,
 * the COL types, no padding (a text section's rows are encoded so); NaN
 * in a float column is still an error.  buf holds max rows.  Returns as
 * fek_read_rows. */
long	fek_read_packed(struct fek_reader *r, void *buf, long max);
/* Read the whole section payload; *out is malloc'd rows*ncols doubles. */
long long fek_read_all(struct fek_reader *r, const struct fek_header *h,
	    double **out);
/* Report "name: section N: " prefix helpers for tool messages. */
int	fek_rerr(struct fek_reader *r, int code, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

struct fek_writer {
	FILE *fp;
	const char *name;
	int text;
	int open;		/* inside a section */
	long long rows;		/* declared, -1 blocks */
	long long written;
	int ncols;
	enum fek_type types[FEK_MAXCOLS];
	unsigned char *block;	/* block buffer for ROWS ? */
	long block_rows, block_cap;
	size_t rowsize;
	long blank_every;	/* text: a blank line (gnuplot's row
				 * separator) every so many rows of the
				 * section, 0 none; binary: none; set after
				 * fek_begin_section, which clears it */
};

/* FEK_TEXT=1 in the environment turns text on too. */
void	fek_writer_init(struct fek_writer *w, FILE *fp, int text);
int	fek_begin_section(struct fek_writer *w, const struct fek_header *h);
int	fek_write_rows(struct fek_writer *w, const double *rows, long n);
/* n rows already in the binary layout of the section (as fek_read_packed
 * gives them); the text twin decodes them. */
int	fek_write_packed(struct fek_writer *w, const void *rows, long n);
int	fek_end_section(struct fek_writer *w);
void	fek_writer_free(struct fek_writer *w);

/* A number as the text twin writes it: the shorter of %.15g and %.17g
 * that reads back exactly, inf and -inf spelt out. */
void	fek_put_double(FILE *fp, double v);

const char *fek_type_name(enum fek_type t);
int	fek_type_parse(const char *s, enum fek_type *t);

#endif
