/*
 * top.c - a GROMACS topology (.top and the .itp files it includes) read
 * into one flat system (mm.h: fek_mm_top_read, fek_mm_top_free,
 * fek_mm_top_constrain).  The format is the GROMACS 2022 reference
 * manual's, "Topology file" (topology file format, its table of
 * directives, "Parameter files", "Molecule definition", "Exclusions",
 * "Constraints", "Pairs", "Virtual sites"), read with the preprocessor of
 * cpp.c; where the manual is silent we do what grompp 2022 does, found by
 * comparing with gmx dump of its .tpr (tests/mm-top.sh):
 *
 *   [ defaults ]     nbfunc (1, Lennard-Jones, only), comb-rule (1: the
 *                    atom types give c6 c12, combined geometrically; 2:
 *                    sigma epsilon, sigma arithmetic and epsilon geometric;
 *                    3: sigma epsilon, both geometric), gen-pairs (no),
 *                    fudgeLJ (1), fudgeQQ (1); a sixth field, the
 *                    repulsion power, must be 12.  It comes first, once.
 *   [ atomtypes ]    name [bonded-type] [atomic-number] mass charge ptype
 *                    v w: the optional columns told apart as grompp does
 *                    (ptype is a single letter: the 6th field when both
 *                    are there, the 4th when neither, else the 5th, and
 *                    then a field 2 that begins with a letter is the
 *                    bonded type).  ptype A (atom), V or D (virtual site).
 *   [ bondtypes ], [ angletypes ], [ dihedraltypes ], [ constrainttypes ]
 *                    bonded types (the atom types' second column, else
 *                    their names) and parameters, for interactions that
 *                    give none.  Dihedral types take 4 types or the old 2
 *                    (the middle two; the outer two for function 2), X a
 *                    wildcard; an interaction takes the type that matches
 *                    it (either way round) with the most non-wildcards,
 *                    the first in the files among equals; function 9
 *                    takes every following line with the same types as
 *                    another term.  A type given again replaces the
 *                    earlier parameters (grompp warns); function 9 lines
 *                    with the same types follow one another.
 *   [ pairtypes ], [ nonbond_params ]
 *                    by atom type: 1-4 and non-bonded LJ parameters (c6
 *                    c12 for comb-rule 1, sigma epsilon otherwise; a
 *                    negative sigma means c6 = 0 and c12 = 4 eps sigma^12).
 *   [ moleculetype ] name nrexcl, then [ atoms ] (nr type resnr residue
 *                    atom cgnr [charge [mass [typeB [chargeB [massB]]]]],
 *                    charge and mass from the atom type when missing, the
 *                    B columns ignored), [ bonds ] 1 and 5, [ pairs ] 1,
 *                    [ angles ] 1 and 5, [ dihedrals ] 1, 2, 3, 4 and 9,
 *                    [ constraints ] 1 and 2, [ settles ], [ exclusions ],
 *                    [ virtual_sites3 ] 1; a missing function type is 1;
 *                    parameters on the line (state A, or A and B, B
 *                    ignored) or from the types.  Pairs without parameters
 *                    take [ pairtypes ], else with gen-pairs the atom
 *                    types' LJ ([ nonbond_params ] or the combination
 *                    rule) with epsilon (comb-rule 1: c6 and c12) times
 *                    fudgeLJ.  As grompp does, angles, harmonic
 *                    impropers and Ryckaert-Bellemans dihedrals whose
 *                    parameters are all 0, and periodic dihedrals whose
 *                    force constant is 0, are left out.
 *   [ system ]       the title (its last line); [ molecules ] name count,
 *                    names matched as grompp does (exactly, else without
 *                    regard to case when that is unique).
 *   skipped          [ position_restraints ], [ cmaptypes ],
 *                    [ implicit_genborn_params ], [ implicit_surface_params ]
 *   refused          [ cmap ] lines and the directives of other
 *                    interactions (virtual sites other than 3, restraints,
 *                    polarization, intermolecular interactions), function
 *                    types other than those above.
 *   before the first directive: text is skipped, as grompp skips the
 *                    banner of the amber force fields' forcefield.itp.
 *
 * Exclusions: atoms up to nrexcl chemical bonds apart (bonds 1 and 5,
 * constraints 1, and settles as the bonds O-H1, O-H2), the lines of
 * [ exclusions ], and the three atoms of a settle among themselves.  The
 * last is our choice: grompp 2022 (and mdrun) leave a settled water that
 * has no [ exclusions ] unexcluded, but every water model GROMACS ships
 * lists them.  Atoms built by [ virtual_sites3 ] become virtual sites
 * (ptype V), as grompp makes them.
 *
 * Atom types: only those the system uses, in order of first use; LJ
 * c6/c12 for every pair of them from [ nonbond_params ] or the combination
 * rule.  Angles and phases become radians.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/fek.h"
#include "mm/mm.h"
#include "mm/cpp.h"

#define MAXP 12			/* parameters of a line, states A and B */
#define DEG (M_PI / 180)

/* ---- the directives ----------------------------------------------------- */

enum dir {
	D_NONE, D_DEFAULTS, D_ATOMTYPES, D_BONDTYPES, D_CONSTRAINTTYPES,
	D_PAIRTYPES, D_ANGLETYPES, D_DIHEDRALTYPES, D_NONBOND_PARAMS,
	D_SKIPTYPES, D_MOLECULETYPE, D_ATOMS, D_BONDS, D_PAIRS, D_ANGLES,
	D_DIHEDRALS, D_EXCLUSIONS, D_SETTLES, D_VSITES3, D_CONSTRAINTS,
	D_SKIPMOL, D_CMAP, D_UNSUPMOL, D_INTERMOL, D_SYSTEM, D_MOLECULES
};

static const struct {
	const char *name;
	enum dir dir;
} dirtab[] = {
	{ "defaults", D_DEFAULTS }, { "atomtypes", D_ATOMTYPES },
	{ "bondtypes", D_BONDTYPES }, { "constrainttypes", D_CONSTRAINTTYPES },
	{ "pairtypes", D_PAIRTYPES }, { "angletypes", D_ANGLETYPES },
	{ "dihedraltypes", D_DIHEDRALTYPES },
	{ "nonbond_params", D_NONBOND_PARAMS },
	{ "implicit_genborn_params", D_SKIPTYPES },
	{ "implicit_surface_params", D_SKIPTYPES },
	{ "cmaptypes", D_SKIPTYPES }, { "moleculetype", D_MOLECULETYPE },
	{ "atoms", D_ATOMS }, { "bonds", D_BONDS }, { "pairs", D_PAIRS },
	{ "angles", D_ANGLES }, { "dihedrals", D_DIHEDRALS },
	{ "exclusions", D_EXCLUSIONS }, { "settles", D_SETTLES },
	{ "virtual_sites3", D_VSITES3 }, { "constraints", D_CONSTRAINTS },
	{ "position_restraints", D_SKIPMOL }, { "cmap", D_CMAP },
	{ "virtual_sites1", D_UNSUPMOL }, { "virtual_sites2", D_UNSUPMOL },
	{ "virtual_sites4", D_UNSUPMOL }, { "virtual_sitesn", D_UNSUPMOL },
	{ "pairs_nb", D_UNSUPMOL }, { "polarization", D_UNSUPMOL },
	{ "water_polarization", D_UNSUPMOL },
	{ "thole_polarization", D_UNSUPMOL },
	{ "angle_restraints", D_UNSUPMOL },
	{ "angle_restraints_z", D_UNSUPMOL },
	{ "distance_restraints", D_UNSUPMOL },
	{ "orientation_restraints", D_UNSUPMOL },
	{ "dihedral_restraints", D_UNSUPMOL },
	{ "intermolecular_interactions", D_INTERMOL },
	{ "system", D_SYSTEM }, { "molecules", D_MOLECULES },
};

/* ---- the reader's state ------------------------------------------------- */

/* Names to indices (open addressing). */
struct names {
	char **s;
	int n, cap;
	int *slot;			/* hcap; -1 empty */
	int hcap;
};

struct atype {
	int bt;				/* bonded type */
	double mass, q;
	char ptype;			/* 'A' or 'V' */
	double v, w;			/* c6 c12, or sigma epsilon */
	int used;			/* index among t->tname, or -1 */
};

/* Parameter tables: bonded types by bonded type, pairs and non-bonded
 * parameters by atom type; at[] -1 is a wildcard. */
enum {
	TB_BOND, TB_ANGLE, TB_UB, TB_PDIH, TB_IDIH, TB_RB, TB_PIDIH,
	TB_CONSTR, TB_CONSTRNC, TB_PAIR, TB_NB, NTAB
};

struct pent {
	int at[4];
	double p[MAXP];			/* state A, as in the file */
};

struct ptab {
	struct pent *e;
	long n, cap;
};

struct matom {
	int type;
	int resnr;
	char name[8], resname[8];
	double q, m;
	char ptype;
};

struct moltype {
	char *name;
	int nrexcl;
	struct matom *a;
	int na, capa;
	struct fek_mm_ilist il[FEK_MM_NKIND];
	int *bond;			/* chemical bonds, pairs of atoms */
	long nbond, capbond;
	int *excl;			/* pairs excluded outright */
	long nexcl, capexcl;
	long *xstart;			/* exclusions, na + 1 */
	int *xlist;
};

struct rd {
	struct mm_cpp *cpp;
	enum dir dir;
	const char *dirname;
	int have_defaults, comb, genpairs;
	double fudge_lj, fudge_qq;
	struct names atn, btn, moln;
	struct atype *at;
	struct ptab tab[NTAB];
	struct moltype *mt;
	int nmt, capmt;
	struct moltype *cur;
	int seen_system, seen_molecules;
	struct {
		int mt;
		long n;
	} *mols;
	int nmols, capmols;
	char **tok;
	int captok;
	char title[128];
};

static void *
xrealloc(void *p, size_t n, size_t size)
{
	if (n != 0 && size > SIZE_MAX / n)
		fek_errx(FEK_EX_SOFTWARE, "allocation of %zu x %zu bytes "
		    "overflows", n, size);
	p = realloc(p, n != 0 && size != 0 ? n * size : 1);
	if (p == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory (%zu x %zu bytes)", n,
		    size);
	return p;
}

static char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = xrealloc(NULL, n, 1);

	memcpy(d, s, n);
	return d;
}

/* "FILE:LINE: ..." (65) at the line being read. */
static int
err(struct rd *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
err(struct rd *r, const char *fmt, ...)
{
	char msg[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return mm_cpp_err(r->cpp, "%s", msg);
}

/* ---- names -------------------------------------------------------------- */

static unsigned
hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s != '\0')
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int
names_find(const struct names *nm, const char *s)
{
	if (nm->hcap == 0)
		return -1;
	for (unsigned i = hash(s) & (nm->hcap - 1);; i = (i + 1) &
	    (nm->hcap - 1)) {
		int k = nm->slot[i];

		if (k < 0)
			return -1;
		if (strcmp(nm->s[k], s) == 0)
			return k;
	}
}

/* Add s (not there yet): its index. */
static int
names_add(struct names *nm, const char *s)
{
	if (2 * (nm->n + 1) > nm->hcap) {
		int hcap = nm->hcap ? 2 * nm->hcap : 64;

		free(nm->slot);
		nm->slot = xrealloc(NULL, hcap, sizeof *nm->slot);
		for (int i = 0; i < hcap; i++)
			nm->slot[i] = -1;
		nm->hcap = hcap;
		for (int k = 0; k < nm->n; k++) {
			unsigned i = hash(nm->s[k]) & (hcap - 1);

			while (nm->slot[i] >= 0)
				i = (i + 1) & (hcap - 1);
			nm->slot[i] = k;
		}
	}
	if (nm->n == nm->cap) {
		nm->cap = nm->cap ? 2 * nm->cap : 64;
		nm->s = xrealloc(nm->s, nm->cap, sizeof *nm->s);
	}
	nm->s[nm->n] = xstrdup(s);
	{
		unsigned i = hash(s) & (nm->hcap - 1);

		while (nm->slot[i] >= 0)
			i = (i + 1) & (nm->hcap - 1);
		nm->slot[i] = nm->n;
	}
	return nm->n++;
}

static void
names_free(struct names *nm)
{
	for (int k = 0; k < nm->n; k++)
		free(nm->s[k]);
	free(nm->s);
	free(nm->slot);
	memset(nm, 0, sizeof *nm);
}

/* ---- fields and numbers ------------------------------------------------- */

/* Split line in place at blanks into r->tok: the number of fields. */
static int
split(struct rd *r, char *line)
{
	int n = 0;

	for (;;) {
		line += strspn(line, " \t\f\v\r");
		if (*line == '\0')
			return n;
		if (n == r->captok) {
			r->captok = r->captok ? 2 * r->captok : 32;
			r->tok = xrealloc(r->tok, r->captok, sizeof *r->tok);
		}
		r->tok[n++] = line;
		line += strcspn(line, " \t\f\v\r");
		if (*line != '\0')
			*line++ = '\0';
	}
}

/* The whole of s as a finite number. */
static int
num(struct rd *r, const char *s, const char *what, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || *end != '\0' || errno == ERANGE || !isfinite(*v))
		return err(r, "[ %s ]: %s '%s' is not a number", r->dirname,
		    what, s);
	return 0;
}

/* The whole of s as an integer in [lo, hi]. */
static int
inum(struct rd *r, const char *s, const char *what, long lo, long hi,
    long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE)
		return err(r, "[ %s ]: %s '%s' is not an integer", r->dirname,
		    what, s);
	if (*v < lo || *v > hi)
		return err(r, "[ %s ]: %s %ld out of range (%ld to %ld)",
		    r->dirname, what, *v, lo, hi);
	return 0;
}

/* Fields tok[0 .. n) as numbers into p. */
static int
nums(struct rd *r, char **tok, int n, double *p)
{
	for (int i = 0; i < n; i++)
		if (num(r, tok[i], "parameter", &p[i]) < 0)
			return -1;
	return 0;
}

/* ---- Lennard-Jones ------------------------------------------------------ */

/* c6, c12 from the parameters v, w of the combination rule's kind. */
static void
lj_c6c12(int comb, double v, double w, double *c6, double *c12)
{
	double s6;

	if (comb == 1) {
		*c6 = v;
		*c12 = w;
	} else if (v >= 0) {
		s6 = v * v * v * v * v * v;
		*c6 = 4 * w * s6;
		*c12 = 4 * w * s6 * s6;
	} else {
		s6 = v * v * v * v * v * v;
		*c6 = 0;
		*c12 = 4 * w * s6 * s6;
	}
}

/* The combination rule's v, w for atom types a and b. */
static void
lj_combine(int comb, const struct atype *a, const struct atype *b,
    double *v, double *w)
{
	switch (comb) {
	case 1:
		*v = sqrt(a->v * b->v);
		break;
	case 2:
		*v = (fabs(a->v) + fabs(b->v)) / 2;
		if (a->v < 0 || b->v < 0)
			*v = -*v;
		break;
	default:
		*v = sqrt(fabs(a->v * b->v));
		if (a->v < 0 || b->v < 0)
			*v = -*v;
		break;
	}
	*w = sqrt(a->w * b->w);
}

/* ---- parameter tables --------------------------------------------------- */

static int
same_fwd(const int *a, const int *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

static int
same_rev(const int *a, const int *b, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] != b[n - 1 - i])
			return 0;
	return 1;
}

static void
ptab_push(struct ptab *t, const int *at, int nat, const double *p, int np)
{
	struct pent *e;

	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->e = xrealloc(t->e, t->cap, sizeof *t->e);
	}
	e = &t->e[t->n++];
	for (int i = 0; i < 4; i++)
		e->at[i] = i < nat ? at[i] : -1;
	memset(e->p, 0, sizeof e->p);
	memcpy(e->p, p, np * sizeof *p);
}

/* Add a type line (types at, parameters p of state A) as grompp does: a
 * line whose types match an earlier one's (either way round) replaces its
 * parameters, except that with repeat (dihedral function 9) lines that
 * follow one with the same types are further terms. */
static int
ptab_add(struct rd *r, struct ptab *t, const int *at, int nat,
    const double *p, int np, int repeat)
{
	int cont = 0, same = 0, clash = 0, found = 0;

	if (repeat && t->n > 0)
		cont = same_fwd(t->e[t->n - 1].at, at, nat);
	for (long i = 0; i < t->n; i++) {
		struct pent *e = &t->e[i];
		int ident;

		if (!same_fwd(e->at, at, nat) && !same_rev(e->at, at, nat))
			continue;
		found = 1;
		ident = memcmp(e->p, p, np * sizeof *p) == 0;
		if (!repeat)
			memcpy(e->p, p, np * sizeof *p);
		else if (ident)
			same = 1;
		else if (!cont)
			clash = 1;
	}
	if (clash)
		return err(r, "[ %s ]: a second block of function 9 lines for "
		    "the same types, apart from the first (grompp refuses "
		    "this too)", r->dirname);
	if ((!repeat && found) || same)
		return 0;
	ptab_push(t, at, nat, p, np);
	return 0;
}

/* The first entry whose types are a (n of them) either way round. */
static const struct pent *
ptab_find(const struct ptab *t, const int *a, int n)
{
	for (long i = 0; i < t->n; i++)
		if (same_fwd(t->e[i].at, a, n) || same_rev(t->e[i].at, a, n))
			return &t->e[i];
	return NULL;
}

/* Non-wildcards of e when it matches a (4 types) as it stands, or -1. */
static int
dih_match(const int *e, const int *a)
{
	int k = 0;

	for (int i = 0; i < 4; i++) {
		if (e[i] == -1)
			continue;
		if (e[i] != a[i])
			return -1;
		k++;
	}
	return k;
}

/* The dihedral type for bonded types a: the first with the most
 * non-wildcards matching either way round; *nterm: it and the lines after
 * it with the same types. */
static const struct pent *
dih_find(const struct ptab *t, const int *a, int *nterm)
{
	int rev[4] = { a[3], a[2], a[1], a[0] }, best = -1;
	long bi = -1;

	for (long i = 0; i < t->n && best < 4; i++) {
		int k = dih_match(t->e[i].at, a), kr = dih_match(t->e[i].at,
		    rev);

		if (kr > k)
			k = kr;
		if (k > best) {
			best = k;
			bi = i;
		}
	}
	if (bi < 0)
		return NULL;
	*nterm = 1;
	while (bi + *nterm < t->n && same_fwd(t->e[bi + *nterm].at,
	    t->e[bi].at, 4))
		(*nterm)++;
	return &t->e[bi];
}

/* ---- parameter directives ----------------------------------------------- */

/* The [ defaults ] line (nt fields in r->tok): 0, or -1 (65). */
static int
do_defaults(struct rd *r, int nt)
{
	char **tok = r->tok;
	long nb, comb;
	double pw;

	if (r->have_defaults)
		return err(r, "[ defaults ]: a second line (or a second "
		    "[ defaults ])");
	if (nt < 2)
		return err(r, "[ defaults ]: expected nbfunc comb-rule "
		    "[gen-pairs [fudgeLJ [fudgeQQ [n]]]]");
	if (nt > 6)
		return err(r, "[ defaults ]: %d fields, at most 6", nt);
	if (inum(r, tok[0], "nbfunc", 1, 2, &nb) < 0)
		return -1;
	if (nb != 1)
		return err(r, "[ defaults ]: nbfunc 2 (Buckingham) is not "
		    "supported (only 1, Lennard-Jones)");
	if (inum(r, tok[1], "comb-rule", 1, 3, &comb) < 0)
		return -1;
	r->comb = (int)comb;
	r->genpairs = 0;
	r->fudge_lj = r->fudge_qq = 1;
	if (nt > 2) {
		if (tok[2][0] == 'y' || tok[2][0] == 'Y')
			r->genpairs = 1;
		else if (tok[2][0] != 'n' && tok[2][0] != 'N')
			return err(r, "[ defaults ]: gen-pairs '%s': expected "
			    "yes or no", tok[2]);
	}
	if (nt > 3 && num(r, tok[3], "fudgeLJ", &r->fudge_lj) < 0)
		return -1;
	if (nt > 4 && num(r, tok[4], "fudgeQQ", &r->fudge_qq) < 0)
		return -1;
	if (nt > 5) {
		if (num(r, tok[5], "repulsion power", &pw) < 0)
			return -1;
		if (pw != 12)
			return err(r, "[ defaults ]: repulsion power %g is not "
			    "supported (only 12)", pw);
	}
	r->have_defaults = 1;
	return 0;
}

static int
is_ptype(const char *s)
{
	return s[0] != '\0' && s[1] == '\0' && isalpha((unsigned char)s[0]);
}

/* An [ atomtypes ] line: the type added (or replaced); its bonded type
 * added when new.  0, or -1 (65). */
static int
do_atomtype(struct rd *r, int nt)
{
	char **tok = r->tok;
	int hb, hz, ip, k, bt;
	struct atype a;
	long z;

	if (nt < 6)
		return err(r, "[ atomtypes ]: %d fields, expected name "
		    "[bonded-type] [atomic-number] mass charge ptype v w", nt);
	if (is_ptype(tok[5]))
		hb = hz = 1;
	else if (is_ptype(tok[3]))
		hb = hz = 0;
	else {
		hb = isalpha((unsigned char)tok[1][0]) != 0;
		hz = !hb;
	}
	ip = 3 + hb + hz;
	if (!is_ptype(tok[ip]))
		return err(r, "[ atomtypes ]: no particle type (a letter) in "
		    "field 4, 5 or 6");
	if (nt != ip + 3)
		return err(r, "[ atomtypes ]: %d fields after the particle "
		    "type, expected 2 (the Lennard-Jones parameters)",
		    nt - ip - 1);
	if (hz && inum(r, tok[1 + hb], "atomic number", -1, 1000, &z) < 0)
		return -1;
	if (num(r, tok[ip - 2], "mass", &a.mass) < 0 ||
	    num(r, tok[ip - 1], "charge", &a.q) < 0 ||
	    num(r, tok[ip + 1], "LJ parameter", &a.v) < 0 ||
	    num(r, tok[ip + 2], "LJ parameter", &a.w) < 0)
		return -1;
	switch (tok[ip][0]) {
	case 'A':
		a.ptype = 'A';
		break;
	case 'V':
	case 'D':
		a.ptype = 'V';
		break;
	default:
		return err(r, "[ atomtypes ]: particle type '%s' is not "
		    "supported (A, V or D)", tok[ip]);
	}
	if (a.mass < 0)
		return err(r, "[ atomtypes ]: negative mass %g", a.mass);
	if (r->comb == 1 ? a.v < 0 || a.w < 0 : a.w < 0)
		return err(r, "[ atomtypes ]: negative %s %g", r->comb == 1 ?
		    "c6 or c12" : "epsilon", r->comb == 1 ? fmin(a.v, a.w) :
		    a.w);
	bt = names_find(&r->btn, tok[hb ? 1 : 0]);
	if (bt < 0)
		bt = names_add(&r->btn, tok[hb ? 1 : 0]);
	a.bt = bt;
	a.used = -1;
	k = names_find(&r->atn, tok[0]);
	if (k < 0) {
		k = names_add(&r->atn, tok[0]);
		r->at = xrealloc(r->at, r->atn.cap, sizeof *r->at);
	}
	/* a type given again replaces the earlier one, as grompp does */
	r->at[k] = a;
	return 0;
}

/* Types of a parameter line: atom types (byatom) or bonded types, "X" a
 * wildcard when wild. */
static int
type_ids(struct rd *r, char **tok, int n, int byatom, int wild, int *id)
{
	for (int i = 0; i < n; i++) {
		if (wild && strcmp(tok[i], "X") == 0) {
			id[i] = -1;
			continue;
		}
		id[i] = names_find(byatom ? &r->atn : &r->btn, tok[i]);
		if (id[i] < 0)
			return err(r, "[ %s ]: unknown %s type '%s'",
			    r->dirname, byatom ? "atom" : "bonded", tok[i]);
	}
	return 0;
}

/* Parameters of a type line: npa (state A) or npa + npb; only state A
 * is kept. */
static int
type_params(struct rd *r, char **tok, int n, int npa, int npb, double *p)
{
	double b[MAXP];

	if (n != npa && n != npa + npb) {
		if (npb == 0)
			return err(r, "[ %s ]: %d parameters, expected %d",
			    r->dirname, n, npa);
		return err(r, "[ %s ]: %d parameters, expected %d or %d",
		    r->dirname, n, npa, npa + npb);
	}
	if (nums(r, tok, n, b) < 0)
		return -1;
	memcpy(p, b, npa * sizeof *p);
	return 0;
}

/* [ bondtypes ], [ angletypes ], [ constrainttypes ], [ pairtypes ],
 * [ nonbond_params ]: nat types, the function, parameters. */
static int
do_type(struct rd *r, int nt, int nat)
{
	char **tok = r->tok;
	int id[4], tab = -1, npa = 0, npb = 0;
	double p[MAXP];
	long fn;

	if (nt < nat + 1)
		return err(r, "[ %s ]: expected %d types and a function type",
		    r->dirname, nat);
	if (inum(r, tok[nat], "function type", 1, 100, &fn) < 0)
		return -1;
	switch (r->dir) {
	case D_BONDTYPES:
		if (fn == 1)
			tab = TB_BOND, npa = npb = 2;
		break;
	case D_ANGLETYPES:
		if (fn == 1)
			tab = TB_ANGLE, npa = npb = 2;
		else if (fn == 5)
			tab = TB_UB, npa = npb = 4;
		break;
	case D_CONSTRAINTTYPES:
		if (fn == 1 || fn == 2)
			tab = fn == 1 ? TB_CONSTR : TB_CONSTRNC, npa = npb = 1;
		break;
	case D_PAIRTYPES:
		if (fn == 1)
			tab = TB_PAIR, npa = npb = 2;
		break;
	default:	/* D_NONBOND_PARAMS */
		if (fn != 1)
			return err(r, "[ nonbond_params ]: function type %ld "
			    "is not supported (only 1, Lennard-Jones)", fn);
		tab = TB_NB, npa = 2;
		break;
	}
	/* types of other functions are kept for interactions we refuse */
	if (tab < 0)
		return 0;
	if (type_ids(r, tok, nat, tab == TB_PAIR || tab == TB_NB, 0, id) < 0 ||
	    type_params(r, tok + nat + 1, nt - nat - 1, npa, npb, p) < 0)
		return -1;
	if ((tab == TB_PAIR || tab == TB_NB) && (r->comb == 1 ? p[0] < 0 ||
	    p[1] < 0 : p[1] < 0))
		return err(r, "[ %s ]: negative %s", r->dirname, r->comb == 1 ?
		    "c6 or c12" : "epsilon");
	return ptab_add(r, &r->tab[tab], id, nat, p, npa, 0);
}

/* A [ dihedraltypes ] line, 4 types or the old 2, into the table of its
 * function (1 and 9 share one); other functions are skipped. */
static int
do_dihedraltype(struct rd *r, int nt)
{
	char **tok = r->tok, *t4[4];
	int id[4], tab, npa, npb;
	double p[MAXP];
	long fn;
	int nat;

	/* the old form: two types, then a one-digit function type */
	if (nt >= 3 && isdigit((unsigned char)tok[2][0]) && tok[2][1] == '\0')
		nat = 2;
	else if (nt >= 5 && isdigit((unsigned char)tok[4][0]) &&
	    tok[4][1] == '\0')
		nat = 4;
	else
		return err(r, "[ dihedraltypes ]: expected 4 (or 2) types and "
		    "a function type");
	if (inum(r, tok[nat], "function type", 1, 9, &fn) < 0)
		return -1;
	if (nat == 4) {
		for (int i = 0; i < 4; i++)
			t4[i] = tok[i];
	} else if (fn == 2) {
		/* impropers: the two types are the outer atoms */
		t4[0] = tok[0], t4[1] = "X", t4[2] = "X", t4[3] = tok[1];
	} else {
		t4[0] = "X", t4[1] = tok[0], t4[2] = tok[1], t4[3] = "X";
	}
	switch (fn) {
	case 1:
	case 9:
		tab = TB_PDIH, npa = 3, npb = 2;
		break;
	case 4:
		tab = TB_PIDIH, npa = 3, npb = 2;
		break;
	case 2:
		tab = TB_IDIH, npa = npb = 2;
		break;
	case 3:
		tab = TB_RB, npa = npb = 6;
		break;
	default:
		return 0;	/* kept for interactions we refuse */
	}
	if (type_ids(r, t4, 4, 0, 1, id) < 0 ||
	    type_params(r, tok + nat + 1, nt - nat - 1, npa, npb, p) < 0)
		return -1;
	if (npa == 3 && p[2] != floor(p[2]))
		return err(r, "[ dihedraltypes ]: multiplicity %g is not an "
		    "integer", p[2]);
	return ptab_add(r, &r->tab[tab], id, 4, p, npa, fn == 9);
}

/* ---- molecule types ----------------------------------------------------- */

/* Append the pair a b to the list *v of *n pairs (room for *cap). */
static void
pairs_push(int **v, long *n, long *cap, int a, int b)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*v = xrealloc(*v, *cap, 2 * sizeof **v);
	}
	(*v)[2 * *n] = a;
	(*v)[2 * *n + 1] = b;
	(*n)++;
}

/* The [ moleculetype ] line: a new, current molecule type. */
static int
do_moleculetype(struct rd *r, int nt)
{
	struct moltype *m;
	long nrexcl;

	if (r->cur != NULL)
		return err(r, "[ moleculetype ]: a second line (expected "
		    "[ atoms ])");
	if (nt != 2)
		return err(r, "[ moleculetype ]: expected name nrexcl");
	if (inum(r, r->tok[1], "nrexcl", 0, 1000, &nrexcl) < 0)
		return -1;
	if (names_find(&r->moln, r->tok[0]) >= 0)
		return err(r, "[ moleculetype ]: '%s' is defined twice",
		    r->tok[0]);
	names_add(&r->moln, r->tok[0]);
	if (r->nmt == r->capmt) {
		r->capmt = r->capmt ? 2 * r->capmt : 16;
		r->mt = xrealloc(r->mt, r->capmt, sizeof *r->mt);
	}
	m = &r->mt[r->nmt++];
	memset(m, 0, sizeof *m);
	m->name = xstrdup(r->tok[0]);
	m->nrexcl = (int)nrexcl;
	r->cur = m;
	return 0;
}

/* A name into a fixed field. */
static int
copy_name(struct rd *r, char *dst, size_t size, const char *s,
    const char *what)
{
	if (strlen(s) >= size)
		return err(r, "[ atoms ]: %s '%s' longer than %zu characters",
		    what, s, size - 1);
	strcpy(dst, s);
	return 0;
}

/* An [ atoms ] line of the current molecule type: numbered in order;
 * charge and mass from the atom type unless given; typeB, chargeB and
 * massB checked and dropped. */
static int
do_atom(struct rd *r, int nt)
{
	char **tok = r->tok, *end;
	struct moltype *m = r->cur;
	struct matom *a;
	long nr, cg, rn;
	double x;
	int ty;

	if (nt < 6)
		return err(r, "[ atoms ]: expected nr type resnr residue atom "
		    "cgnr [charge [mass [typeB [chargeB [massB]]]]]");
	if (nt > 11)
		return err(r, "[ atoms ]: %d fields, at most 11", nt);
	if (inum(r, tok[0], "atom number", 1, INT_MAX - 1, &nr) < 0)
		return -1;
	if (nr != m->na + 1)
		return err(r, "[ atoms ]: atom %ld: atoms must be numbered 1, "
		    "2, 3, ... in order (expected %d)", nr, m->na + 1);
	ty = names_find(&r->atn, tok[1]);
	if (ty < 0)
		return err(r, "[ atoms ]: unknown atom type '%s'", tok[1]);
	if (strlen(tok[1]) > 15)
		return err(r, "[ atoms ]: atom type name '%s' longer than 15 "
		    "characters", tok[1]);
	/* the residue number, perhaps with an insertion code */
	errno = 0;
	rn = strtol(tok[2], &end, 10);
	if (end == tok[2] || errno == ERANGE || rn < INT_MIN || rn > INT_MAX ||
	    (*end != '\0' && (!isalpha((unsigned char)*end) || end[1] != '\0')))
		return err(r, "[ atoms ]: residue number '%s' is not an "
		    "integer", tok[2]);
	if (inum(r, tok[5], "charge group", LONG_MIN, LONG_MAX, &cg) < 0)
		return -1;
	if (m->na == m->capa) {
		m->capa = m->capa ? 2 * m->capa : 64;
		m->a = xrealloc(m->a, m->capa, sizeof *m->a);
	}
	a = &m->a[m->na];
	memset(a, 0, sizeof *a);
	if (copy_name(r, a->resname, sizeof a->resname, tok[3],
	    "residue name") < 0 || copy_name(r, a->name, sizeof a->name,
	    tok[4], "atom name") < 0)
		return -1;
	a->type = ty;
	a->resnr = (int)rn;
	a->q = r->at[ty].q;
	a->m = r->at[ty].mass;
	a->ptype = r->at[ty].ptype;
	if (nt > 6 && num(r, tok[6], "charge", &a->q) < 0)
		return -1;
	if (nt > 7 && num(r, tok[7], "mass", &a->m) < 0)
		return -1;
	if (a->m < 0)
		return err(r, "[ atoms ]: negative mass %g", a->m);
	/* state B: checked, not used */
	if (nt > 8 && names_find(&r->atn, tok[8]) < 0)
		return err(r, "[ atoms ]: unknown atom type '%s' (typeB)",
		    tok[8]);
	for (int i = 9; i < nt; i++)
		if (num(r, tok[i], i == 9 ? "chargeB" : "massB", &x) < 0)
			return -1;
	m->na++;
	return 0;
}

/* Atom numbers tok[0 .. n) of the current molecule into 0-based a. */
static int
atom_ids(struct rd *r, char **tok, int n, int *a)
{
	long v;

	for (int i = 0; i < n; i++) {
		if (inum(r, tok[i], "atom number", LONG_MIN, LONG_MAX, &v) < 0)
			return -1;
		if (v < 1 || v > r->cur->na)
			return err(r, "[ %s ]: atom index %ld out of range "
			    "(1 to %d in molecule type %s)", r->dirname, v,
			    r->cur->na, r->cur->name);
		a[i] = (int)v - 1;
	}
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (a[i] == a[j])
				return err(r, "[ %s ]: atom %d twice",
				    r->dirname, a[i] + 1);
	return 0;
}

/* Bonded types of the atoms a (n). */
static void
btypes(const struct rd *r, const int *a, int n, int *bt)
{
	for (int i = 0; i < n; i++)
		bt[i] = r->at[r->cur->a[a[i]].type].bt;
}

/* "T1 T2 ..." of the bonded (or atom) types of atoms a, for messages. */
static const char *
type_list(const struct rd *r, const int *a, int n, int byatom, char *buf,
    size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < n && o < size; i++) {
		int ty = r->cur->a[a[i]].type;

		o += snprintf(buf + o, size - o, "%s%s", i ? " " : "",
		    byatom ? r->atn.s[ty] : r->btn.s[r->at[ty].bt]);
	}
	return buf;
}

/* Parameters given on an interaction line (np of them): 0 (none), npa,
 * or npa + npb; state A into p. */
static int
line_params(struct rd *r, char **tok, int np, int npa, int npb, double *p)
{
	double b[MAXP + 1];

	if (np == 0)
		return 0;
	if (np < npa)
		return err(r, "[ %s ]: %d parameters, not enough: expected "
		    "%d or %d (or none, for the types')", r->dirname, np, npa,
		    npa + npb);
	if (np != npa && np != npa + npb)
		return err(r, "[ %s ]: %d parameters, expected %d or %d (or "
		    "none, for the types')", r->dirname, np, npa, npa + npb);
	if (nums(r, tok, np, b) < 0)
		return -1;
	memcpy(p, b, npa * sizeof *p);
	return 0;
}

/* All n parameters 0 (grompp leaves such angles and dihedrals out). */
static int
all_zero(const double *p, int n)
{
	for (int i = 0; i < n; i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

/* Parameters of atoms a (nat) from table tab when the line gave none. */
static int
from_types(struct rd *r, int tab, const int *a, int nat, const char *sect,
    double *p)
{
	const struct pent *e;
	int bt[4];
	char buf[128];

	btypes(r, a, nat, bt);
	e = ptab_find(&r->tab[tab], bt, nat);
	if (e == NULL)
		return err(r, "[ %s ]: no parameters on the line and no "
		    "[ %s ] entry for bonded types %s", r->dirname, sect,
		    type_list(r, a, nat, 0, buf, sizeof buf));
	memcpy(p, e->p, sizeof e->p);
	return 0;
}

static const char *const fname[] = {
	[D_BONDS] = "bonds", [D_PAIRS] = "pairs", [D_ANGLES] = "angles",
	[D_DIHEDRALS] = "dihedrals", [D_CONSTRAINTS] = "constraints",
	[D_SETTLES] = "settles", [D_VSITES3] = "virtual_sites3",
};

/* -1 (65): function type fn of this directive is not one of which. */
static int
unsupported(struct rd *r, long fn, const char *which)
{
	return err(r, "[ %s ]: function type %ld is not supported (only %s)",
	    fname[r->dir], fn, which);
}

/* The 1-4 pair parameters (c6, c12) of atoms i and j of the current
 * molecule without parameters on the line. */
static int
pair_from_types(struct rd *r, int i, int j, double *c6, double *c12)
{
	int ty[2] = { r->cur->a[i].type, r->cur->a[j].type };
	const struct pent *e = ptab_find(&r->tab[TB_PAIR], ty, 2);
	double v, w;
	char buf[128];
	int a[2] = { i, j };

	if (e != NULL) {
		lj_c6c12(r->comb, e->p[0], e->p[1], c6, c12);
		return 0;
	}
	if (!r->genpairs)
		return err(r, "[ pairs ]: no parameters on the line, no "
		    "[ pairtypes ] entry for atom types %s and gen-pairs is "
		    "no", type_list(r, a, 2, 1, buf, sizeof buf));
	e = ptab_find(&r->tab[TB_NB], ty, 2);
	if (e != NULL) {
		v = e->p[0];
		w = e->p[1];
	} else
		lj_combine(r->comb, &r->at[ty[0]], &r->at[ty[1]], &v, &w);
	if (r->comb == 1)
		v *= r->fudge_lj;
	w *= r->fudge_lj;
	lj_c6c12(r->comb, v, w, c6, c12);
	return 0;
}

/* A line of [ bonds ], [ pairs ], [ angles ], [ dihedrals ],
 * [ constraints ], [ settles ] or [ virtual_sites3 ]. */
static int
do_interaction(struct rd *r, int nt)
{
	static const int natoms[] = {
		[D_BONDS] = 2, [D_PAIRS] = 2, [D_ANGLES] = 3,
		[D_DIHEDRALS] = 4, [D_CONSTRAINTS] = 2, [D_SETTLES] = 1,
		[D_VSITES3] = 4,
	};
	struct moltype *m = r->cur;
	char **tok = r->tok;
	int nat = natoms[r->dir], a[4], np;
	double p[MAXP] = { 0 }, q[MAXP];
	long fn = 1;

	if (nt < nat)
		return err(r, "[ %s ]: expected %d atom numbers", r->dirname,
		    nat);
	if (r->dir == D_SETTLES) {
		long o;

		if (inum(r, tok[0], "atom number", LONG_MIN, LONG_MAX, &o) < 0)
			return -1;
		if (o < 1 || o + 2 > m->na)
			return err(r, "[ settles ]: atom index %ld: atoms %ld "
			    "to %ld out of range (1 to %d in molecule type "
			    "%s)", o, o, o + 2, m->na, m->name);
		a[0] = (int)o - 1;
		a[1] = a[0] + 1;
		a[2] = a[0] + 2;
	} else if (atom_ids(r, tok, nat, a) < 0)
		return -1;
	if (nt > nat && inum(r, tok[nat], "function type", LONG_MIN, LONG_MAX,
	    &fn) < 0)
		return -1;
	np = nt > nat + 1 ? nt - nat - 1 : 0;
	tok += nat + 1;

	switch (r->dir) {
	case D_BONDS:
		if (fn == 5) {
			if (np != 0)
				return err(r, "[ bonds ]: function type 5 (a "
				    "connection) takes no parameters");
			pairs_push(&m->bond, &m->nbond, &m->capbond, a[0],
			    a[1]);
			return 0;
		}
		if (fn != 1)
			return unsupported(r, fn, "1, harmonic, and 5, a "
			    "connection");
		if (line_params(r, tok, np, 2, 2, p) < 0 || (np == 0 &&
		    from_types(r, TB_BOND, a, 2, "bondtypes", p) < 0))
			return -1;
		fek_mm_ilist_add(&m->il[FEK_MM_BOND], FEK_MM_BOND, a, p);
		pairs_push(&m->bond, &m->nbond, &m->capbond, a[0], a[1]);
		return 0;
	case D_ANGLES:
		if (fn != 1 && fn != 5)
			return unsupported(r, fn, "1, harmonic, and 5, "
			    "Urey-Bradley");
		if (line_params(r, tok, np, fn == 1 ? 2 : 4, fn == 1 ? 2 : 4,
		    p) < 0 || (np == 0 && from_types(r, fn == 1 ? TB_ANGLE :
		    TB_UB, a, 3, "angletypes", p) < 0))
			return -1;
		if (all_zero(p, fn == 1 ? 2 : 4))
			return 0;
		p[0] *= DEG;
		fek_mm_ilist_add(&m->il[fn == 1 ? FEK_MM_ANGLE : FEK_MM_UB],
		    fn == 1 ? FEK_MM_ANGLE : FEK_MM_UB, a, p);
		return 0;
	case D_DIHEDRALS: {
		int tab, kind, npa, npb, nterm = 1, bt[4];
		const struct pent *e;
		char buf[128];

		switch (fn) {
		case 1:
		case 9:
			tab = TB_PDIH, kind = FEK_MM_PDIH, npa = 3, npb = 2;
			break;
		case 4:
			tab = TB_PIDIH, kind = FEK_MM_PIDIH, npa = 3, npb = 2;
			break;
		case 2:
			tab = TB_IDIH, kind = FEK_MM_IDIH, npa = npb = 2;
			break;
		case 3:
			tab = TB_RB, kind = FEK_MM_RB, npa = npb = 6;
			break;
		default:
			return unsupported(r, fn, "1, 9, proper; 2, harmonic "
			    "improper; 3, Ryckaert-Bellemans; 4, periodic "
			    "improper");
		}
		if (line_params(r, tok, np, npa, npb, p) < 0)
			return -1;
		e = NULL;
		if (np == 0) {
			btypes(r, a, 4, bt);
			e = dih_find(&r->tab[tab], bt, &nterm);
			if (e == NULL)
				return err(r, "[ dihedrals ]: no parameters "
				    "on the line and no [ dihedraltypes ] "
				    "entry of function %ld for bonded types %s",
				    fn == 9 ? 1 : fn, type_list(r, a, 4, 0, buf,
				    sizeof buf));
			/* function 1 takes every term of a 9 block too */
			if (kind != FEK_MM_PDIH)
				nterm = 1;
		}
		for (int k = 0; k < nterm; k++) {
			if (e != NULL)
				memcpy(p, e[k].p, sizeof p);
			/* as grompp: no force constant, no proper dihedral */
			if (npa == 3 ? p[1] == 0 : all_zero(p, npa))
				continue;
			if (npa == 3 && p[2] != floor(p[2]))
				return err(r, "[ dihedrals ]: multiplicity %g "
				    "is not an integer", p[2]);
			memcpy(q, p, sizeof q);
			if (kind != FEK_MM_RB)
				q[0] *= DEG;
			fek_mm_ilist_add(&m->il[kind], kind, a, q);
		}
		return 0;
	}
	case D_PAIRS: {
		double par[3];

		if (fn != 1)
			return unsupported(r, fn, "1");
		if (line_params(r, tok, np, 2, 2, p) < 0)
			return -1;
		if (np > 0) {
			if (r->comb == 1 ? p[0] < 0 || p[1] < 0 : p[1] < 0)
				return err(r, "[ pairs ]: negative %s",
				    r->comb == 1 ? "c6 or c12" : "epsilon");
			lj_c6c12(r->comb, p[0], p[1], &par[0], &par[1]);
		} else if (pair_from_types(r, a[0], a[1], &par[0], &par[1]) < 0)
			return -1;
		par[2] = r->fudge_qq * m->a[a[0]].q * m->a[a[1]].q;
		fek_mm_ilist_add(&m->il[FEK_MM_PAIR], FEK_MM_PAIR, a, par);
		return 0;
	}
	case D_CONSTRAINTS:
		if (fn != 1 && fn != 2)
			return unsupported(r, fn, "1 and 2");
		if (line_params(r, tok, np, 1, 1, p) < 0 || (np == 0 &&
		    from_types(r, fn == 1 ? TB_CONSTR : TB_CONSTRNC, a, 2,
		    "constrainttypes", p) < 0))
			return -1;
		if (!(p[0] > 0))
			return err(r, "[ constraints ]: length %g is not "
			    "positive", p[0]);
		fek_mm_ilist_add(&m->il[FEK_MM_CONSTR], FEK_MM_CONSTR, a, p);
		if (fn == 1)
			pairs_push(&m->bond, &m->nbond, &m->capbond, a[0],
			    a[1]);
		return 0;
	case D_SETTLES:
		if (fn != 1)
			return unsupported(r, fn, "1");
		if (np != 2)
			return err(r, "[ settles ]: expected O funct doh dhh");
		if (nums(r, tok, 2, p) < 0)
			return -1;
		if (!(p[0] > 0 && p[1] > 0))
			return err(r, "[ settles ]: distances %g %g must be "
			    "positive", p[0], p[1]);
		fek_mm_ilist_add(&m->il[FEK_MM_SETTLE], FEK_MM_SETTLE, a, p);
		pairs_push(&m->bond, &m->nbond, &m->capbond, a[0], a[1]);
		pairs_push(&m->bond, &m->nbond, &m->capbond, a[0], a[2]);
		pairs_push(&m->excl, &m->nexcl, &m->capexcl, a[0], a[1]);
		pairs_push(&m->excl, &m->nexcl, &m->capexcl, a[0], a[2]);
		pairs_push(&m->excl, &m->nexcl, &m->capexcl, a[1], a[2]);
		return 0;
	default:	/* D_VSITES3 */
		if (fn != 1)
			return unsupported(r, fn, "1");
		if (np != 2)
			return err(r, "[ virtual_sites3 ]: expected site i j k "
			    "funct a b");
		if (nums(r, tok, 2, p) < 0)
			return -1;
		if (m->a[a[0]].m != 0)
			return err(r, "[ virtual_sites3 ]: the site, atom %d "
			    "(%s), has mass %g: a virtual site has none",
			    a[0] + 1, m->a[a[0]].name, m->a[a[0]].m);
		m->a[a[0]].ptype = 'V';
		fek_mm_ilist_add(&m->il[FEK_MM_VSITE3], FEK_MM_VSITE3, a, p);
		return 0;
	}
}

/* An [ exclusions ] line: the first atom excluded from each of the
 * others (both ways, made so by make_exclusions). */
static int
do_exclusions(struct rd *r, int nt)
{
	int *a = xrealloc(NULL, nt, sizeof *a);
	long v;

	for (int i = 0; i < nt; i++) {
		if (inum(r, r->tok[i], "atom number", LONG_MIN, LONG_MAX,
		    &v) < 0)
			goto fail;
		if (v < 1 || v > r->cur->na) {
			err(r, "[ exclusions ]: atom index %ld out of range "
			    "(1 to %d in molecule type %s)", v, r->cur->na,
			    r->cur->name);
			goto fail;
		}
		a[i] = (int)v - 1;
	}
	for (int i = 1; i < nt; i++)
		if (a[i] != a[0])
			pairs_push(&r->cur->excl, &r->cur->nexcl,
			    &r->cur->capexcl, a[0], a[i]);
	free(a);
	return 0;
fail:
	free(a);
	return -1;
}

/* qsort order of pairs of ints. */
static int
cmp_int2(const void *x, const void *y)
{
	const int *a = x, *b = y;

	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

/* The exclusions of molecule type m: atoms up to nrexcl bonds apart, its
 * [ exclusions ] and settles; each list sorted, without the atom
 * itself. */
static void
make_exclusions(struct moltype *m)
{
	long *start = xrealloc(NULL, m->na + 1, sizeof *start), *fill;
	int *adj, *dist, *queue, *pr = NULL;
	long npr = 0, cappr = 0, o;

	/* neighbours through chemical bonds */
	memset(start, 0, (m->na + 1) * sizeof *start);
	for (long b = 0; b < m->nbond; b++) {
		start[m->bond[2 * b] + 1]++;
		start[m->bond[2 * b + 1] + 1]++;
	}
	for (int i = 0; i < m->na; i++)
		start[i + 1] += start[i];
	adj = xrealloc(NULL, start[m->na], sizeof *adj);
	fill = xrealloc(NULL, m->na + 1, sizeof *fill);
	memcpy(fill, start, (m->na + 1) * sizeof *fill);
	for (long b = 0; b < m->nbond; b++) {
		int i = m->bond[2 * b], j = m->bond[2 * b + 1];

		adj[fill[i]++] = j;
		adj[fill[j]++] = i;
	}
	/* breadth first to depth nrexcl from each atom */
	dist = xrealloc(NULL, m->na, sizeof *dist);
	queue = xrealloc(NULL, m->na, sizeof *queue);
	for (int i = 0; i < m->na; i++)
		dist[i] = -1;
	for (int i = 0; i < m->na && m->nrexcl > 0; i++) {
		int head = 0, tail = 0;

		dist[i] = 0;
		queue[tail++] = i;
		while (head < tail) {
			int u = queue[head++];

			if (dist[u] == m->nrexcl)
				continue;
			for (long k = start[u]; k < start[u + 1]; k++) {
				int v = adj[k];

				if (dist[v] >= 0)
					continue;
				dist[v] = dist[u] + 1;
				queue[tail++] = v;
				pairs_push(&pr, &npr, &cappr, i, v);
			}
		}
		for (int k = 0; k < tail; k++)
			dist[queue[k]] = -1;
	}
	for (long e = 0; e < m->nexcl; e++) {
		pairs_push(&pr, &npr, &cappr, m->excl[2 * e],
		    m->excl[2 * e + 1]);
		pairs_push(&pr, &npr, &cappr, m->excl[2 * e + 1],
		    m->excl[2 * e]);
	}
	if (npr > 0)
		qsort(pr, npr, 2 * sizeof *pr, cmp_int2);
	m->xstart = xrealloc(NULL, m->na + 1, sizeof *m->xstart);
	m->xlist = xrealloc(NULL, npr, sizeof *m->xlist);
	memset(m->xstart, 0, (m->na + 1) * sizeof *m->xstart);
	o = 0;
	for (long e = 0; e < npr; e++) {
		if (e > 0 && pr[2 * e] == pr[2 * e - 2] &&
		    pr[2 * e + 1] == pr[2 * e - 1])
			continue;
		m->xlist[o++] = pr[2 * e + 1];
		m->xstart[pr[2 * e] + 1]++;
	}
	for (int i = 0; i < m->na; i++)
		m->xstart[i + 1] += m->xstart[i];
	free(start);
	free(fill);
	free(adj);
	free(dist);
	free(queue);
	free(pr);
}

/* The current molecule type is complete. */
static void
end_moltype(struct rd *r)
{
	if (r->cur == NULL)
		return;
	make_exclusions(r->cur);
	r->cur = NULL;
}

/* A [ molecules ] line: the molecule type, matched as grompp's push_mol
 * does, and its count appended to the system. */
static int
do_molecules(struct rd *r, int nt)
{
	int k = -1, ncs = 0, nci = 0, kci = -1;
	long n;

	if (nt != 2)
		return err(r, "[ molecules ]: expected name count");
	if (inum(r, r->tok[1], "count", 0, INT_MAX, &n) < 0)
		return -1;
	/* exactly, else without regard to case when that is unique */
	for (int i = 0; i < r->nmt; i++) {
		if (strcmp(r->mt[i].name, r->tok[0]) == 0)
			ncs++, k = i;
		if (strcasecmp(r->mt[i].name, r->tok[0]) == 0)
			nci++, kci = i;
	}
	if (ncs != 1) {
		if (nci > 1)
			return err(r, "[ molecules ]: '%s' matches %d molecule "
			    "types without regard to case, none exactly",
			    r->tok[0], nci);
		if (nci == 0)
			return err(r, "[ molecules ]: no molecule type '%s'",
			    r->tok[0]);
		k = kci;
	}
	if (r->nmols == r->capmols) {
		r->capmols = r->capmols ? 2 * r->capmols : 16;
		r->mols = xrealloc(r->mols, r->capmols, sizeof *r->mols);
	}
	r->mols[r->nmols].mt = k;
	r->mols[r->nmols].n = n;
	r->nmols++;
	return 0;
}

/* ---- directives --------------------------------------------------------- */

/* A "[ name ]" line. */
static int
directive(struct rd *r, char *line)
{
	char *end = strchr(line, ']'), *name;
	enum dir d = D_NONE;
	int typelevel;

	if (end == NULL || end[1 + strspn(end + 1, " \t")] != '\0')
		return err(r, "a directive is '[ name ]', not '%s'", line);
	*end = '\0';
	name = line + 1 + strspn(line + 1, " \t");
	while (end > name && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	for (size_t i = 0; i < sizeof dirtab / sizeof dirtab[0]; i++)
		if (mm_same_min(name, dirtab[i].name)) {
			d = dirtab[i].dir;
			r->dirname = dirtab[i].name;
			break;
		}
	if (d == D_NONE)
		return err(r, "unknown directive [ %s ]", name);
	typelevel = d >= D_DEFAULTS && d <= D_SKIPTYPES;
	if (d == D_DEFAULTS && (r->have_defaults || r->dir != D_NONE))
		return err(r, "[ defaults ] must come first, once");
	if (d != D_DEFAULTS && !r->have_defaults)
		return err(r, "[ %s ] before [ defaults ] (which must come "
		    "first)", r->dirname);
	if (typelevel && (r->nmt > 0 || r->seen_system))
		return err(r, "[ %s ] after the first [ moleculetype ]: "
		    "parameters must come before the molecules (as grompp "
		    "requires)", r->dirname);
	if (d == D_INTERMOL)
		return err(r, "[ intermolecular_interactions ] is not "
		    "supported");
	if (d >= D_ATOMS && d <= D_UNSUPMOL) {
		if (r->cur == NULL)
			return err(r, "[ %s ] outside a [ moleculetype ]",
			    r->dirname);
		if (d != D_ATOMS && r->dir == D_MOLECULETYPE)
			return err(r, "[ %s ] before [ atoms ]", r->dirname);
	}
	if (d == D_MOLECULETYPE || d == D_SYSTEM || d == D_MOLECULES)
		end_moltype(r);
	if (d == D_MOLECULETYPE && r->seen_system)
		return err(r, "[ moleculetype ] after [ system ]");
	if (d == D_SYSTEM) {
		if (r->seen_system)
			return err(r, "a second [ system ]");
		r->seen_system = 1;
	}
	if (d == D_MOLECULES) {
		if (!r->seen_system)
			return err(r, "[ molecules ] before [ system ]");
		if (r->seen_molecules)
			return err(r, "a second [ molecules ]");
		r->seen_molecules = 1;
	}
	r->dir = d;
	return 0;
}

/* A line of data in the current directive. */
static int
data(struct rd *r, char *line)
{
	int nt;

	if (r->dir == D_SYSTEM) {
		/* the title: the last line, as grompp takes it */
		snprintf(r->title, sizeof r->title, "%s", line);
		return 0;
	}
	nt = split(r, line);
	switch (r->dir) {
	case D_NONE:
		/* text before the first directive, such as the banner of
		   the amber force fields' forcefield.itp: grompp skips it */
		return 0;
	case D_DEFAULTS:
		return do_defaults(r, nt);
	case D_ATOMTYPES:
		return do_atomtype(r, nt);
	case D_BONDTYPES:
	case D_CONSTRAINTTYPES:
	case D_PAIRTYPES:
	case D_NONBOND_PARAMS:
		return do_type(r, nt, 2);
	case D_ANGLETYPES:
		return do_type(r, nt, 3);
	case D_DIHEDRALTYPES:
		return do_dihedraltype(r, nt);
	case D_SKIPTYPES:
	case D_SKIPMOL:
		return 0;
	case D_MOLECULETYPE:
		return do_moleculetype(r, nt);
	case D_ATOMS:
		return do_atom(r, nt);
	case D_BONDS:
	case D_PAIRS:
	case D_ANGLES:
	case D_DIHEDRALS:
	case D_CONSTRAINTS:
	case D_SETTLES:
	case D_VSITES3:
		return do_interaction(r, nt);
	case D_EXCLUSIONS:
		return do_exclusions(r, nt);
	case D_CMAP:
		return err(r, "[ cmap ]: CMAP corrections are not supported "
		    "(pdb2gmx -nocmap leaves them out)");
	case D_UNSUPMOL:
		return err(r, "[ %s ] is not supported", r->dirname);
	case D_MOLECULES:
		return do_molecules(r, nt);
	default:
		return err(r, "internal: directive %d", r->dir);
	}
}

/* ---- the flat system ---------------------------------------------------- */

/* The system of [ molecules ] into t (zeroed before): the molecules'
 * atoms, interactions and exclusions one after another, atom indices
 * offset; the atom types used, in order of first use, with their LJ
 * c6/c12.  0, or -1 (65) for no atoms or more than INT_MAX. */
static int
flatten(struct rd *r, struct fek_mm_top *t)
{
	long n = 0, nmol = 0, nx = 0, at = 0, mol = 0;
	long nk[FEK_MM_NKIND] = { 0 };

	for (int b = 0; b < r->nmols; b++) {
		const struct moltype *m = &r->mt[r->mols[b].mt];
		long c = r->mols[b].n;

		if (c > 0 && m->na > (INT_MAX - n) / c)
			return err(r, "the system has more than %d atoms",
			    INT_MAX);
		n += c * m->na;
		nmol += c;
		nx += c * m->xstart[m->na];
		for (int k = 0; k < FEK_MM_NKIND; k++)
			nk[k] += c * m->il[k].n;
	}
	if (n == 0)
		return err(r, "[ molecules ]: the system has no atoms");
	t->n = n;
	t->nmol = nmol;
	t->mass = fek_alloc(n, sizeof *t->mass);
	t->q = fek_alloc(n, sizeof *t->q);
	t->type = fek_alloc(n, sizeof *t->type);
	t->ptype = fek_alloc(n, sizeof *t->ptype);
	t->resnr = fek_alloc(n, sizeof *t->resnr);
	t->resname = fek_alloc(n, sizeof *t->resname);
	t->aname = fek_alloc(n, sizeof *t->aname);
	t->mol = fek_alloc(n, sizeof *t->mol);
	t->xstart = fek_alloc(n + 1, sizeof *t->xstart);
	t->xlist = fek_alloc(nx, sizeof *t->xlist);
	for (int k = 0; k < FEK_MM_NKIND; k++) {
		if (nk[k] == 0)
			continue;
		t->il[k].atoms = fek_alloc(nk[k] * fek_mm_nat[k],
		    sizeof *t->il[k].atoms);
		t->il[k].par = fek_alloc(nk[k] * fek_mm_npar[k],
		    sizeof *t->il[k].par);
		t->il[k].cap = nk[k];
	}
	/* atom types in order of first use */
	for (int b = 0; b < r->nmols; b++) {
		const struct moltype *m = &r->mt[r->mols[b].mt];

		if (r->mols[b].n == 0)
			continue;
		for (int i = 0; i < m->na; i++) {
			struct atype *a = &r->at[m->a[i].type];

			if (a->used < 0)
				a->used = t->ntype++;
		}
	}
	t->tname = fek_alloc(t->ntype, sizeof *t->tname);
	t->c6 = fek_alloc((size_t)t->ntype * t->ntype, sizeof *t->c6);
	t->c12 = fek_alloc((size_t)t->ntype * t->ntype, sizeof *t->c12);
	for (int i = 0; i < r->atn.n; i++) {
		const struct atype *ai = &r->at[i];

		if (ai->used < 0)
			continue;
		snprintf(t->tname[ai->used], sizeof t->tname[0], "%s",
		    r->atn.s[i]);
		for (int j = 0; j < r->atn.n; j++) {
			const struct atype *aj = &r->at[j];
			int ty[2] = { i, j };
			const struct pent *e;
			double v, w;
			size_t o;

			if (aj->used < 0)
				continue;
			e = ptab_find(&r->tab[TB_NB], ty, 2);
			if (e != NULL) {
				v = e->p[0];
				w = e->p[1];
			} else
				lj_combine(r->comb, ai, aj, &v, &w);
			o = (size_t)ai->used * t->ntype + aj->used;
			lj_c6c12(r->comb, v, w, &t->c6[o], &t->c12[o]);
		}
	}
	/* the molecules, one after another */
	for (int b = 0; b < r->nmols; b++) {
		const struct moltype *m = &r->mt[r->mols[b].mt];

		for (long c = 0; c < r->mols[b].n; c++, mol++) {
			for (int i = 0; i < m->na; i++) {
				const struct matom *a = &m->a[i];
				long g = at + i;

				t->mass[g] = a->m;
				t->q[g] = a->q;
				t->type[g] = r->at[a->type].used;
				t->ptype[g] = a->ptype;
				t->resnr[g] = a->resnr;
				memcpy(t->resname[g], a->resname,
				    sizeof t->resname[g]);
				memcpy(t->aname[g], a->name,
				    sizeof t->aname[g]);
				t->mol[g] = (int)mol;
				t->xstart[g + 1] = t->xstart[g] +
				    (m->xstart[i + 1] - m->xstart[i]);
				for (long k = m->xstart[i];
				    k < m->xstart[i + 1]; k++)
					t->xlist[t->xstart[g] + k -
					    m->xstart[i]] = m->xlist[k] +
					    (int)at;
			}
			for (int k = 0; k < FEK_MM_NKIND; k++) {
				const struct fek_mm_ilist *s = &m->il[k];
				struct fek_mm_ilist *d = &t->il[k];
				int na = fek_mm_nat[k], np = fek_mm_npar[k];

				if (s->n == 0)
					continue;
				for (long e = 0; e < s->n * na; e++)
					d->atoms[d->n * na + e] = s->atoms[e] +
					    (int)at;
				memcpy(d->par + d->n * np, s->par,
				    s->n * np * sizeof *s->par);
				d->n += s->n;
			}
			at += m->na;
		}
	}
	t->comb = r->comb;
	t->fudge_lj = r->fudge_lj;
	t->fudge_qq = r->fudge_qq;
	snprintf(t->system, sizeof t->system, "%s", r->title);
	return 0;
}

static void
rd_free(struct rd *r)
{
	for (int i = 0; i < r->nmt; i++) {
		struct moltype *m = &r->mt[i];

		free(m->name);
		free(m->a);
		for (int k = 0; k < FEK_MM_NKIND; k++) {
			free(m->il[k].atoms);
			free(m->il[k].par);
		}
		free(m->bond);
		free(m->excl);
		free(m->xstart);
		free(m->xlist);
	}
	free(r->mt);
	for (int k = 0; k < NTAB; k++)
		free(r->tab[k].e);
	names_free(&r->atn);
	names_free(&r->btn);
	names_free(&r->moln);
	free(r->at);
	free(r->mols);
	free(r->tok);
	mm_cpp_close(r->cpp);
}

int
fek_mm_top_read(struct fek_mm_top *t, const char *path, const char *incdirs,
    const char *defines)
{
	struct rd r;
	char *line;
	int rc;

	memset(t, 0, sizeof *t);
	memset(&r, 0, sizeof r);
	r.cpp = mm_cpp_open(path, incdirs, defines);
	if (r.cpp == NULL)
		return -1;
	r.dirname = "";
	while ((rc = mm_cpp_next(r.cpp, &line)) > 0) {
		if (line[0] == '[')
			rc = directive(&r, line);
		else
			rc = data(&r, line);
		if (rc < 0)
			break;
	}
	if (rc == 0) {
		end_moltype(&r);
		if (!r.seen_molecules)
			rc = err(&r, "no [ molecules ] in the topology");
		else
			rc = flatten(&r, t);
	}
	rd_free(&r);
	if (rc < 0) {
		fek_mm_top_free(t);
		return -1;
	}
	return 0;
}

void
fek_mm_top_free(struct fek_mm_top *t)
{
	free(t->mass);
	free(t->q);
	free(t->type);
	free(t->ptype);
	free(t->resnr);
	free(t->resname);
	free(t->aname);
	free(t->mol);
	free(t->tname);
	free(t->c6);
	free(t->c12);
	for (int k = 0; k < FEK_MM_NKIND; k++) {
		free(t->il[k].atoms);
		free(t->il[k].par);
	}
	free(t->xstart);
	free(t->xlist);
	memset(t, 0, sizeof *t);
}

/* As grompp's make_shake: each bond converted is appended to the
 * constraints (after those of [ constraints ]) with d = b0, and the
 * bonds that stay keep their order. */
void
fek_mm_top_constrain(struct fek_mm_top *t, int mode)
{
	struct fek_mm_ilist *b = &t->il[FEK_MM_BOND];
	long keep = 0;

	if (mode != FEK_MM_CONSTR_HBONDS && mode != FEK_MM_CONSTR_ALLBONDS)
		return;
	for (long e = 0; e < b->n; e++) {
		int *a = b->atoms + 2 * e;
		double *p = b->par + 2 * e;

		/* grompp's is_hydro: the atom name begins with H */
		if (mode == FEK_MM_CONSTR_ALLBONDS ||
		    t->aname[a[0]][0] == 'H' || t->aname[a[1]][0] == 'H') {
			fek_mm_ilist_add(&t->il[FEK_MM_CONSTR], FEK_MM_CONSTR,
			    a, p);
			continue;
		}
		memmove(b->atoms + 2 * keep, a, 2 * sizeof *a);
		memmove(b->par + 2 * keep, p, 2 * sizeof *p);
		keep++;
	}
	b->n = keep;
}
