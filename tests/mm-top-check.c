/*
 * mm-top-check.c - lib/mm's topology and .mdp readers (top.c, cpp.c,
 * mdp.c) as plain text, for tests/mm-top.sh:
 *
 *   mm-top-check [-c none|h-bonds|all-bonds] [-D defines] [-I dirs] file.top
 *   mm-top-check -m file.mdp
 *
 * -D: "-DNAME[=VALUE] ..." as mdp define; -I: ':'-separated include
 * directories; -c: fek_mm_top_constrain's mode.  Output, numbers in
 * %.10g, atom indices from 0:
 *
 *   system TITLE
 *   defaults COMB FUDGELJ FUDGEQQ
 *   atoms N molecules M
 *   atom I NAME RESNAME RESNR TYPENAME MASS CHARGE PTYPE MOL
 *   types K
 *   type K NAME
 *   lj NAME_I NAME_J C6 C12              (I <= J)
 *   count KIND N                         (every kind)
 *   KIND A1 .. AN P1 .. PM               (every interaction)
 *   excl I J1 J2 ...                     (every atom)
 *
 * KIND is BOND ANGLE UB PDIH PIDIH RB IDIH PAIR CONSTR SETTLE VSITE3.
 * With -m, one "key value" line per option of struct fek_mm_opt.
 * On error: "mm-top-check: MESSAGE" on stderr, exit status fek_errcode().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fek.h"
#include "mm/mm.h"

static const char *const kind_name[FEK_MM_NKIND] = {
	"BOND", "ANGLE", "UB", "PDIH", "PIDIH", "RB", "IDIH", "PAIR",
	"CONSTR", "SETTLE", "VSITE3",
};

static void
usage(void)
{
	fprintf(stderr, "usage: mm-top-check [-c none|h-bonds|all-bonds] "
	    "[-D defines] [-I dirs] file.top\n"
	    "       mm-top-check -m file.mdp\n");
	exit(FEK_EX_USAGE);
}

static void
print_top(const struct fek_mm_top *t)
{
	printf("system %s\n", t->system);
	printf("defaults %d %.10g %.10g\n", t->comb, t->fudge_lj, t->fudge_qq);
	printf("atoms %ld molecules %ld\n", t->n, t->nmol);
	for (long i = 0; i < t->n; i++)
		printf("atom %ld %s %s %d %s %.10g %.10g %c %d\n", i,
		    t->aname[i], t->resname[i], t->resnr[i],
		    t->tname[t->type[i]], t->mass[i], t->q[i], t->ptype[i],
		    t->mol[i]);
	printf("types %d\n", t->ntype);
	for (int k = 0; k < t->ntype; k++)
		printf("type %d %s\n", k, t->tname[k]);
	for (int i = 0; i < t->ntype; i++)
		for (int j = i; j < t->ntype; j++)
			printf("lj %s %s %.10g %.10g\n", t->tname[i],
			    t->tname[j], t->c6[i * t->ntype + j],
			    t->c12[i * t->ntype + j]);
	for (int k = 0; k < FEK_MM_NKIND; k++)
		printf("count %s %ld\n", kind_name[k], t->il[k].n);
	for (int k = 0; k < FEK_MM_NKIND; k++) {
		const struct fek_mm_ilist *il = &t->il[k];
		int na = fek_mm_nat[k], np = fek_mm_npar[k];

		for (long e = 0; e < il->n; e++) {
			printf("%s", kind_name[k]);
			for (int a = 0; a < na; a++)
				printf(" %d", il->atoms[e * na + a]);
			for (int p = 0; p < np; p++)
				printf(" %.10g", il->par[e * np + p]);
			printf("\n");
		}
	}
	for (long i = 0; i < t->n; i++) {
		printf("excl %ld", i);
		for (long k = t->xstart[i]; k < t->xstart[i + 1]; k++)
			printf(" %d", t->xlist[k]);
		printf("\n");
	}
}

static void
print_opt(const struct fek_mm_opt *o)
{
	static const char *const coul[] = { "cut-off", "reaction-field",
	    "pme" };
	static const char *const disp[] = { "no", "ener", "enerpres" };
	static const char *const constr[] = { "none", "h-bonds",
	    "all-bonds" };

	printf("integrator %s\n", o->integrator);
	printf("tinit %.10g\ndt %.10g\nnsteps %ld\n", o->tinit, o->dt,
	    o->nsteps);
	printf("coulombtype %s\n", coul[o->coulombtype]);
	printf("coulomb-modifier %s\n", o->coul_shift ? "potential-shift" :
	    "none");
	printf("vdw-modifier %s\n", o->vdw_shift ? "potential-shift" :
	    "none");
	printf("rcoulomb %.10g\nrvdw %.10g\n", o->rcoulomb, o->rvdw);
	printf("epsilon-r %.10g\nepsilon-rf %.10g\n", o->epsilon_r,
	    o->epsilon_rf);
	printf("ewald-rtol %.10g\npme-order %d\n", o->ewald_rtol,
	    o->pme_order);
	printf("fourierspacing %.10g\n", o->fourierspacing);
	printf("fourier-n %d %d %d\n", o->fourier_n[0], o->fourier_n[1],
	    o->fourier_n[2]);
	printf("dispcorr %s\n", disp[o->dispcorr]);
	printf("constraints %s\n", constr[o->constraints]);
	printf("define %s\ninclude %s\n", o->define, o->include);
	printf("ref-t %.10g\ntau-t %.10g\n", o->ref_t, o->tau_t);
	printf("ref-p %.10g\ntau-p %.10g\ncompressibility %.10g\n", o->ref_p,
	    o->tau_p, o->compressibility);
	printf("tcoupl %s\npcoupl %s\n", o->tcoupl, o->pcoupl);
}

int
main(int argc, char **argv)
{
	const char *defines = NULL, *incdirs = NULL, *mdp = NULL;
	int ch, mode = FEK_MM_CONSTR_NONE;

	fek_setprogname(argv[0]);
	while ((ch = getopt(argc, argv, "c:D:I:m:")) != -1) {
		switch (ch) {
		case 'c':
			if (strcmp(optarg, "none") == 0)
				mode = FEK_MM_CONSTR_NONE;
			else if (strcmp(optarg, "h-bonds") == 0)
				mode = FEK_MM_CONSTR_HBONDS;
			else if (strcmp(optarg, "all-bonds") == 0)
				mode = FEK_MM_CONSTR_ALLBONDS;
			else
				usage();
			break;
		case 'D':
			defines = optarg;
			break;
		case 'I':
			incdirs = optarg;
			break;
		case 'm':
			mdp = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (mdp != NULL) {
		struct fek_mm_opt o;

		if (argc != 0)
			usage();
		fek_mm_opt_default(&o);
		if (fek_mm_opt_read(&o, mdp) < 0)
			fek_die();
		print_opt(&o);
	} else {
		struct fek_mm_top t;

		if (argc != 1)
			usage();
		if (fek_mm_top_read(&t, argv[0], incdirs, defines) < 0)
			fek_die();
		fek_mm_top_constrain(&t, mode);
		print_top(&t);
		fek_mm_top_free(&t);
	}
	fek_fshut(stdout, "stdout");
	return 0;
}
