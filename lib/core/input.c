/*
 * input.c - input files opened and lines read with a bound.
 *
 * fek_open_input opens a file to read and refuses a directory (exit 66,
 * the same in every tool: fopen(3) opens a directory, and the first read
 * then fails with EISDIR, which readers used to report as bad data).
 *
 * fek_getline reads one line with a bound: every text reader in fek
 * (streams' text twin and headers, metadata, .gro, .top/.itp/.mdp, LAMMPS,
 * PQR, OpenDX, window lists) reads through fek_getline, so that no input
 * can make a tool grow without limit (fek(5): a header line is at most
 * 65535 bytes; any other line at most FEK_LINE_MAX).
 *
 * getline(3) grows its buffer to whatever the input holds, and an endless
 * line (cat /dev/zero) ends only when memory does; its ENOMEM then reads
 * like the end of the file.  Here a line longer than the bound, a NUL byte
 * inside a line (text has none: a NUL defeats every strlen after it) and a
 * read error are each reported as what they are.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"

FILE *
fek_open_input(const char *path, const char *mode)
{
	FILE *fp;

	fp = fopen(path, mode);
	if (fp == NULL) {
		fek_seterr(FEK_EX_NOINPUT, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fek_check_input(fp, path) < 0) {
		fclose(fp);
		return NULL;
	}
	return fp;
}

int
fek_check_input(FILE *fp, const char *name)
{
	struct stat st;

	if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode))
		return fek_seterr(FEK_EX_NOINPUT, "%s: %s", name,
		    strerror(EISDIR));
	return 0;
}

/* Room for n + 1 bytes in *buf (the line and its NUL). */
static int
room(char **buf, size_t *cap, size_t n)
{
	size_t want;
	char *p;

	if (n + 1 <= *cap)
		return 0;
	want = *cap ? *cap : 128;
	while (want < n + 1)
		want *= 2;
	p = realloc(*buf, want);
	if (p == NULL)
		return -1;
	*buf = p;
	*cap = want;
	return 0;
}

/*
 * The bytes stdio has read ahead for fp and not yet handed out, at *p.
 * glibc's getc_unlocked(3) is a macro that takes a byte at fp->_IO_read_ptr
 * while that is below fp->_IO_read_end, and calls __uflow to refill
 * otherwise (__getc_unlocked_body, <bits/types/struct_FILE.h>): fek_getline
 * takes whole runs of those bytes at once, finding the newline with memchr
 * as getline(3) does, where getc_unlocked would take them one by one, and
 * calls getc_unlocked itself for the byte that refills.  The bytes taken,
 * and so what is left in the stream, are the same.  Elsewhere none are
 * seen here, and every byte goes through getc_unlocked.
 */
static size_t
readahead(FILE *fp, const char **p)
{
#ifdef __getc_unlocked_body
	if (fp->_IO_read_ptr < fp->_IO_read_end) {
		*p = fp->_IO_read_ptr;
		return (size_t)(fp->_IO_read_end - fp->_IO_read_ptr);
	}
#else
	(void)fp;
#endif
	*p = NULL;
	return 0;
}

static void
take(FILE *fp, size_t k)
{
#ifdef __getc_unlocked_body
	fp->_IO_read_ptr += k;
#else
	(void)fp;
	(void)k;
#endif
}

ssize_t
fek_getline(char **buf, size_t *cap, FILE *fp, size_t max)
{
	const char *p, *nl;
	size_t n = 0, k;
	int c, nul = 0;

	if (room(buf, cap, 0) < 0)
		return FEK_LINE_NOMEM;
	flockfile(fp);
	for (;;) {
		/* the run of buffered bytes: up to the newline, at most up
		 * to the first byte past the bound */
		if ((k = readahead(fp, &p)) > 0) {
			if (k - 1 > max - n)
				k = max - n + 1;
			nl = memchr(p, '\n', k);
			if (nl != NULL)
				k = (size_t)(nl - p);
			else if (k > max - n) {
				take(fp, k);
				funlockfile(fp);
				return FEK_LINE_LONG;
			}
			if (room(buf, cap, n + k) < 0) {
				funlockfile(fp);
				return FEK_LINE_NOMEM;
			}
			if (!nul && memchr(p, '\0', k) != NULL)
				nul = 1;
			memcpy(*buf + n, p, k);
			n += k;
			if (nl != NULL) {
				take(fp, k + 1);
				c = '\n';
				break;
			}
			take(fp, k);
			continue;
		}
		/* the buffer empty: one byte, which refills it */
		c = getc_unlocked(fp);
		if (c == EOF || c == '\n')
			break;
		if (c == '\0')
			nul = 1;
		if (n == max) {
			funlockfile(fp);
			return FEK_LINE_LONG;
		}
		if (n + 1 >= *cap && room(buf, cap, n + 1) < 0) {
			funlockfile(fp);
			return FEK_LINE_NOMEM;
		}
		(*buf)[n++] = (char)c;
	}
	funlockfile(fp);
	(*buf)[n] = '\0';
	if (c == EOF && ferror(fp))
		return FEK_LINE_IOERR;
	if (c == EOF && n == 0)
		return FEK_LINE_EOF;
	if (nul)
		return FEK_LINE_NUL;
	if (n > 0 && (*buf)[n - 1] == '\r')
		(*buf)[--n] = '\0';
	return (ssize_t)n;
}

const char *
fek_getline_why(ssize_t r, size_t max)
{
	static char msg[64];

	switch (r) {
	case FEK_LINE_LONG:
		snprintf(msg, sizeof msg, "line longer than %zu bytes", max);
		return msg;
	case FEK_LINE_NUL:
		return "a NUL byte in a text line";
	case FEK_LINE_NOMEM:
		return "out of memory reading a line";
	case FEK_LINE_IOERR:
		return strerror(errno ? errno : EIO);
	default:
		return "end of file";
	}
}

int
fek_getline_code(ssize_t r)
{
	switch (r) {
	case FEK_LINE_NOMEM:
		return FEK_EX_SOFTWARE;
	case FEK_LINE_IOERR:
		return errno == EISDIR ? FEK_EX_NOINPUT : FEK_EX_DATA;
	default:
		return FEK_EX_DATA;
	}
}

int
fek_getline_err(ssize_t r, size_t max, const char *name, long line)
{
	return fek_seterr(fek_getline_code(r), "%s: line %ld: %s", name, line,
	    fek_getline_why(r, max));
}
