/*
 * getline-check - lib/core/input.c's fek_getline against the reader it
 * replaced, for tests/badinput-lines.sh.  The reference (ref_getline
 * below) is the first bounded reader, a character at a time under the
 * stream's lock: fek_getline must give the same return value, the same
 * line (its bytes and the NUL after them), the same errno after a read
 * error, the same end-of-file and error indicators, and leave the stream
 * at the same place (what is read after it is compared too).
 *
 *   getline-check N seed
 *
 * Hand-written cases with their expected returns: empty lines, a last line
 * without a newline, CR LF and lone CRs, lines of exactly max bytes and of
 * one more (a CR counts), NUL bytes in the middle, at the end and in a line
 * that is also too long, a 1 MiB line (FEK_LINE_MAX) and one byte more, a
 * read error (EIO) at the start, inside a line and after one, and a
 * directory (EISDIR).  Then N random inputs (bytes from "ab\n\r\0",
 * lines up to a few hundred bytes, max from 0 to 300) read through
 * streams whose source hands out 1 to 4096 bytes a read, with stdio
 * buffers of 1 (unbuffered) to 8192 bytes, caller buffers starting empty
 * or already grown, overwritten between calls as callers do (strtok), and
 * a read error at a random place in one case in four.  Prints "N cases,
 * M mismatches" and the first few; exit 0 when M is 0, 1 otherwise, 64
 * on bad arguments.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "core/fek.h"

/* ---- the reference: fek_getline as it was at 45071dc ---- */

static int
ref_room(char **buf, size_t *cap, size_t n)
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

static ssize_t
ref_getline(char **buf, size_t *cap, FILE *fp, size_t max)
{
	size_t n = 0;
	int c, nul = 0;

	if (ref_room(buf, cap, 0) < 0)
		return FEK_LINE_NOMEM;
	flockfile(fp);
	for (;;) {
		c = getc_unlocked(fp);
		if (c == EOF || c == '\n')
			break;
		if (c == '\0')
			nul = 1;
		if (n == max) {
			funlockfile(fp);
			return FEK_LINE_LONG;
		}
		if (n + 1 >= *cap && ref_room(buf, cap, n + 1) < 0) {
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

/* ---- a source of bytes: so many a read, and a read error at errat ---- */

struct src {
	const char *data;
	size_t len, pos;
	size_t piece;		/* at most this many bytes a read */
	size_t errat;		/* reads fail here (EIO)... */
	int nfail;		/* ...this many times, then go on */
};

static ssize_t
src_read(void *cookie, char *buf, size_t size)
{
	struct src *s = cookie;
	size_t n;

	if (s->pos == s->errat && s->nfail > 0) {
		s->nfail--;
		errno = EIO;
		return -1;
	}
	n = s->len - s->pos;
	if (n > size)
		n = size;
	if (n > s->piece)
		n = s->piece;
	if (s->pos < s->errat && s->errat - s->pos < n)
		n = s->errat - s->pos;
	memcpy(buf, s->data + s->pos, n);
	s->pos += n;
	return (ssize_t)n;
}

static FILE *
src_open(struct src *s, char *iobuf, size_t iosize)
{
	cookie_io_functions_t io = { src_read, NULL, NULL, NULL };
	FILE *fp;

	fp = fopencookie(s, "r", io);
	if (fp == NULL) {
		perror("fopencookie");
		exit(70);
	}
	if (iosize == 1)
		setvbuf(fp, NULL, _IONBF, 0);
	else if (iosize > 1)
		setvbuf(fp, iobuf, _IOFBF, iosize);
	return fp;
}

/* ---- one case: both readers over the same bytes ---- */

struct kase {
	const char *name;
	const char *data;
	size_t len;
	size_t max;
	size_t piece, iosize;	/* iosize 0: stdio's default */
	size_t errat;		/* (size_t)-1: no error */
	int nfail;
	size_t cap0;		/* the caller's buffer before the first call */
	int scribble;		/* overwrite the line between calls */
	const ssize_t *want;	/* expected returns, ending at EOF or a */
	int nwant;		/* second error; NULL: not checked */
};

static long ncase, nbad;

static void
bad(const struct kase *k, int call, const char *fmt, ...)
{
	va_list ap;

	if (nbad++ >= 10)
		return;
	printf("mismatch: %s (len %zu, max %zu, piece %zu, stdio buffer "
	    "%zu, error at %zd x%d, cap %zu), call %d: ", k->name, k->len,
	    k->max, k->piece, k->iosize, (ssize_t)k->errat, k->nfail,
	    k->cap0, call + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void
run(const struct kase *k)
{
	struct src sa = { k->data, k->len, 0, k->piece, k->errat, k->nfail };
	struct src sb = sa;
	char *ioa = NULL, *iob = NULL, *ba = NULL, *bb = NULL;
	size_t ca = 0, cb = 0;
	FILE *fa, *fb;
	ssize_t ra, rb;
	int call, ea, eb, ca_, cb_, nerr = 0;

	ncase++;
	if (k->iosize > 1) {
		ioa = malloc(k->iosize);
		iob = malloc(k->iosize);
	}
	if (k->cap0) {
		ba = malloc(k->cap0);
		bb = malloc(k->cap0);
		ca = cb = k->cap0;
		memset(ba, 'q', ca);
		memset(bb, 'q', cb);
	}
	fa = src_open(&sa, ioa, k->iosize);
	fb = src_open(&sb, iob, k->iosize);
	for (call = 0; call < 100000; call++) {
		errno = 0;
		ra = ref_getline(&ba, &ca, fa, k->max);
		ea = errno;
		errno = 0;
		rb = fek_getline(&bb, &cb, fb, k->max);
		eb = errno;
		if (k->want && call < k->nwant && rb != k->want[call])
			bad(k, call, "returned %zd, expected %zd", rb,
			    k->want[call]);
		if (ra != rb) {
			bad(k, call, "returned %zd, the reference %zd", rb, ra);
			goto out;
		}
		if (ra >= 0 && memcmp(ba, bb, (size_t)ra + 1) != 0) {
			bad(k, call, "a different line of %zd bytes", ra);
			goto out;
		}
		if (ra >= 0 && memchr(bb, '\0', (size_t)ra) != NULL) {
			bad(k, call, "a NUL inside the line returned");
			goto out;
		}
		if (ra == FEK_LINE_IOERR && ea != eb) {
			bad(k, call, "errno %d, the reference %d", eb, ea);
			goto out;
		}
		if (!!feof(fa) != !!feof(fb) || !!ferror(fa) != !!ferror(fb)) {
			bad(k, call, "eof %d error %d, the reference eof %d "
			    "error %d", !!feof(fb), !!ferror(fb), !!feof(fa),
			    !!ferror(fa));
			goto out;
		}
		if (ra == FEK_LINE_EOF || (ra == FEK_LINE_IOERR && ++nerr == 2))
			break;
		if (k->scribble) {
			memset(ba, call & 1 ? '\0' : 'z', ca);
			memset(bb, call & 1 ? '\0' : 'z', cb);
		}
	}
	if (k->want && call + 1 != k->nwant && call < 100000)
		bad(k, call, "%d calls, expected %d", call + 1, k->nwant);
	/* what is left to read: the same bytes */
	for (;;) {
		ca_ = getc(fa);
		cb_ = getc(fb);
		if (ca_ != cb_) {
			bad(k, call, "then reads %d, the reference %d", cb_,
			    ca_);
			break;
		}
		if (ca_ == EOF)
			break;
	}
out:
	fclose(fa);
	fclose(fb);
	free(ioa);
	free(iob);
	free(ba);
	free(bb);
}

/* ---- cases ---- */

#define NOERR	((size_t)-1)
#define E	FEK_LINE_EOF
#define LONG	FEK_LINE_LONG
#define NUL	FEK_LINE_NUL
#define IOERR	FEK_LINE_IOERR
#define W(...)	(const ssize_t[]){ __VA_ARGS__ }, \
	(int)(sizeof (const ssize_t[]){ __VA_ARGS__ } / sizeof (ssize_t))
#define S(s)	s, sizeof s - 1
/* k.want and k.nwant (the array lives as long as the enclosing block) */
#define SETW(k, ...)	((k).want = (const ssize_t[]){ __VA_ARGS__ }, \
	(k).nwant = (int)(sizeof (const ssize_t[]){ __VA_ARGS__ } / \
	sizeof (ssize_t)))

static void
hand(void)
{
	const struct {
		const char *name, *data;
		size_t len, max, errat;
		const ssize_t *want;
		int nwant;
	} h[] = {
		{ "empty input", S(""), 8, NOERR, W(E) },
		{ "empty lines", S("\n\n\n"), 8, NOERR, W(0, 0, 0, E) },
		{ "no final newline", S("abc"), 8, NOERR, W(3, E) },
		{ "two lines, no final newline", S("ab\ncd"), 8, NOERR,
		    W(2, 2, E) },
		{ "a line", S("abc\n"), 8, NOERR, W(3, E) },
		{ "CR LF", S("abc\r\nde\r\n"), 8, NOERR, W(3, 2, E) },
		{ "a CR at the end of the file", S("abc\r"), 8, NOERR,
		    W(3, E) },
		{ "a lone CR", S("\r"), 8, NOERR, W(0, E) },
		{ "CR LF alone", S("\r\n"), 8, NOERR, W(0, E) },
		{ "a CR inside", S("a\rb\n"), 8, NOERR, W(3, E) },
		{ "two CRs", S("ab\r\r\n"), 8, NOERR, W(3, E) },
		{ "exactly max", S("12345678\n"), 8, NOERR, W(8, E) },
		{ "exactly max, no newline", S("12345678"), 8, NOERR, W(8, E) },
		{ "one over max", S("123456789\nab\n"), 8, NOERR,
		    W(LONG, 0, 2, E) },
		{ "one over max at the end", S("123456789"), 8, NOERR,
		    W(LONG, E) },
		{ "max with CR LF", S("12345678\r\n"), 8, NOERR,
		    W(LONG, 0, E) },
		{ "max less one with CR LF", S("1234567\r\n"), 8, NOERR,
		    W(7, E) },
		{ "max 0", S("\na\n"), 0, NOERR, W(0, LONG, 0, E) },
		{ "NUL in the middle", S("a\0b\nc\n"), 8, NOERR,
		    W(NUL, 1, E) },
		{ "NUL alone", S("\0\n"), 8, NOERR, W(NUL, E) },
		{ "NUL at the end of a line", S("ab\0\n"), 8, NOERR,
		    W(NUL, E) },
		{ "NUL before CR LF", S("ab\0\r\n"), 8, NOERR, W(NUL, E) },
		{ "NUL at the end of the file", S("ab\0"), 8, NOERR,
		    W(NUL, E) },
		{ "NUL alone at the end", S("\0"), 8, NOERR, W(NUL, E) },
		{ "NUL and too long", S("a\0bcdefghij\n"), 8, NOERR,
		    W(LONG, 2, E) },
		{ "NUL at max", S("1234567\0\n"), 8, NOERR, W(NUL, E) },
		{ "NUL one over max", S("12345678\0\n"), 8, NOERR,
		    W(LONG, 0, E) },
		{ "error first", S("abc\n"), 8, 0, W(IOERR, 3, IOERR) },
		{ "error inside a line", S("abcdef\n"), 8, 3,
		    W(IOERR, 3, IOERR) },
		{ "error after a line", S("abc\ndef\n"), 8, 4,
		    W(3, IOERR, 3, IOERR) },
		{ "error at the end", S("abc\n"), 8, 4, W(3, IOERR, IOERR) },
		{ "error at the end, no newline", S("abc"), 8, 3,
		    W(IOERR, IOERR) },
	};
	static const size_t pieces[] = { 1, 2, 3, 4096 };
	static const size_t ios[] = { 0, 1, 2, 5, 4096 };
	struct kase k;
	size_t i, p, b;

	memset(&k, 0, sizeof k);
	for (i = 0; i < sizeof h / sizeof h[0]; i++)
		for (p = 0; p < sizeof pieces / sizeof pieces[0]; p++)
			for (b = 0; b < sizeof ios / sizeof ios[0]; b++) {
				k.name = h[i].name;
				k.data = h[i].data;
				k.len = h[i].len;
				k.max = h[i].max;
				k.piece = pieces[p];
				k.iosize = ios[b];
				k.errat = h[i].errat;
				k.nfail = h[i].errat == NOERR ? 0 : 1;
				/* "error at the end...": fails for good */
				if (strncmp(h[i].name, "error at the end", 16)
				    == 0)
					k.nfail = 1000;
				k.cap0 = (p + b) % 3 == 0 ? 0 : (p + b) % 3 == 1
				    ? 1 : 300;
				k.scribble = (int)(b & 1);
				k.want = h[i].want;
				k.nwant = h[i].nwant;
				run(&k);
			}
}

/* a 1 MiB line (FEK_LINE_MAX), and one byte more */
static void
mib(void)
{
	size_t n = FEK_LINE_MAX, i;
	char *d = malloc(n + 16);
	struct kase k;

	memset(&k, 0, sizeof k);
	k.data = d;
	k.max = FEK_LINE_MAX;
	k.piece = 4096;
	k.errat = NOERR;
	memset(d, 'x', n + 1);
	d[n] = '\n';
	d[n + 1] = 'y';
	d[n + 2] = '\n';
	k.name = "1 MiB line";
	k.len = n + 3;
	SETW(k, FEK_LINE_MAX, 1, E);
	run(&k);
	k.name = "1 MiB line, no newline";
	k.len = n;
	SETW(k, FEK_LINE_MAX, E);
	run(&k);
	k.name = "1 MiB and CR LF";
	d[n] = '\r';
	d[n + 1] = '\n';
	k.len = n + 2;
	SETW(k, LONG, 0, E);
	run(&k);
	k.name = "1 MiB and one byte";
	d[n] = 'x';
	d[n + 1] = '\n';
	k.len = n + 2;
	SETW(k, LONG, 0, E);
	run(&k);
	k.name = "1 MiB line, a NUL in the middle";
	d[n / 2] = '\0';
	d[n] = '\n';
	k.len = n + 1;
	SETW(k, NUL, E);
	run(&k);
	k.name = "1 MiB line, an error near its end";
	d[n / 2] = 'x';
	k.errat = n - 5;
	k.nfail = 1;
	SETW(k, IOERR, 5, IOERR);
	run(&k);
	k.name = "endless (2 MiB) of NULs";
	k.errat = NOERR;
	k.nfail = 0;
	k.len = 2 * n;
	free(d);
	d = calloc(2 * n, 1);
	k.data = d;
	k.want = NULL;
	run(&k);
	for (i = 0; i < 2; i++) {	/* and the returns, alone */
		FILE *fp = fmemopen(d, 2 * n, "r");
		char *b = NULL;
		size_t cap = 0;
		ssize_t r = fek_getline(&b, &cap, fp, FEK_LINE_MAX);

		if (r != LONG || cap > 4 * (size_t)FEK_LINE_MAX) {
			k.want = NULL;
			bad(&k, 0, "returned %zd with a buffer of %zu bytes",
			    r, cap);
		}
		fclose(fp);
		free(b);
	}
	free(d);
}

/* a directory: the read fails with EISDIR */
static void
directory(void)
{
	FILE *fa = fopen(".", "r"), *fb = fopen(".", "r");
	char *ba = NULL, *bb = NULL;
	size_t ca = 0, cb = 0;
	ssize_t ra, rb;
	int ea, eb;
	struct kase k = { .name = "a directory" };

	ncase++;
	if (fa == NULL || fb == NULL) {
		bad(&k, 0, "cannot open .: %s", strerror(errno));
		return;
	}
	errno = 0;
	ra = ref_getline(&ba, &ca, fa, 8);
	ea = errno;
	errno = 0;
	rb = fek_getline(&bb, &cb, fb, 8);
	eb = errno;
	if (ra != IOERR || rb != IOERR || ea != EISDIR || eb != EISDIR ||
	    fek_getline_code(rb) != FEK_EX_NOINPUT)
		bad(&k, 0, "returned %zd errno %d, the reference %zd errno "
		    "%d", rb, eb, ra, ea);
	fclose(fa);
	fclose(fb);
	free(ba);
	free(bb);
}

static unsigned long long rng;

static unsigned long
next(unsigned long n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned long)((rng >> 11) % n);
}

static void
random_cases(long n)
{
	static const size_t maxes[] = { 0, 1, 2, 3, 7, 8, 15, 16, 17, 100,
	    126, 127, 128, 129, 130, 255, 256, 257, 300 };
	static const size_t pieces[] = { 1, 2, 3, 7, 64, 4096 };
	static const size_t ios[] = { 0, 1, 2, 3, 16, 100, 8192 };
	static const size_t caps[] = { 0, 1, 2, 127, 128, 129, 4096 };
	char *d = malloc(4096);
	struct kase k;
	long i;
	size_t j, len, line;
	unsigned long r;

	memset(&k, 0, sizeof k);
	k.name = "random";
	k.data = d;
	for (i = 0; i < n; i++) {
		/* lines of random lengths: mostly short, some near the max */
		len = next(6) == 0 ? next(4) : 1 + next(2000);
		for (j = 0; j < len; j += line) {
			size_t m;

			line = next(4) == 0 ? next(400) : next(40);
			for (m = 0; m < line && j + m < len; m++) {
				r = next(100);
				d[j + m] = r < 2 ? '\0' : r < 5 ? '\r' :
				    (char)('a' + next(26));
			}
			if (j + m < len)
				d[j + m++] = '\n';
			line = m;
		}
		k.len = len;
		k.max = maxes[next(sizeof maxes / sizeof maxes[0])];
		k.piece = pieces[next(sizeof pieces / sizeof pieces[0])];
		k.iosize = ios[next(sizeof ios / sizeof ios[0])];
		k.cap0 = caps[next(sizeof caps / sizeof caps[0])];
		k.scribble = (int)next(2);
		if (next(4) == 0) {
			k.errat = len ? next(len + 1) : 0;
			k.nfail = next(3) == 0 ? 1000 : 1;
		} else {
			k.errat = NOERR;
			k.nfail = 0;
		}
		run(&k);
	}
	free(d);
}

int
main(int argc, char **argv)
{
	long n;

	if (argc != 3) {
		fprintf(stderr, "usage: getline-check N seed\n");
		return 64;
	}
	n = atol(argv[1]);
	rng = strtoull(argv[2], NULL, 10) * 2654435761ULL + 88172645463325252ULL;
	hand();
	mib();
	directory();
	random_cases(n);
	printf("%ld cases, %ld mismatches\n", ncase, nbad);
	return nbad ? 1 : 0;
}
