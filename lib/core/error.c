/*
 * error.c - error reporting and the exit codes of DESIGN.md.
 *
 * The library records a failure with fek_seterr() and returns -1; the tool
 * prints it with fek_die() as "prog: message" and exits with the recorded
 * code, after err(3) and sbase's eprintf.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "core/progress.h"

static const char *progname = "fek";
static char errmsg[1024];
static int errcode = FEK_EX_SOFTWARE;
static int quiet;

void
fek_setprogname(const char *argv0)
{
	const char *s;

	if (argv0 == NULL)
		return;
	s = strrchr(argv0, '/');
	progname = s ? s + 1 : argv0;
}

const char *
fek_getprogname(void)
{
	return progname;
}

void
fek_set_quiet(int q)
{
	quiet = q;
}

int
fek_seterr(int code, const char *fmt, ...)
{
	va_list ap;
	char *nl;

	va_start(ap, fmt);
	vsnprintf(errmsg, sizeof errmsg, fmt, ap);
	va_end(ap);
	/* one line, always */
	while ((nl = strchr(errmsg, '\n')) != NULL)
		*nl = ' ';
	errcode = code;
	return -1;
}

int
fek_errcode(void)
{
	return errcode;
}

const char *
fek_errmsg(void)
{
	return errmsg[0] ? errmsg : "unknown error";
}

void
fek_die(void)
{
	fflush(stdout);
	fek_progress_break();
	fprintf(stderr, "%s: %s\n", progname, fek_errmsg());
	exit(errcode);
}

void
fek_errx(int code, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fek_progress_break();
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(code);
}

void
fek_warnx(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	fek_progress_break();
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void
fek_version_exit(void)
{
	printf("%s (fek) %s\n", progname, FEK_VERSION);
	fek_fshut(stdout, "stdout");
	exit(0);
}

/* Flush, check and close an output stream before a successful exit (sbase
 * fshut): a full disk or closed pipe must not pass as success.  Nothing is
 * written to fp afterwards. */
void
fek_fshut(FILE *fp, const char *name)
{
	int bad;

	bad = fflush(fp) != 0 || ferror(fp);
	/* closed now, so the reader downstream sees the end of the stream at
	 * once, not after the exit handlers (tearing down a CUDA context
	 * takes tens of milliseconds) */
	bad = fclose(fp) != 0 || bad;
	if (bad)
		fek_errx(FEK_EX_IOERR, "%s: write error: %s", name,
		    strerror(errno ? errno : EIO));
}

void *
fek_alloc(size_t nmemb, size_t size)
{
	void *p;

	if (nmemb != 0 && size > (size_t)-1 / nmemb)
		fek_errx(FEK_EX_SOFTWARE, "allocation of %zu x %zu bytes "
		    "overflows", nmemb, size);
	p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (p == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory (%zu x %zu bytes)",
		    nmemb, size);
	return p;
}

double *
fek_scratch(double **buf, long long *cap, long long n)
{
	if (n > *cap) {
		free(*buf);
		*cap = n;
		*buf = fek_alloc((size_t)n, sizeof **buf);
	}
	return *buf;
}
