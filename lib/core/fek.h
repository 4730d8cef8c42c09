/*
 * fek.h - the public interface of libfek: errors and exit codes, option
 * parsing, units, random numbers, expressions, device selection.
 *
 * The library never prints and never exits.  A function that fails returns
 * -1 (or NULL) after recording a one-line message and an exit code with
 * fek_seterr(); the tool reports it with fek_die().  See DESIGN.md and
 * fek(7) for the exit codes, which are the same in every tool.
 */
#ifndef FEK_H
#define FEK_H

#include <sys/types.h>

#include <stdarg.h>
#include <stdio.h>

#include <gsl/gsl_rng.h>

#define FEK_VERSION "0.1.0"

/* Exit status, after sysexits(3); listed in every man page. */
enum fek_exit {
	FEK_EX_OK = 0,
	FEK_EX_NUMERIC = 1,	/* no convergence, no overlap, singular */
	FEK_EX_USAGE = 64,	/* bad options or arguments */
	FEK_EX_DATA = 65,	/* malformed input data */
	FEK_EX_NOINPUT = 66,	/* cannot open input */
	FEK_EX_UNAVAILABLE = 69,/* GPU required but not usable */
	FEK_EX_SOFTWARE = 70,	/* internal or CUDA error */
	FEK_EX_IOERR = 74	/* write error */
};

/* core/error.c */
void	fek_setprogname(const char *argv0);
const char *fek_getprogname(void);
int	fek_seterr(int code, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	fek_errcode(void);
const char *fek_errmsg(void);
void	fek_die(void) __attribute__((noreturn));
void	fek_errx(int code, const char *fmt, ...)
	    __attribute__((noreturn, format(printf, 2, 3)));
void	fek_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void	fek_set_quiet(int quiet);
/* Seconds on the monotonic clock (differences only). */
double	fek_seconds(void);
/* FEK_TRACE=1: the moment of WHAT on stderr (lib/core/clock.c). */
void	fek_trace(const char *what);
void	fek_version_exit(void) __attribute__((noreturn));
/* getopt_long's entries of the long options every tool has: --help, as
 * -h, which prints the usage (the man page's SYNOPSIS) on stdout and exits
 * 0, and --version (FEK_OPT_VERSION), for fek_version_exit. */
#define FEK_OPT_VERSION 0x7f00
#define FEK_LONGOPTS_COMMON { "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, FEK_OPT_VERSION }
void	fek_fshut(FILE *fp, const char *name);
void	*fek_alloc(size_t nmemb, size_t size);
/* *buf with room for n doubles (*cap of them), reallocated by fek_alloc
 * when it has less; what it held is not kept.  A writer's row buffer. */
double	*fek_scratch(double **buf, long long *cap, long long n);

/* core/input.c: input files and bounded lines.  fek_open_input is
 * fopen(3) that also refuses a directory (66), with the message recorded;
 * fek_check_input the same test on an open stream (stdin).  fek_getline
 * reads one line of at most max bytes into *buf (grown as getline(3)
 * does) without its newline and a final carriage return: its length, or
 * one of FEK_LINE_* (the rest of an overlong line is not read: the caller
 * stops); fek_getline_why says what went wrong and fek_getline_code the
 * exit status it calls for; fek_getline_err records both. */
#define FEK_LINE_MAX	(1 << 20)	/* any line but a header line */
#define FEK_HEADER_MAX	65535		/* a stream header line, fek(5) */
#define FEK_LINE_EOF	(-1)
#define FEK_LINE_LONG	(-2)
#define FEK_LINE_NUL	(-3)
#define FEK_LINE_NOMEM	(-4)
#define FEK_LINE_IOERR	(-5)
FILE	*fek_open_input(const char *path, const char *mode);
int	fek_check_input(FILE *fp, const char *name);
ssize_t	fek_getline(char **buf, size_t *cap, FILE *fp, size_t max);
const char *fek_getline_why(ssize_t r, size_t max);
int	fek_getline_code(ssize_t r);
/* "name: line N: why" recorded with its code: -1. */
int	fek_getline_err(ssize_t r, size_t max, const char *name, long line);

/* core/outbuf.c: whole output held until the input has been read. */
FILE	*fek_outbuf_open(void);
void	fek_outbuf_commit(FILE *fp);

/* core/options.c: number parsing with range checks.  Each returns 0 on success,
 * or prints "prog: WHAT: message" and returns 1, so that a tool can count
 * option errors and report all of them before it exits with 64. */
int	fek_opt_double(const char *arg, double lo, double hi,
	    const char *what, double *out);
int	fek_opt_long(const char *arg, long lo, long hi, const char *what,
	    long *out);
/* "lo:hi[:p]" -> lo < hi, periodic flag */
int	fek_opt_range(const char *arg, const char *what, double *lo,
	    double *hi, int *periodic);
/* "a:b" into v[0], v[1], both in [lo, hi] and, with strict, a < b. */
int	fek_opt_pair(const char *arg, double lo, double hi, int strict,
	    const char *what, double *v);
/* --precision double|mixed: *mixed 0 or 1. */
int	fek_opt_precision(const char *arg, int *mixed);
/* "first[:last]", each >= 1; last = first when one number is given */
int	fek_opt_span(const char *arg, const char *what, long *first,
	    long *last);
char	*fek_cmdline(int argc, char **argv);
/* core/options.c: the CPUs this process may run on (sched_getaffinity(2);
 * else those online), and the threads a tool's CPU path runs: FEK_THREADS
 * (1 to 1024) where set, else those CPUs.  Before main, every tool also
 * makes OpenMP's threads sleep rather than spin while they wait and
 * gives OpenMP FEK_THREADS (fek(7), ENVIRONMENT). */
int	fek_cpus(void);
int	fek_threads(void);

/* core/units.c: Boltzmann constant and energy units (CODATA 2018). */
enum fek_unit { FEK_KCAL, FEK_KJ, FEK_KT };
/* "kcal", "kJ", "kT" or the header names "kcal/mol", "kJ/mol". */
int	fek_unit_parse(const char *s, enum fek_unit *u);
const char *fek_unit_name(enum fek_unit u);	/* "kcal/mol" ... */
double	fek_kb(enum fek_unit u);		/* per K; 0 for kT */
/* Size of one unit u, in kcal/mol, at temperature T (K). */
double	fek_unit_in_kcal(enum fek_unit u, double T);
#define FEK_KB_KCAL 0.0019872042586408316	/* kcal/mol/K */
#define FEK_KB_KJ 0.00831446261815324		/* kJ/mol/K */
/* core/options.c: -E/-u unit options, reported like the other option parsers */
int	fek_opt_unit(const char *arg, int allow_kT, const char *what,
	    enum fek_unit *out);

/* core/rng.c: per-stream seeding of GSL generators. */
gsl_rng	*fek_rng_new(unsigned long long seed, unsigned long long stream);
/* SplitMix64 (Steele, Lea, Flood 2014): the mixer of the seeds above and
 * of the GPU's Philox keys. */
unsigned long long fek_splitmix64(unsigned long long x);
void	fek_rng_free(gsl_rng *r);
/* Stream `stream` of many small ones (GSL taus2, 24 bytes of state):
 * streams 0 .. 2^32-1 of one seed start from distinct seeds. */
gsl_rng	*fek_rng_stream(unsigned long long seed, unsigned long long stream);

/* core/expr.c: user formulas through GNU libmatheval. */
typedef struct fek_expr fek_expr;
/* Parse TEXT as a function of ndim coordinates named x, y, z (ndim <= 3)
 * or x1..xn.  Returns NULL with fek_seterr(65 or 64) on error. */
fek_expr *fek_expr_parse(const char *text, int ndim);
double	fek_expr_eval(fek_expr *e, const double *x);
/* Gradient of the expression; derivatives are built on first use. */
int	fek_expr_grad(fek_expr *e, const double *x, double *grad);
int	fek_expr_ndim(const fek_expr *e);
void	fek_expr_free(fek_expr *e);

/* core/device.c: -d cpu|gpu|auto and FEK_DEVICE. */
enum fek_device { FEK_DEV_AUTO, FEK_DEV_CPU, FEK_DEV_GPU };
int	fek_device_parse(const char *s, enum fek_device *d);
/* The -d option: 0, or a warning "prog: -d: ..." and 1 (counted like
 * fek_opt_*). */
int	fek_opt_device(const char *arg, enum fek_device *d);
/* Resolve a request (after FEK_DEVICE) to CPU or GPU.  gpu_possible says
 * whether the tool has a GPU path for this job.  -1 with code 69 when the
 * GPU was required but is not usable. */
/* -d as given, with FEK_DEVICE applied to auto; nothing probed. */
int	fek_device_request(enum fek_device req, enum fek_device *out);
int	fek_device_resolve(enum fek_device req, int gpu_possible,
	    enum fek_device *out);
const char *fek_device_name(enum fek_device d);

/* core/options.c: the options every tool spells the same way (fek(7)):
 * -d device, -q no warnings, -s seed, -T text twin, -v diagnostics, -h
 * and --help, --version.  A tool sets its defaults, lists in its optstring
 * those it takes, and hands every option its own switch does not know to
 * fek_opt_common. */
struct fek_common {
	enum fek_device dev;	/* -d (FEK_DEV_AUTO unless given) */
	long seed;		/* -s, 0 .. LONG_MAX */
	int have_seed;		/* -s was given */
	int quiet;		/* -q, which also calls fek_set_quiet(1) */
	int text;		/* -T */
	int verbose;		/* -v */
};
/* getopt's c and its argument into o: 0, or 1 after a one-line warning
 * for a bad value (counted like fek_opt_long's).  -h and --help call
 * usage(0); --version exits 0; an option that is not a common one calls
 * usage(FEK_EX_USAGE).  usage must not return. */
int	fek_opt_common(int c, const char *arg, struct fek_common *o,
	    void (*usage)(int));

#endif
