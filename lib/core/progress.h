/*
 * progress.h - a long run's progress on standard error, one reporter for
 * every tool (lib/core/progress.c).
 *
 * On a terminal: one line rewritten in place ("\r"), at most four times a
 * second, ended by a newline when the run ends.  Elsewhere (make's pipe,
 * a log file, a batch job's output): a complete line
 *
 *	TOOL: 35 % (7000 of 20000 steps), 12.3 s, ~23 s left
 *
 * every FEK_PROGRESS seconds (default 10; 0: none; a value that is not a
 * number of seconds from 0 to 1e6 is ignored), never more often, and none
 * for a run that ends before the first interval.  A tool's -q silences
 * both; with FEK_PROGRESS_LINES (a tool's -v, whose own complete lines a
 * "\r" line would break) the complete lines are used on a terminal too.
 *
 * The reporter is told the count done as often as the caller likes; it
 * reads the clock (fek_seconds) and writes only when a line is due, so a
 * call costs a clock read.  A warning or error printed by lib/core/error.c
 * while a "\r" line is showing starts on a line of its own.
 */
#ifndef FEK_PROGRESS_H
#define FEK_PROGRESS_H

enum {
	FEK_PROGRESS_QUIET = 1,		/* nothing (-q) */
	FEK_PROGRESS_LINES = 2		/* complete lines even on a terminal */
};

struct fek_progress {
	const char *what;	/* the unit counted ("steps"), or NULL:
				   done is shown as a percentage only */
	double total;		/* the count at the end; <= 0: not known */
	double t0;		/* the start (fek_seconds) */
	double next;		/* when the next line is due */
	double every;		/* seconds between lines */
	int mode;		/* off, terminal, lines (progress.c) */
	int width;		/* the terminal line's length */
};

/* Start p: counting what (may be NULL when total > 0) up to total (<= 0:
 * not known), flags FEK_PROGRESS_QUIET and FEK_PROGRESS_LINES. */
void	fek_progress_start(struct fek_progress *p, const char *what,
	    double total, int flags);
/* Whether p writes anything at all. */
int	fek_progress_on(const struct fek_progress *p);
/* done of p's total so far; a line when one is due, with note (printf's
 * format, may be NULL) after the times, formatted only then. */
void	fek_progress_tell(struct fek_progress *p, double done,
	    const char *note, ...) __attribute__((format(printf, 3, 4)));
/* The end, done counted: on a terminal the line, if one was shown, with
 * done and the time taken, and a newline; elsewhere nothing.  p is off
 * after. */
void	fek_progress_end(struct fek_progress *p, double done,
	    const char *note, ...) __attribute__((format(printf, 3, 4)));
/* The seconds between complete lines: FEK_PROGRESS, else 10; 0 none. */
double	fek_progress_interval(void);
/* End a "\r" line that is showing with a newline (error.c, before a
 * message). */
void	fek_progress_break(void);

#endif
