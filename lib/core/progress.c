/*
 * progress.c - the progress line of a long run on standard error: on a
 * terminal rewritten in place, elsewhere a complete line every
 * FEK_PROGRESS seconds, in a form that logs well (progress.h says how).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fek.h"
#include "core/progress.h"

enum { OFF, TTY, LINES };

#define TTY_EVERY 0.25		/* seconds between terminal updates */
#define DEFAULT_EVERY 10.0	/* FEK_PROGRESS's default */

/* A "\r" line is on the terminal, unfinished. */
static int showing;

double
fek_progress_interval(void)
{
	static double every = -1;
	const char *e;
	char *end;
	double v;

	if (every >= 0)
		return every;
	every = DEFAULT_EVERY;
	if ((e = getenv("FEK_PROGRESS")) != NULL && *e != '\0') {
		errno = 0;
		v = strtod(e, &end);
		if (end != e && *end == '\0' && errno == 0 && isfinite(v) &&
		    v >= 0 && v <= 1e6)
			every = v;
	}
	return every;
}

void
fek_progress_start(struct fek_progress *p, const char *what, double total,
    int flags)
{
	memset(p, 0, sizeof *p);
	p->what = what;
	p->total = total;
	p->t0 = fek_seconds();
	p->every = fek_progress_interval();
	if (flags & FEK_PROGRESS_QUIET)
		p->mode = OFF;
	else if (!(flags & FEK_PROGRESS_LINES) && isatty(STDERR_FILENO)) {
		p->mode = TTY;
		p->every = TTY_EVERY;
	} else
		p->mode = p->every > 0 ? LINES : OFF;
	p->next = p->t0 + p->every;
}

int
fek_progress_on(const struct fek_progress *p)
{
	return p->mode != OFF;
}

/* s seconds into buf: "12.3 s", "14.2 min", "3.1 h" (whole seconds
 * where round). */
static void
duration(char *buf, size_t n, double s, int round)
{
	if (s < 99.5)
		snprintf(buf, n, "%.*f s", round ? 0 : 1, round ? ceil(s) : s);
	else if (s < 5970)
		snprintf(buf, n, "%.1f min", s / 60);
	else
		snprintf(buf, n, "%.1f h", s / 3600);
}

/* The line of p at done, now, into buf; the estimate of the time left
 * where left. */
static void
format(const struct fek_progress *p, double done, double now, int left,
    const char *note, va_list ap, char *buf, size_t n)
{
	double el = now - p->t0;
	char t[32], r[32];
	size_t k;

	k = (size_t)snprintf(buf, n, "%s: ", fek_getprogname());
	if (p->total > 0) {
		double f = done / p->total;
		int pc = (int)floor(100 * (f < 0 ? 0 : f > 1 ? 1 : f));

		if (p->what != NULL)
			k += (size_t)snprintf(buf + k, n - k, "%d %% (%.0f of "
			    "%.0f %s)", pc, done, p->total, p->what);
		else
			k += (size_t)snprintf(buf + k, n - k, "%d %%", pc);
	} else
		k += (size_t)snprintf(buf + k, n - k, "%.0f %s", done,
		    p->what != NULL ? p->what : "done");
	if (k >= n)
		return;
	duration(t, sizeof t, el, 0);
	k += (size_t)snprintf(buf + k, n - k, ", %s", t);
	if (left && p->total > 0 && done > 0 && done < p->total && k < n) {
		duration(r, sizeof r, el * (p->total - done) / done, 1);
		k += (size_t)snprintf(buf + k, n - k, ", ~%s left", r);
	}
	if (note != NULL && k + 2 < n) {
		buf[k++] = ',';
		buf[k++] = ' ';
		vsnprintf(buf + k, n - k, note, ap);
	}
}

/* Write line: on a terminal over the last one (padded to clear it). */
static void
put(struct fek_progress *p, const char *line, int last)
{
	if (p->mode == TTY) {
		int len = (int)strlen(line);

		fprintf(stderr, "\r%s%*s%s", line, p->width > len ? p->width -
		    len : 0, "", last ? "\n" : "");
		p->width = len;
		showing = !last;
	} else
		fprintf(stderr, "%s\n", line);
	fflush(stderr);
}

void
fek_progress_tell(struct fek_progress *p, double done, const char *note,
    ...)
{
	char line[512];
	va_list ap;
	double now;

	if (p->mode == OFF || (now = fek_seconds()) < p->next)
		return;
	va_start(ap, note);
	format(p, done, now, 1, note, ap, line, sizeof line);
	va_end(ap);
	put(p, line, 0);
	p->next = now + p->every;
}

void
fek_progress_end(struct fek_progress *p, double done, const char *note,
    ...)
{
	char line[512];
	va_list ap;

	if (p->mode == TTY && p->width > 0) {
		va_start(ap, note);
		format(p, done, fek_seconds(), 0, note, ap, line, sizeof line);
		va_end(ap);
		put(p, line, 1);
	}
	p->mode = OFF;
}

void
fek_progress_break(void)
{
	if (showing) {
		fputc('\n', stderr);
		showing = 0;
	}
}
