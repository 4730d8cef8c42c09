/*
 * tests/check.h - the verdicts of the C check programs of the tests
 * (tests/mm-bonded-check.c, mm-constr-check.c, mm-pme-check.c,
 * mm-gpu-check.c), built into each from tests/check.c.
 *
 * Each check prints one line on stdout, "ok NAME" or "FAIL NAME: why",
 * which tests/mm-bonded.sh, mm-constr.sh, mm-pme.sh and gpu-mm.sh turn
 * into results (lib-mm.sh check_lines); lines starting "#" are comments.
 * check_nfail counts the FAIL lines; check_status turns it into the exit
 * status.
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

/* Set by -v: check_end first prints "# NAME: worst ERR (limit TOL)". */
extern int check_verbose;
/* The number of FAIL lines printed so far. */
extern int check_nfail;

/* One named check over many values: the worst error seen, and the got
 * and want values at it. */
struct check {
	char name[64];
	double tol, worst, got, want;
};

/* check_begin: start c as NAME (at most 63 bytes kept), which passes
 * while its worst error is at most tol. */
void check_begin(struct check *c, const char *name, double tol);
/* check_value: got against want, the error |got - want| / scale (scale
 * <= 0: the absolute error); a NaN or infinite got is the worst. */
void check_value(struct check *c, double got, double want, double scale);
/* check_error: an error already measured (reported as got err, want 0). */
void check_error(struct check *c, double err);
/* check_end: print c's verdict, "ok NAME" if its worst error is at most
 * its tol, else "FAIL NAME: got G want W (error E, limit L)". */
void check_end(struct check *c);

/* check_le: pass iff got <= limit ("FAIL NAME: got G want <= L"). */
void check_le(const char *name, double got, double limit);
/* check_near: pass iff |got - want| <= tol ("FAIL NAME: got G want W
 * within T"). */
void check_near(const char *name, double got, double want, double tol);
/* check_true: a check decided by the caller: "ok NAME" if good, else
 * "FAIL NAME: why". */
void check_true(const char *name, int good, const char *why);

/* check_status: what main returns: FEK_EX_IOERR if stdout could not be
 * written, 1 if any check failed, else 0. */
int check_status(void);

#endif
