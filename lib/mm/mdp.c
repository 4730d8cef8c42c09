/*
 * mdp.c - run options from a GROMACS .mdp file (mm.h: fek_mm_opt_default,
 * fek_mm_opt_read), after the GROMACS 2022 reference manual, "Molecular
 * dynamics parameters (.mdp options)", with its defaults (those grompp
 * 2022 writes to mdout.mdp).
 *
 * A line is "key = value"; ';' starts a comment; blank lines are skipped.
 * Keys are told apart without regard to case, '-' and '_' the same
 * ("DispCorr", "fourier_nx"; the old "vdwtype" is "vdw-type"); values of
 * enumerated options likewise ("Cut-off", "cutoff", "PME").  A key given
 * twice is an error (as in grompp); an empty value keeps the default;
 * keys md-gpu does not read are ignored.  Read:
 *
 *   integrator              one of GROMACS's names (md, sd, ...)
 *   tinit, dt, nsteps
 *   cutoff-scheme           Verlet (group is refused)
 *   pbc                     xyz
 *   coulombtype             Cut-off, Reaction-Field, PME (Ewald and the
 *                           rest are refused)
 *   coulomb-modifier, vdw-modifier
 *                           Potential-shift(-Verlet) or None
 *   rcoulomb, rvdw, epsilon-r, epsilon-rf
 *   vdw-type                Cut-off
 *   DispCorr                no, Ener, EnerPres
 *   fourierspacing, fourier-nx, -ny, -nz, pme-order, ewald-rtol
 *   ewald-geometry          3d; epsilon-surface 0
 *   constraints             none, h-bonds, all-bonds (h-angles and
 *                           all-angles are refused)
 *   constraint-algorithm    LINCS or SHAKE (checked, not kept)
 *   tcoupl, pcoupl          kept as given (lower case)
 *   gen-vel, gen-temp, gen-seed
 *   nh-chain-length         1 to 10 (default 10, as GROMACS's md-vv)
 *   nstpcouple              steps between barostat moves
 *   tau-t, ref-t, tau-p, ref-p, compressibility
 *                           the first number of each (one per group or
 *                           direction in GROMACS)
 *   define, include         the text after '='
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "mm/mm.h"
#include "mm/cpp.h"

void
fek_mm_opt_default(struct fek_mm_opt *o)
{
	memset(o, 0, sizeof *o);
	o->coulombtype = FEK_MM_COUL_CUT;
	o->coul_shift = 1;
	o->vdw_shift = 1;
	o->rcoulomb = 1;
	o->rvdw = 1;
	o->epsilon_r = 1;
	o->epsilon_rf = 0;
	o->ewald_rtol = 1e-5;
	o->pme_order = 4;
	o->fourierspacing = 0.12;
	o->dispcorr = FEK_MM_DISP_NO;
	o->constraints = FEK_MM_CONSTR_NONE;
	o->dt = 0.001;
	o->tinit = 0;
	o->nsteps = 0;
	o->tau_p = 1;
	strcpy(o->integrator, "md");
	strcpy(o->tcoupl, "no");
	strcpy(o->pcoupl, "no");
	o->gen_vel = 0;
	o->gen_temp = 300;
	o->gen_seed = -1;
	o->nh_chain = 10;
	o->nstpcouple = -1;
	o->skin = 0.12;
}

/* The file being read, for messages. */
struct mdp {
	const char *path;
	long line;
	const char *key;		/* as written */
};

static int
lerr(const struct mdp *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
lerr(const struct mdp *m, const char *fmt, ...)
{
	char msg[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return fek_seterr(FEK_EX_DATA, "%s:%ld: %s", m->path, m->line, msg);
}

/* The key normalised: lower case, '_' as '-'. */
static void
norm_key(const char *k, char *out, size_t size)
{
	size_t i;

	for (i = 0; k[i] != '\0' && i + 1 < size; i++)
		out[i] = k[i] == '_' ? '-' : tolower((unsigned char)k[i]);
	out[i] = '\0';
	if (strcmp(out, "vdwtype") == 0)
		snprintf(out, size, "vdw-type");
}

/* The first blank-separated field of v as a finite number, every field
 * being one. */
static int
first_num(const struct mdp *m, const char *v, double *out)
{
	const char *p = v;
	int n = 0;

	while (*p != '\0') {
		char *end;
		double x;

		errno = 0;
		x = strtod(p, &end);
		if (end == p || (*end != '\0' && !isspace((unsigned char)*end))
		    || errno == ERANGE || !isfinite(x))
			return lerr(m, "%s: '%s' is not a number%s", m->key, v,
			    n ? " (or a list of numbers)" : "");
		if (n++ == 0)
			*out = x;
		p = end + strspn(end, " \t");
	}
	return 0;
}

/* The whole of v as a finite number in [lo, hi]. */
static int
one_num(const struct mdp *m, const char *v, double lo, double hi,
    double *out)
{
	char *end;

	errno = 0;
	*out = strtod(v, &end);
	if (end == v || *end != '\0' || errno == ERANGE || !isfinite(*out))
		return lerr(m, "%s: '%s' is not a number", m->key, v);
	if (*out < lo || *out > hi)
		return lerr(m, "%s: %g out of range (%g to %g)", m->key, *out,
		    lo, hi);
	return 0;
}

/* The whole of v as an integer in [lo, hi]. */
static int
one_int(const struct mdp *m, const char *v, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(v, &end, 10);
	if (end == v || *end != '\0' || errno == ERANGE)
		return lerr(m, "%s: '%s' is not an integer", m->key, v);
	if (*out < lo || *out > hi)
		return lerr(m, "%s: %ld out of range (%ld to %ld)", m->key,
		    *out, lo, hi);
	return 0;
}

/* v as one of the names in list (NULL-terminated): its index, or -1. */
static int
pick(const char *v, const char *const *list)
{
	for (int i = 0; list[i] != NULL; i++)
		if (mm_same_min(v, list[i]))
			return i;
	return -1;
}

/* v into dst (size bytes), or -1 (65) when it does not fit. */
static int
text(const struct mdp *m, const char *v, char *dst, size_t size)
{
	if (strlen(v) >= size)
		return lerr(m, "%s: longer than %zu characters", m->key,
		    size - 1);
	strcpy(dst, v);
	return 0;
}

/* Lower-case copy of a single-word value. */
static int
word(const struct mdp *m, const char *v, char *dst, size_t size)
{
	if (strcspn(v, " \t") != strlen(v))
		return lerr(m, "%s: '%s' is more than one word", m->key, v);
	if (text(m, v, dst, size) < 0)
		return -1;
	for (; *dst != '\0'; dst++)
		*dst = tolower((unsigned char)*dst);
	return 0;
}

/* Key k (normalised) with value v into o. */
static int
set(struct fek_mm_opt *o, const struct mdp *m, const char *k, const char *v)
{
	static const char *const integ[] = { "md", "md-vv", "md-vv-avek",
	    "sd", "bd", "steep", "cg", "l-bfgs", "nm", "tpi", "tpic",
	    "mimic", NULL };
	static const char *const coul[] = { "cut-off", "reaction-field",
	    "pme", NULL };
	static const char *const coul_refused[] = { "ewald",
	    "generalized-reaction-field", "reaction-field-zero", "pme-switch",
	    "pme-user", "pme-user-switch", "shift", "switch", "user", "pppm",
	    "reaction-field-nec", NULL };
	static const char *const mod[] = { "potential-shift-verlet",
	    "potential-shift", "none", NULL };
	static const char *const disp[] = { "no", "ener", "enerpres", NULL };
	static const char *const constr[] = { "none", "h-bonds", "all-bonds",
	    NULL };
	double x;
	long n;
	int i;

	if (strcmp(k, "define") == 0)
		return text(m, v, o->define, sizeof o->define);
	if (strcmp(k, "include") == 0)
		return text(m, v, o->include, sizeof o->include);
	if (*v == '\0')
		return 0;	/* the default */
	if (strcmp(k, "integrator") == 0) {
		if (pick(v, integ) < 0)
			return lerr(m, "integrator '%s': not one of GROMACS's",
			    v);
		return word(m, v, o->integrator, sizeof o->integrator);
	}
	if (strcmp(k, "tinit") == 0)
		return one_num(m, v, -HUGE_VAL, HUGE_VAL, &o->tinit);
	if (strcmp(k, "dt") == 0) {
		if (one_num(m, v, 0, HUGE_VAL, &o->dt) < 0)
			return -1;
		if (o->dt == 0)
			return lerr(m, "dt: must be positive");
		return 0;
	}
	if (strcmp(k, "nsteps") == 0) {
		if (one_int(m, v, -1, LONG_MAX, &n) < 0)
			return -1;
		o->nsteps = n;
		return 0;
	}
	if (strcmp(k, "cutoff-scheme") == 0) {
		if (mm_same_min(v, "verlet"))
			return 0;
		if (mm_same_min(v, "group"))
			return lerr(m, "cutoff-scheme group is not supported "
			    "(nor by GROMACS 2020 and later): use Verlet");
		return lerr(m, "cutoff-scheme '%s': expected Verlet", v);
	}
	if (strcmp(k, "pbc") == 0) {
		if (mm_same_min(v, "xyz"))
			return 0;
		return lerr(m, "pbc '%s' is not supported (only xyz)", v);
	}
	if (strcmp(k, "coulombtype") == 0) {
		if ((i = pick(v, coul)) >= 0) {
			o->coulombtype = i == 0 ? FEK_MM_COUL_CUT : i == 1 ?
			    FEK_MM_COUL_RF : FEK_MM_COUL_PME;
			return 0;
		}
		if (mm_same_min(v, "ewald"))
			return lerr(m, "coulombtype Ewald (plain Ewald sums) "
			    "is not supported: use PME");
		if (pick(v, coul_refused) >= 0)
			return lerr(m, "coulombtype %s is not supported (only "
			    "Cut-off, Reaction-Field and PME)", v);
		return lerr(m, "coulombtype '%s': not one of GROMACS's", v);
	}
	if (strcmp(k, "coulomb-modifier") == 0 ||
	    strcmp(k, "vdw-modifier") == 0) {
		if ((i = pick(v, mod)) < 0)
			return lerr(m, "%s %s is not supported (only "
			    "Potential-shift and None)", m->key, v);
		*(k[0] == 'c' ? &o->coul_shift : &o->vdw_shift) = i < 2;
		return 0;
	}
	if (strcmp(k, "vdw-type") == 0) {
		if (mm_same_min(v, "cut-off"))
			return 0;
		return lerr(m, "vdw-type %s is not supported (only Cut-off, "
		    "with vdw-modifier)", v);
	}
	if (strcmp(k, "rcoulomb") == 0)
		return one_num(m, v, 0, HUGE_VAL, &o->rcoulomb);
	if (strcmp(k, "rvdw") == 0)
		return one_num(m, v, 0, HUGE_VAL, &o->rvdw);
	if (strcmp(k, "epsilon-r") == 0) {
		if (one_num(m, v, 0, HUGE_VAL, &o->epsilon_r) < 0)
			return -1;
		if (o->epsilon_r == 0)
			return lerr(m, "epsilon-r 0 (infinity: no Coulomb) is "
			    "not supported");
		return 0;
	}
	if (strcmp(k, "epsilon-rf") == 0)
		return one_num(m, v, 0, HUGE_VAL, &o->epsilon_rf);
	if (strcmp(k, "dispcorr") == 0) {
		if ((i = pick(v, disp)) < 0)
			return lerr(m, "DispCorr %s is not supported (only no, "
			    "Ener and EnerPres)", v);
		o->dispcorr = i == 0 ? FEK_MM_DISP_NO : i == 1 ?
		    FEK_MM_DISP_ENER : FEK_MM_DISP_ENERPRES;
		return 0;
	}
	if (strcmp(k, "fourierspacing") == 0)
		return one_num(m, v, 0, HUGE_VAL, &o->fourierspacing);
	if (strcmp(k, "fourier-nx") == 0 || strcmp(k, "fourier-ny") == 0 ||
	    strcmp(k, "fourier-nz") == 0) {
		if (one_int(m, v, 0, 1 << 20, &n) < 0)
			return -1;
		o->fourier_n[k[9] - 'x'] = (int)n;
		return 0;
	}
	if (strcmp(k, "pme-order") == 0) {
		if (one_int(m, v, 3, 12, &n) < 0)
			return -1;
		o->pme_order = (int)n;
		return 0;
	}
	if (strcmp(k, "ewald-rtol") == 0) {
		if (one_num(m, v, 0, 1, &o->ewald_rtol) < 0)
			return -1;
		if (o->ewald_rtol == 0 || o->ewald_rtol == 1)
			return lerr(m, "ewald-rtol: %g must be between 0 and 1",
			    o->ewald_rtol);
		return 0;
	}
	if (strcmp(k, "ewald-geometry") == 0) {
		if (mm_same_min(v, "3d"))
			return 0;
		return lerr(m, "ewald-geometry %s is not supported (only 3d)",
		    v);
	}
	if (strcmp(k, "epsilon-surface") == 0) {
		if (one_num(m, v, 0, HUGE_VAL, &x) < 0)
			return -1;
		if (x != 0)
			return lerr(m, "epsilon-surface %g is not supported "
			    "(only 0)", x);
		return 0;
	}
	if (strcmp(k, "constraints") == 0) {
		if ((i = pick(v, constr)) >= 0) {
			o->constraints = i == 0 ? FEK_MM_CONSTR_NONE : i == 1 ?
			    FEK_MM_CONSTR_HBONDS : FEK_MM_CONSTR_ALLBONDS;
			return 0;
		}
		if (mm_same_min(v, "h-angles") || mm_same_min(v, "all-angles"))
			return lerr(m, "constraints %s is not supported (only "
			    "none, h-bonds and all-bonds)", v);
		return lerr(m, "constraints '%s': expected none, h-bonds or "
		    "all-bonds", v);
	}
	if (strcmp(k, "constraint-algorithm") == 0) {
		if (mm_same_min(v, "lincs") || mm_same_min(v, "shake"))
			return 0;
		return lerr(m, "constraint-algorithm '%s': expected LINCS or "
		    "SHAKE", v);
	}
	if (strcmp(k, "tcoupl") == 0)
		return word(m, v, o->tcoupl, sizeof o->tcoupl);
	if (strcmp(k, "pcoupl") == 0)
		return word(m, v, o->pcoupl, sizeof o->pcoupl);
	if (strcmp(k, "tau-t") == 0)
		return first_num(m, v, &o->tau_t);
	if (strcmp(k, "ref-t") == 0)
		return first_num(m, v, &o->ref_t);
	if (strcmp(k, "tau-p") == 0)
		return first_num(m, v, &o->tau_p);
	if (strcmp(k, "ref-p") == 0)
		return first_num(m, v, &o->ref_p);
	if (strcmp(k, "compressibility") == 0)
		return first_num(m, v, &o->compressibility);
	if (strcmp(k, "gen-vel") == 0) {
		static const char *const yn[] = { "no", "yes", NULL };
		int i = pick(v, yn);

		if (i < 0)
			return lerr(m, "gen-vel '%s': expected no or yes", v);
		o->gen_vel = i;
		return 0;
	}
	if (strcmp(k, "gen-temp") == 0)
		return one_num(m, v, 0, 1e6, &o->gen_temp);
	if (strcmp(k, "gen-seed") == 0)
		return one_int(m, v, -1, LONG_MAX, &o->gen_seed);
	if (strcmp(k, "nh-chain-length") == 0)
		return one_int(m, v, 1, 10, &o->nh_chain);
	if (strcmp(k, "nstpcouple") == 0)
		return one_int(m, v, -1, LONG_MAX, &o->nstpcouple);
	return 0;	/* a key md-gpu does not use */
}

int
fek_mm_opt_read(struct fek_mm_opt *o, const char *path)
{
	struct mdp m = { path, 0, NULL };
	char *buf = NULL, **seen = NULL;
	long *seen_line = NULL;
	size_t cap = 0;
	int nseen = 0, rc = 0;
	FILE *fp;

	fp = fek_open_input(path, "r");
	if (fp == NULL)
		return -1;
	for (;;) {
		char *s, *eq, *k, *v, *e, key[64];
		ssize_t len;

		errno = 0;
		len = fek_getline(&buf, &cap, fp, FEK_LINE_MAX);
		if (len < 0) {
			if (len != FEK_LINE_EOF)
				rc = fek_seterr(fek_getline_code(len), "%s:%ld: "
				    "%s", path, m.line + 1,
				    fek_getline_why(len, FEK_LINE_MAX));
			break;
		}
		m.line++;
		buf[strcspn(buf, ";\r\n")] = '\0';
		s = buf + strspn(buf, " \t");
		for (e = s + strlen(s); e > s && isspace((unsigned char)e[-1]);
		    e--)
			;
		*e = '\0';
		if (*s == '\0')
			continue;
		eq = strchr(s, '=');
		if (eq == NULL) {
			rc = lerr(&m, "expected 'key = value', not '%s'", s);
			break;
		}
		k = s;
		for (e = eq; e > k && isspace((unsigned char)e[-1]); e--)
			;
		*e = '\0';
		v = eq + 1 + strspn(eq + 1, " \t");
		if (*k == '\0' || strcspn(k, " \t") != strlen(k)) {
			rc = lerr(&m, "'%s' is not a key", k);
			break;
		}
		norm_key(k, key, sizeof key);
		m.key = k;
		for (int i = 0; i < nseen; i++)
			if (strcmp(seen[i], key) == 0) {
				rc = lerr(&m, "%s given twice (first on line "
				    "%ld)", k, seen_line[i]);
				goto out;
			}
		seen = realloc(seen, (nseen + 1) * sizeof *seen);
		seen_line = realloc(seen_line, (nseen + 1) * sizeof *seen_line);
		if (seen == NULL || seen_line == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory (mdp keys)");
		seen[nseen] = strdup(key);
		if (seen[nseen] == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory (mdp keys)");
		seen_line[nseen++] = m.line;
		if ((rc = set(o, &m, key, v)) < 0)
			break;
	}
out:
	for (int i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	free(seen_line);
	free(buf);
	fclose(fp);
	return rc < 0 ? -1 : 0;
}
