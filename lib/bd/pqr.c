/*
 * pqr.c - PQR files (pdb2pqr, APBS): PDB ATOM/HETATM records whose
 * occupancy and temperature-factor columns hold the charge (e) and the
 * radius (A), read as whitespace-separated fields (pdb2pqr's own rule:
 * serial, atom name, residue name, optional chain, residue number, x, y,
 * z, charge, radius).  Sakalli (2008), Sec. 2.4.1, step 2: the charges
 * and coordinates of both solutes.  Also the atom selections of the
 * reaction criterion.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fek.h"
#include "bd/bd.h"

#define PQR_MAXF 16

static int
pqr_number(const char *s, double *v)
{
	char *e;

	errno = 0;
	*v = strtod(s, &e);
	return e != s && *e == '\0' && isfinite(*v);
}

static int
pqr_integer(const char *s, long *v)
{
	char *e;

	errno = 0;
	*v = strtol(s, &e, 10);
	return e != s && *e == '\0' && errno == 0;
}

int
fek_bd_pqr_read(const char *path, struct fek_bd_pqr *m)
{
	ssize_t len;
	FILE *fp = fek_open_input(path, "r");
	char *line = NULL;
	size_t cap = 0;
	long lineno = 0, ncap = 0;

	memset(m, 0, sizeof *m);
	if (fp == NULL)
		return -1;
	while ((len = fek_getline(&line, &cap, fp, FEK_LINE_MAX)) >= 0) {
		char *f[PQR_MAXF], *save = NULL, *t;
		int nf = 0;
		struct fek_bd_atom *a;
		double v[5];

		lineno++;
		if (strncmp(line, "ATOM", 4) != 0 &&
		    strncmp(line, "HETATM", 6) != 0)
			continue;
		for (t = strtok_r(line, " \t\r\n", &save); t != NULL &&
		    nf < PQR_MAXF; t = strtok_r(NULL, " \t\r\n", &save))
			f[nf++] = t;
		if (nf < 10 || nf > 11) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: %d fields; a "
			    "PQR atom has 10 or 11 (record, serial, name, "
			    "residue, [chain,] number, x, y, z, charge, "
			    "radius)", path, lineno, nf);
			goto fail;
		}
		if (m->n == ncap) {
			ncap = ncap ? 2 * ncap : 1024;
			a = realloc(m->atom, ncap * sizeof *a);
			if (a == NULL) {
				fek_seterr(FEK_EX_SOFTWARE, "%s: out of memory",
				    path);
				goto fail;
			}
			m->atom = a;
		}
		a = &m->atom[m->n];
		memset(a, 0, sizeof *a);
		for (int k = 0; k < 5; k++)
			if (!pqr_number(f[nf - 5 + k], &v[k])) {
				fek_seterr(FEK_EX_DATA, "%s: line %ld: %s "
				    "\"%s\" is not a finite number", path,
				    lineno, k < 3 ? "coordinate" : k == 3 ?
				    "charge" : "radius", f[nf - 5 + k]);
				goto fail;
			}
		if (v[4] < 0.0) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: negative radius "
			    "%g", path, lineno, v[4]);
			goto fail;
		}
		if (!pqr_integer(f[1], &a->serial) ||
		    !pqr_integer(f[nf - 6], &a->resseq)) {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: the serial and "
			    "residue numbers must be integers", path, lineno);
			goto fail;
		}
		snprintf(a->name, sizeof a->name, "%s", f[2]);
		snprintf(a->resname, sizeof a->resname, "%s", f[3]);
		a->x[0] = v[0];
		a->x[1] = v[1];
		a->x[2] = v[2];
		a->q = v[3];
		a->r = v[4];
		m->n++;
	}
	if (len != FEK_LINE_EOF) {
		fek_getline_err(len, FEK_LINE_MAX, path, lineno + 1);
		goto fail;
	}
	if (m->n == 0) {
		fek_seterr(FEK_EX_DATA, "%s: no ATOM or HETATM records", path);
		goto fail;
	}
	free(line);
	fclose(fp);
	return 0;
fail:
	free(line);
	fclose(fp);
	fek_bd_pqr_free(m);
	return -1;
}

void
fek_bd_pqr_free(struct fek_bd_pqr *m)
{
	free(m->atom);
	m->atom = NULL;
	m->n = 0;
}

int
fek_bd_pqr_select(const struct fek_bd_pqr *m, const char *spec, int *idx,
    int max)
{
	char res[16] = "", names[256];
	const char *colon = strchr(spec, ':');
	long resseq, serial;
	int n = 0;

	if (colon == NULL) {
		if (!pqr_integer(spec, &serial))
			return -1;
		for (long i = 0; i < m->n; i++)
			if (m->atom[i].serial == serial && n < max)
				idx[n++] = (int)i;
		return n;
	}
	{
		/* [RESNAME]RESSEQ before the colon */
		size_t len = (size_t)(colon - spec), k = 0;
		char num[32];

		if (len == 0 || len >= sizeof num)
			return -1;
		while (k < len && isalpha((unsigned char)spec[k]))
			k++;
		if (k >= sizeof res)
			return -1;
		memcpy(res, spec, k);
		res[k] = '\0';
		memcpy(num, spec + k, len - k);
		num[len - k] = '\0';
		if (!pqr_integer(num, &resseq))
			return -1;
	}
	if (snprintf(names, sizeof names, "%s", colon + 1) >=
	    (int)sizeof names || names[0] == '\0')
		return -1;
	for (long i = 0; i < m->n; i++) {
		const struct fek_bd_atom *a = &m->atom[i];
		char copy[256], *save = NULL;

		if (a->resseq != resseq || (res[0] != '\0' &&
		    strcasecmp(res, a->resname) != 0))
			continue;
		memcpy(copy, names, sizeof copy);
		for (char *t = strtok_r(copy, ",", &save); t != NULL;
		    t = strtok_r(NULL, ",", &save))
			if (strcmp(t, a->name) == 0 && n < max) {
				idx[n++] = (int)i;
				break;
			}
	}
	return n;
}
