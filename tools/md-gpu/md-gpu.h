/*
 * md-gpu.h - what md-gpu's modes share.  main.c picks the mode from the
 * command line: molecules.c (--top: GROMACS inputs, lib/mm), particles.c
 * (--lattice, --config, --restart: periodic boxes of particles,
 * lib/pmd/pmd.h) or replicas.c (else: a particle in a model potential,
 * lib/md/replica.h).  Each parses its options into a struct, sets up,
 * runs and closes; the options they have in common go through
 * mdg_getopt and mdg_opt (opts.c).
 */
#ifndef MD_GPU_H
#define MD_GPU_H

#include "core/fek.h"
#include "core/progress.h"

/* The options the modes share, as given (each mode sets the defaults
 * first; a mode's optstring says which it takes). */
struct mdg_opts {
	struct fek_common com;		/* -d -q -s -T -v, fek_opt_common */
	long every;			/* -e */
	double gamma;			/* -f: friction */
	double dt;			/* -H: time step */
	int integ;			/* -i: index into mdg_range's names */
	const char *logpath;		/* -l */
	long equil;			/* -N: steps before the first output */
	long nsteps;			/* -n */
	const char *dcdpath;		/* -o */
	long replicas;			/* -R */
	double temp;			/* -t */
	const char *winfile;		/* -w */
};

/* A real option's range and its name in messages. */
struct mdg_real {
	double lo, hi;
	const char *what;
};

/* -R: replicas, windows' or milestones' replicas, or boxes, in every
 * mode. */
#define MDG_REPLICAS_MAX (1L << 30)

/* What a mode accepts for the shared options. */
struct mdg_range {
	long every_lo, nsteps_lo;		/* -e, -n from */
	struct mdg_real gamma, dt, temp;	/* -f, -H, -t */
	const char *const *integ;		/* -i's names, NULL ended */
};

/* opts.c: the shared option c (getopt's) with argument arg into o:
 * the errors counted (0 or 1, reported like fek_opt_long's), or -1
 * when c is not one of them. */
int	mdg_opt(int c, const char *arg, const struct mdg_range *r,
	    struct mdg_opts *o);
/* Every option of argv (getopt_long's optstring, longopts): the mode's
 * own through own (the errors counted, or -1 where c is not one of
 * them), the modes' shared ones through mdg_opt, the rest through
 * fek_opt_common (-d -q -s -T -v, -h and --help, --version).  The errors
 * counted. */
struct option;
int	mdg_getopt(int argc, char **argv, const char *optstring,
	    const struct option *longopts,
	    int (*own)(int, const char *, void *), void *ctx,
	    const struct mdg_range *r, struct mdg_opts *o, void (*usage)(int));
/* The index of arg in names (NULL ended) into *out: 0, or a warning
 * "what: 'arg' is not a, b or c" and 1. */
int	mdg_word(const char *arg, const char *const *names, const char *what,
	    int *out);
/* A library parser's result (0, or -1 with fek_seterr) as an option
 * error: 0, or a warning of its message and 1. */
int	mdg_liberr(int rc);
/* A condition that is an error, and its message: mdg_checks warns of
 * each that holds (in order) and returns their count. */
struct mdg_check {
	int bad;
	const char *msg;
};
int	mdg_checks(const struct mdg_check *t, size_t n);
/* Whether argv (before "--") has option name, alone or as name=value. */
int	mdg_has_option(int argc, char **argv, const char *name);
/* fek_progress_start's flags: nothing with -q; with -v (whose own lines
 * a "\r" line would break) complete lines, on a terminal too. */
int	mdg_progress_flags(const struct mdg_opts *o);

/* The modes: each returns main's exit status. */
int	mdg_replicas(int argc, char **argv);
int	mdg_particles(int argc, char **argv);
int	mdg_molecules(int argc, char **argv);

#endif
