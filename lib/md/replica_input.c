/*
 * replica_input.c - md-gpu's small inputs: point milestones (-M), start points
 * (-x), and text tables of anchors or anchor pairs (-A, -I).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md/replica.h"

int
fek_md_parse_points(const char *arg, double **out, int *n)
{
	char *copy, *p, *end;
	double v[3], *m;
	int k = 0, cap = 16;

	if (strchr(arg, ':') != NULL) {
		copy = strdup(arg);
		for (p = copy; k < 3; k++) {
			v[k] = strtod(p, &end);
			if (end == p || !isfinite(v[k]) || (k < 2 ? *end != ':'
			    : *end != '\0'))
				break;
			p = end + 1;
		}
		free(copy);
		if (k != 3 || !(v[2] > 0) || !(v[1] >= v[0]))
			return fek_seterr(FEK_EX_USAGE, "-M: '%s' is not "
			    "lo:hi:step with lo <= hi and step > 0", arg);
		if ((v[1] - v[0]) / v[2] >= 100000)
			return fek_seterr(FEK_EX_USAGE, "-M: '%s': more than "
			    "100000 milestones", arg);
		*n = (int)floor((v[1] - v[0]) / v[2] + 1e-9) + 1;
		*out = m = fek_alloc(*n, sizeof *m);
		for (k = 0; k < *n; k++)
			m[k] = v[0] + k * v[2];
		return 0;
	}
	m = fek_alloc(cap, sizeof *m);
	for (p = (char *)arg;; p = end + 1) {
		if (k == cap && (m = realloc(m, (cap *= 2) * sizeof *m)) == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
		m[k] = strtod(p, &end);
		if (end == p || !isfinite(m[k]) || (*end && *end != ',')) {
			free(m);
			return fek_seterr(FEK_EX_USAGE, "-M: '%s' is not a list "
			    "of numbers", arg);
		}
		if (k > 0 && !(m[k] > m[k - 1])) {
			free(m);
			return fek_seterr(FEK_EX_USAGE, "-M: '%s': milestones "
			    "must increase", arg);
		}
		k++;
		if (*end == '\0')
			break;
	}
	*out = m;
	*n = k;
	return 0;
}

int
fek_md_parse_point(const char *arg, int D, double *x)
{
	const char *p = arg;
	char *end;

	for (int d = 0; d < D; d++) {
		x[d] = strtod(p, &end);
		if (end == p || !isfinite(x[d]) || (d < D - 1 ? *end != ',' :
		    *end != '\0'))
			return fek_seterr(FEK_EX_USAGE, "-x: '%s' is not %d "
			    "comma-separated numbers", arg, D);
		p = end + 1;
	}
	return 0;
}

double *
fek_md_load_table(const char *path, int ncol, const char *what, long *n)
{
	ssize_t len;
	FILE *fp = fek_open_input(path, "r");
	char *line = NULL, *p, *end;
	size_t cap = 0;
	long lineno = 0, rows = 0, alloc = 16;
	double *v;

	if (fp == NULL)
		return NULL;
	v = fek_alloc(alloc * ncol, sizeof *v);
	while ((len = fek_getline(&line, &cap, fp, FEK_LINE_MAX)) >= 0) {
		lineno++;
		p = line + strspn(line, " \t\r\n");
		if (*p == '\0' || *p == '#')
			continue;
		if (rows == alloc && (v = realloc(v, (alloc *= 2) * ncol *
		    sizeof *v)) == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
		for (int k = 0; k < ncol; k++) {
			p += strspn(p, " \t");
			v[rows * ncol + k] = strtod(p, &end);
			if (end == p || !isfinite(v[rows * ncol + k]) ||
			    (*end && !strchr(" \t\r\n", *end))) {
				fek_seterr(FEK_EX_DATA, "%s: line %ld: field "
				    "%d: expected %d numbers per line (%s)",
				    path, lineno, k + 1, ncol, what);
				goto bad;
			}
			p = end;
		}
		p += strspn(p, " \t\r\n");
		if (*p != '\0' && *p != '#') {
			fek_seterr(FEK_EX_DATA, "%s: line %ld: more than %d "
			    "numbers (%s)", path, lineno, ncol, what);
			goto bad;
		}
		rows++;
	}
	if (len != FEK_LINE_EOF) {
		fek_getline_err(len, FEK_LINE_MAX, path, lineno + 1);
		goto bad;
	}
	if (rows == 0) {
		fek_seterr(FEK_EX_DATA, "%s: no %s", path, what);
		goto bad;
	}
	fclose(fp);
	free(line);
	*n = rows;
	return v;
bad:
	fclose(fp);
	free(line);
	free(v);
	return NULL;
}
