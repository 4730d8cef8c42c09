/*
 * rxn.c - the reaction criterion of bd-step, as BrownDye's and SDA's
 * atom-pair criteria (Sakalli (2008), Sec. 2.4.1 step 10(b): lists of
 * atom pairs that must come within given distances): a file of contacts,
 * one a line,
 *   SPEC_A SPEC_B     # comment
 * each SPEC a PQR selection (fek_bd_pqr_select: a serial number, or
 * [RESNAME]RESSEQ:NAME[,NAME...]).  A contact is made when any atom it
 * names in solute A is within the reaction distance of any it names in
 * B; the reaction needs a number of contacts at once (Gabdoulline and
 * Wade, Biophys. J. 72, 1917 (1997): two).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "bd/bd.h"

#define RXN_MAXSEL 256		/* atoms one spec may name */

int
fek_bd_rxn_read(const char *path, const struct fek_bd_pqr *A,
    const struct fek_bd_pqr *B, struct fek_bd_rxnset *x)
{
	ssize_t len;
	FILE *fp = fek_open_input(path, "r");
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0;
	int pcap = 0, ccap = 0;

	memset(x, 0, sizeof *x);
	if (fp == NULL)
		return -1;
	while ((len = fek_getline(&line, &cap, fp, FEK_LINE_MAX)) >= 0) {
		char *hash = strchr(line, '#'), *save = NULL, *f[3];
		int nf = 0, sa[RXN_MAXSEL], sb[RXN_MAXSEL], na, nb;

		lineno++;
		if (hash)
			*hash = '\0';
		for (char *t = strtok_r(line, " \t\r\n", &save); t && nf < 3;
		    t = strtok_r(NULL, " \t\r\n", &save))
			f[nf++] = t;
		if (nf == 0)
			continue;
		if (nf != 2) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: a contact is "
			    "two atom selections (solute A's, then B's)",
			    path, lineno);
			goto fail;
		}
		na = fek_bd_pqr_select(A, f[0], sa, RXN_MAXSEL);
		nb = fek_bd_pqr_select(B, f[1], sb, RXN_MAXSEL);
		if (na == RXN_MAXSEL || nb == RXN_MAXSEL) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: a selection "
			    "names %d atoms or more", path, lineno,
			    RXN_MAXSEL);
			goto fail;
		}
		if (na <= 0 || nb <= 0) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: \"%s\" %s in "
			    "solute %s", path, lineno, na <= 0 ? f[0] : f[1],
			    (na <= 0 ? na : nb) < 0 ? "is not a selection "
			    "(SERIAL or [RES]NUM:NAME[,NAME...])" :
			    "names no atom", na <= 0 ? "A" : "B");
			goto fail;
		}
		if (x->ncontact + 1 >= ccap) {
			ccap = ccap ? 2 * ccap : 16;
			x->gstart = realloc(x->gstart, (ccap + 1) *
			    sizeof *x->gstart);
			x->label = realloc(x->label, ccap * sizeof *x->label);
			if (x->gstart == NULL || x->label == NULL) {
				fek_seterr(FEK_EX_SOFTWARE, "out of memory");
				goto fail;
			}
		}
		if (x->npair + na * nb > pcap) {
			while (x->npair + na * nb > pcap)
				pcap = pcap ? 2 * pcap : 256;
			x->ia = realloc(x->ia, pcap * sizeof *x->ia);
			x->ib = realloc(x->ib, pcap * sizeof *x->ib);
			if (x->ia == NULL || x->ib == NULL) {
				fek_seterr(FEK_EX_SOFTWARE, "out of memory");
				goto fail;
			}
		}
		x->gstart[x->ncontact] = x->npair;
		for (int i = 0; i < na; i++)
			for (int j = 0; j < nb; j++) {
				x->ia[x->npair] = sa[i];
				x->ib[x->npair] = sb[j];
				x->npair++;
			}
		x->label[x->ncontact] = fek_alloc(strlen(f[0]) +
		    strlen(f[1]) + 2, 1);
		sprintf(x->label[x->ncontact], "%s %s", f[0], f[1]);
		x->ncontact++;
		x->gstart[x->ncontact] = x->npair;
	}
	if (len != FEK_LINE_EOF) {
		fek_getline_err(len, FEK_LINE_MAX, path, lineno + 1);
		goto fail;
	}
	if (x->ncontact == 0) {
		fek_seterr(FEK_EX_DATA, "%s: no contacts", path);
		goto fail;
	}
	free(line);
	fclose(fp);
	return 0;
fail:
	free(line);
	fclose(fp);
	fek_bd_rxn_free(x);
	return -1;
}

void
fek_bd_rxn_free(struct fek_bd_rxnset *x)
{
	for (int c = 0; c < x->ncontact && x->label; c++)
		free(x->label[c]);
	free(x->label);
	free(x->gstart);
	free(x->ia);
	free(x->ib);
	memset(x, 0, sizeof *x);
}
