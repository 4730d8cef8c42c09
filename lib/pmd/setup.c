/*
 * setup.c - a particle run's start, pair potential and parameters
 * from what md-gpu was given (lib/pmd/setup.h), with the defaults of the unit
 * systems of lib/particles/units.c: a cutoff of 2.5 sigma, a neighbour list
 * skin of 0.3 sigma, and a thermostat period of 100 steps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "pmd/output.h"
#include "pmd/setup.h"

/* "fcc:10" or "fcc:10x10x12" */
int
fek_pmd_lattice_parse(struct fek_pmd_start *st, const char *arg)
{
	const char *colon = strchr(arg, ':');
	long *cells = st->cells;
	char *end;

	if (colon == NULL || (size_t)(colon - arg) >= sizeof st->kind)
		goto bad;
	memcpy(st->kind, arg, colon - arg);
	st->kind[colon - arg] = '\0';
	if (fek_lattice_basis(st->kind) == 0)
		goto bad;
	cells[0] = strtol(colon + 1, &end, 10);
	if (*end == '\0') {
		cells[1] = cells[2] = cells[0];
	} else {
		if (*end != 'x')
			goto bad;
		cells[1] = strtol(end + 1, &end, 10);
		if (*end != 'x')
			goto bad;
		cells[2] = strtol(end + 1, &end, 10);
		if (*end != '\0')
			goto bad;
	}
	for (int d = 0; d < 3; d++)
		if (cells[d] < 1 || cells[d] > 10000)
			goto bad;
	return 0;
bad:
	return fek_seterr(FEK_EX_USAGE, "--lattice: '%s' is not sc, bcc or "
	    "fcc:n or :nxnyxnz (n from 1 to 10000)", arg);
}

/* "file" or "i:j:file" */
int
fek_pmd_tables_add(struct fek_pmd_tables *tb, const char *arg)
{
	const char *p = arg;
	long ti = 0, tj = 0;
	char *end;

	if (strchr(p, ':') && (ti = strtol(p, &end, 10), end != p &&
	    *end == ':') && (tj = strtol(end + 1, &end, 10), *end == ':'))
		p = end + 1;
	else
		ti = tj = -1;
	if (ti >= FEK_PMD_MAXTYPES || tj >= FEK_PMD_MAXTYPES ||
	    tb->n == FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES)
		return fek_seterr(FEK_EX_USAGE, "--table: '%s': types from 0 "
		    "to %d", arg, FEK_PMD_MAXTYPES - 1);
	tb->ti[tb->n] = (int)ti;
	tb->tj[tb->n] = (int)tj;
	tb->file[tb->n++] = p;
	return 0;
}

/* A checkpoint: its units must be u's, its boxes the replicas asked. */
static int
start_restart(struct fek_psys *s, const struct fek_pmd_start *st,
    const struct fek_md_units *u, long *seed)
{
	char ckunits[16];

	if (fek_pmd_checkpoint_read(s, st->restart, ckunits,
	    sizeof ckunits) < 0)
		return -1;
	if (strcmp(ckunits, u->name) != 0)
		return fek_seterr(FEK_EX_USAGE, "%s: a checkpoint in %s "
		    "units; give --units %s", st->restart, ckunits, ckunits);
	if (st->replicas != 1 && st->replicas != s->nbox)
		return fek_seterr(FEK_EX_USAGE, "-R %ld: the checkpoint holds "
		    "%d replicas", st->replicas, s->nbox);
	if (*seed < 0)
		*seed = (long)s->seed;
	return 0;
}

/* A configuration file, a .gro's units made the run's. */
static int
start_config(struct fek_psys *s, const struct fek_pmd_start *st,
    const struct fek_md_units *u)
{
	const char *fmt = fek_config_format(st->config, st->format);
	double ls = 1, vs = u->time_unit;
	int isgro;

	if (fmt == NULL)
		return -1;
	isgro = strcmp(fmt, "gro") == 0;
	if (isgro && strcmp(u->name, "real") == 0) {
		ls = 10;	/* nm -> A; nm/ps -> A/fs */
		vs = 0.01 * u->time_unit;
	} else if (isgro)
		vs = 1;		/* nm/ps, the engine's gmx unit */
	return fek_config_read(s, st->config, fmt, ls, vs, (int)st->replicas);
}

int
fek_pmd_start_read(struct fek_psys *s, const struct fek_pmd_start *st,
    const struct fek_md_units *u, long *seed)
{
	int nb;

	if (st->restart)
		return start_restart(s, st, u, seed);
	if (st->config)
		return start_config(s, st, u);
	nb = fek_lattice_basis(st->kind);
	fek_psys_alloc(s, nb * st->cells[0] * st->cells[1] * st->cells[2],
	    (int)st->replicas, 1);
	return fek_lattice_fill(s, st->kind, st->cells, st->rho);
}

int
fek_pmd_pair_setup(struct fek_pairpot *pp, const struct fek_md_units *u,
    int nlj, const struct fek_pmd_tables *tb, double rc, int ntypes,
    int geometric, double *sigmax)
{
	*sigmax = 0;
	pp->style = tb->n ? FEK_PAIR_TABLE : FEK_PAIR_LJ;
	if (!tb->n && nlj == 0) {
		if (strcmp(u->name, "lj") != 0)
			return fek_seterr(FEK_EX_USAGE, "--units %s: give the "
			    "pair potential (--lj or --table)", u->name);
		fek_pair_parse_lj(pp, "1:1");
	}
	for (int k = 0; k < FEK_PMD_MAXTYPES * FEK_PMD_MAXTYPES; k++)
		if (pp->given[k] && pp->sig[k] > *sigmax)
			*sigmax = pp->sig[k];
	if (rc < 0)
		rc = tb->n ? -1 : 2.5 * *sigmax;
	for (long k = 0; k < tb->n; k++) {
		int all = tb->ti[k] < 0, lo = all ? 0 : tb->ti[k];
		int hi = all ? ntypes - 1 : tb->ti[k];

		if (rc < 0)
			return fek_seterr(FEK_EX_USAGE, "--table: needs --rc");
		for (int i = lo; i <= hi; i++)
			for (int j = all ? i : tb->tj[k]; j <= (all ? hi :
			    tb->tj[k]); j++)
				if (fek_pair_read_table(pp, i, j, tb->file[k],
				    rc, tb->points) < 0)
					return -1;
	}
	if (fek_pair_finish(pp, ntypes, rc, geometric) < 0)
		return -1;
	if (*sigmax == 0)
		*sigmax = pp->rcmax / 2.5;
	return 0;
}

void
fek_pmd_par_setup(struct fek_pmd_par *par, const struct fek_md_units *u,
    const struct fek_pmd_user *w, double sigmax)
{
	int lj = strcmp(u->name, "lj") == 0;
	double dt = w->dt, temp = w->temp;

	if (dt < 0)
		dt = lj ? 0.005 : strcmp(u->name, "real") == 0 ? 1 : 0.001;
	if (temp < 0)
		temp = lj ? 1 : 300;
	par->integ = w->integ;
	par->dt = dt / u->time_unit;
	par->kT = u->kb * temp;
	par->tau = w->tau > 0 ? w->tau / u->time_unit : 100 * par->dt;
	par->gamma = w->gamma >= 0 ? w->gamma * u->time_unit : 1 / par->tau;
	par->chain = (int)w->chain;
	par->nc = 1;
	par->nys = 1;
	par->baro = w->baro;
	par->pressure = w->pressure / u->pressure_unit;
	par->baro_every = w->baro_every;
	par->zero_every = w->zero_every;
	par->skin = w->skin >= 0 ? w->skin : 0.3 * sigmax;
	par->seed = (uint64_t)w->seed;
	par->nsteps = w->nsteps;
	par->equil = w->equil;
	/* frames: at the end by default (the start of a single point) */
	par->every = w->every < 0 ? (w->nsteps > 0 ? w->nsteps : 1) : w->every;
	par->thermo_every = w->thermo < 0 ? (w->log ? 100 : 0) : w->thermo;
	par->ckpt_every = w->ckpt ? w->ckpt_every : 0;
	par->want_f = w->want_f;
	par->restart = w->restart;
}

int
fek_pmd_opt_mass(const char *arg, double *mass, int *given)
{
	const char *colon = strchr(arg, ':');
	long t = 0;
	double m;

	if (colon) {
		char buf[32];

		if ((size_t)(colon - arg) >= sizeof buf)
			goto bad;
		memcpy(buf, arg, colon - arg);
		buf[colon - arg] = '\0';
		if (fek_opt_long(buf, 0, FEK_PMD_MAXTYPES - 1, "-m: type", &t))
			return 1;
		arg = colon + 1;
	}
	if (fek_opt_double(arg, 1e-300, 1e300, "-m", &m))
		return 1;
	if (colon) {
		mass[t] = m;
		given[t] = 1;
	} else
		for (int k = 0; k < FEK_PMD_MAXTYPES; k++) {
			mass[k] = m;
			given[k] = 1;
		}
	return 0;
bad:
	fek_warnx("-m: '%s' is not mass or type:mass", arg);
	return 1;
}
