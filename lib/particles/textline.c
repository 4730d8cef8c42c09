/*
 * textline.c - the plain text under lib/particles' file readers (config.c,
 * trajin.c; declared in config_int.h): a file read a line at a time with
 * its line numbers for messages, numbers that must fill their field, and
 * lines split at blanks.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/fek.h"
#include "particles/config_int.h"

void *
cfg_grow(void *p, size_t n, size_t size)
{
	if (n != 0 && size > (size_t)-1 / n)
		fek_errx(FEK_EX_SOFTWARE, "allocation of %zu x %zu bytes "
		    "overflows", n, size);
	p = realloc(p, n ? n * size : 1);
	if (p == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory (%zu x %zu bytes)", n,
		    size);
	return p;
}

/* ---- numbers ------------------------------------------------------------ */

/* The whole of s as a finite number. */
int
cfg_parse_double(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	return end != s && *end == '\0' && errno != ERANGE && isfinite(*out) ?
	    0 : -1;
}

/* The whole of s as a decimal integer. */
int
cfg_parse_ll(const char *s, long long *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 10);
	return end != s && *end == '\0' && errno != ERANGE ? 0 : -1;
}

/* v as an integer in [lo, hi]. */
int
cfg_integral(double v, double lo, double hi)
{
	return v >= lo && v <= hi && v == floor(v);
}

/* Up to max finite numbers separated by blanks from s into b: their
 * count (max + 1 when there are more), or -1 when a field is not one. */
int
cfg_scan_numbers(const char *s, double *b, int max)
{
	const char *p;
	char *end;
	int nb = 0;

	for (p = s; nb <= max; p = end) {
		double v;

		p += strspn(p, " \t");
		if (*p == '\0')
			break;
		errno = 0;
		v = strtod(p, &end);
		if (end == p || (*end != '\0' && *end != ' ' && *end != '\t') ||
		    errno == ERANGE || !isfinite(v))
			return -1;
		if (nb < max)
			b[nb] = v;
		nb++;
	}
	return nb;
}

/* ---- text lines --------------------------------------------------------- */

int
cfg_lines_open(struct cfg_lines *l, const char *path)
{
	memset(l, 0, sizeof *l);
	if (strcmp(path, "-") == 0) {
		l->fp = stdin;
		l->name = "stdin";
		return fek_check_input(stdin, "stdin");
	}
	l->fp = fek_open_input(path, "r");
	if (l->fp == NULL)
		return -1;
	l->owned = 1;
	l->name = path;
	return 0;
}

void
cfg_lines_close(struct cfg_lines *l)
{
	if (l->owned && l->fp != NULL)
		fclose(l->fp);
	free(l->buf);
	l->fp = NULL;
	l->buf = NULL;
}

/* The next line into l->buf without its newline (and carriage return):
 * 1, 0 at the end of the file, -1 on a read error. */
int
cfg_lines_next(struct cfg_lines *l)
{
	ssize_t n;

	if (l->pushed) {
		l->pushed = 0;
		return 1;
	}
	errno = 0;
	n = fek_getline(&l->buf, &l->cap, l->fp, FEK_LINE_MAX);
	if (n == FEK_LINE_EOF)
		return 0;
	if (n < 0)
		return fek_getline_err(n, FEK_LINE_MAX, l->name,
		    l->lineno + 1);
	l->lineno++;
	l->len = strlen(l->buf);
	return 1;
}

/* The bytes after what has been read, where the file is a regular one:
 * else -1 (a pipe, a terminal: its counts are checked as lines come). */
long long
cfg_lines_left(const struct cfg_lines *l)
{
	struct stat st;
	off_t at;

	if (fstat(fileno(l->fp), &st) != 0 || !S_ISREG(st.st_mode) ||
	    (at = ftello(l->fp)) < 0)
		return -1;
	return at < st.st_size ? (long long)(st.st_size - at) : 0;
}

/* A count of lines of at least minlen bytes each (the newline
 * included) that the rest of a regular file cannot hold: -1 with
 * fek_seterr(65, "name: line N: what: C lines ... but B bytes are
 * left"); else 0.  Pipes pass (their lines are counted as they come). */
int
cfg_lines_fit(const struct cfg_lines *l, const char *what, long long count,
    int minlen)
{
	long long left = cfg_lines_left(l);

	/* (+ 1: the last line may end without its newline) */
	if (left < 0 || count <= (left + 1) / minlen)
		return 0;
	return cfg_line_err(l, "%s: %lld, but the %lld bytes left in the "
	    "file hold at most %lld lines of %d bytes or more", what, count,
	    left, (left + 1) / minlen, minlen);
}

/* "name: line N: ..." with code 65. */
int
cfg_line_err(const struct cfg_lines *l, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return fek_seterr(FEK_EX_DATA, "%s: line %ld: %s", l->name, l->lineno,
	    msg);
}

/* Only blanks. */
int
cfg_blank(const char *s)
{
	return s[strspn(s, " \t\r\f\v")] == '\0';
}

/* Split s in place at blanks (a '#' ends it): up to max fields into
 * tok; returns how many there are in all. */
int
cfg_split(char *s, char **tok, int max)
{
	int n = 0;

	s[strcspn(s, "#")] = '\0';
	for (;;) {
		s += strspn(s, " \t\r\f\v");
		if (*s == '\0')
			return n;
		if (n < max)
			tok[n] = s;
		n++;
		s += strcspn(s, " \t\r\f\v");
		if (*s != '\0')
			*s++ = '\0';
	}
}
