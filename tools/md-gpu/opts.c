/*
 * opts.c - the options md-gpu's modes share (md-gpu.h): mdg_getopt's loop
 * hands each option to the mode's own parser, and what that does not know
 * to mdg_opt, with the mode's ranges and integrator names; and the small
 * helpers of the modes' checks.
 */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fek.h"
#include "md-gpu.h"

int
mdg_word(const char *arg, const char *const *names, const char *what,
    int *out)
{
	char list[128];
	size_t at = 0;
	int n, k;

	for (n = 0; names[n] != NULL; n++)
		if (strcmp(arg, names[n]) == 0) {
			*out = n;
			return 0;
		}
	for (k = 0; k < n; k++)
		at += snprintf(list + at, sizeof list - at, "%s%s", k == 0 ?
		    "" : k == n - 1 ? " or " : ", ", names[k]);
	fek_warnx("%s: '%s' is not %s", what, arg, list);
	return 1;
}

static int
opt_real(const char *arg, const struct mdg_real *r, double *out)
{
	return fek_opt_double(arg, r->lo, r->hi, r->what, out);
}

int
mdg_opt(int c, const char *arg, const struct mdg_range *r,
    struct mdg_opts *o)
{
	switch (c) {
	case 'e':
		return fek_opt_long(arg, r->every_lo, LONG_MAX, "-e",
		    &o->every);
	case 'f':
		return opt_real(arg, &r->gamma, &o->gamma);
	case 'H':
		return opt_real(arg, &r->dt, &o->dt);
	case 'i':
		if (mdg_word(arg, r->integ, "-i", &o->integ) == 0)
			return 0;
		o->integ = 0;
		return 1;
	case 'l':
		o->logpath = arg;
		return 0;
	case 'N':
		return fek_opt_long(arg, 0, LONG_MAX, "-N", &o->equil);
	case 'n':
		return fek_opt_long(arg, r->nsteps_lo, LONG_MAX, "-n",
		    &o->nsteps);
	case 'o':
		o->dcdpath = arg;
		return 0;
	case 'R':
		return fek_opt_long(arg, 1, MDG_REPLICAS_MAX, "-R",
		    &o->replicas);
	case 't':
		return opt_real(arg, &r->temp, &o->temp);
	case 'w':
		o->winfile = arg;
		return 0;
	default:
		return -1;
	}
}

int
mdg_liberr(int rc)
{
	if (rc == 0)
		return 0;
	fek_warnx("%s", fek_errmsg());
	return 1;
}

int
mdg_checks(const struct mdg_check *t, size_t n)
{
	int nerr = 0;

	for (size_t k = 0; k < n; k++)
		if (t[k].bad) {
			fek_warnx("%s", t[k].msg);
			nerr++;
		}
	return nerr;
}

int
mdg_getopt(int argc, char **argv, const char *optstring,
    const struct option *longopts, int (*own)(int, const char *, void *),
    void *ctx, const struct mdg_range *r, struct mdg_opts *o,
    void (*usage)(int))
{
	char *end;
	int c, e, nerr = 0;

	while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		/* -h was the time step before it was the help: say so rather
		 * than print the usage to a script that gave a step */
		if (c == 'h' && optind < argc && (strtod(argv[optind], &end),
		    end != argv[optind] && *end == '\0'))
			fek_errx(FEK_EX_USAGE, "-h %s: the time step is -H (-h "
			    "is the help)", argv[optind]);
		if ((e = own(c, optarg, ctx)) < 0 &&
		    (e = mdg_opt(c, optarg, r, o)) < 0)
			e = fek_opt_common(c, optarg, &o->com, usage);
		nerr += e;
	}
	return nerr;
}

int
mdg_has_option(int argc, char **argv, const char *name)
{
	size_t len = strlen(name);

	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strncmp(argv[i], name, len) == 0 && (argv[i][len] == '\0' ||
		    argv[i][len] == '='))
			return 1;
	return 0;
}

int
mdg_progress_flags(const struct mdg_opts *o)
{
	return o->com.quiet ? FEK_PROGRESS_QUIET : o->com.verbose ?
	    FEK_PROGRESS_LINES : 0;
}
