/*
 * expr.c - analytic formulas given on the command line (a PMF in x, y, z
 * or x1..xn), parsed, evaluated and differentiated symbolically by GNU
 * libmatheval.  Constants such as pi and e are libmatheval's.
 *
 * libmatheval 1.1.11 differentiates two functions wrongly: asinh(u) as
 * u'/sqrt(1-u^2) (it is u'/sqrt(1+u^2)) and acoth(u) as u'/(u^2-1) (it is
 * u'/(1-u^2)).  Derivatives are therefore taken of the formula with those
 * two written as logarithms, asinh(u) = log(u + sqrt(u^2 + 1)) and
 * acoth(u) = 1/2 log((u + 1)/(u - 1)); values still come from the text
 * as given.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <matheval.h>

#include "core/fek.h"

#define EXPR_MAXVAR 64

struct fek_expr {
	void *ev;			/* the evaluator */
	void *dev;			/* the one derivatives come from */
	char *text;			/* the formula as given */
	void *deriv[EXPR_MAXVAR];	/* d/d(variable), built on demand */
	int ndim;
	int nvar;			/* variables used by the formula */
	char *names[EXPR_MAXVAR];	/* owned by the evaluator */
	int dim[EXPR_MAXVAR];		/* coordinate index of each variable */
	double vals[EXPR_MAXVAR];
};

/* Coordinate index of a variable name, or -1. */
static int
var_dim(const char *name, int ndim)
{
	static const char *xyz[] = { "x", "y", "z" };
	char *end;
	long k;
	int i;

	if (ndim <= 3)
		for (i = 0; i < ndim; i++)
			if (strcmp(name, xyz[i]) == 0)
				return i;
	if (name[0] == 'x' && name[1] >= '1' && name[1] <= '9') {
		k = strtol(name + 1, &end, 10);
		if (*end == '\0' && k >= 1 && k <= ndim)
			return (int)k - 1;
	}
	return -1;
}

/* A growing string. */
static void
put(char **s, size_t *len, size_t *cap, const char *p, size_t n)
{
	if (*len + n + 1 > *cap) {
		*cap = 2 * (*len + n + 1);
		if ((*s = realloc(*s, *cap)) == NULL)
			fek_errx(FEK_EX_SOFTWARE, "out of memory");
	}
	memcpy(*s + *len, p, n);
	*len += n;
	(*s)[*len] = '\0';
}

/* text[0 .. n) with asinh(u) and acoth(u) written as logarithms (see
 * the top of the file); appended to *s.  Unbalanced parentheses are
 * copied as they are (libmatheval has accepted the text already). */
static void
rewrite(const char *t, size_t n, char **s, size_t *len, size_t *cap)
{
	size_t i = 0;

	while (i < n) {
		size_t k = i, a, depth;
		int is_asinh;

		if (!(isalpha((unsigned char)t[i]) || t[i] == '_')) {
			put(s, len, cap, t + i, 1);
			i++;
			continue;
		}
		while (k < n && (isalnum((unsigned char)t[k]) || t[k] == '_'))
			k++;
		is_asinh = k - i == 5 && strncmp(t + i, "asinh", 5) == 0;
		a = k;
		while (a < n && (t[a] == ' ' || t[a] == '\t'))
			a++;
		if (!(is_asinh || (k - i == 5 && strncmp(t + i, "acoth",
		    5) == 0)) || a == n || t[a] != '(') {
			put(s, len, cap, t + i, k - i);
			i = k;
			continue;
		}
		for (depth = 0, k = a; k < n; k++)
			if (t[k] == '(')
				depth++;
			else if (t[k] == ')' && --depth == 0)
				break;
		if (k == n) {
			put(s, len, cap, t + i, n - i);
			return;
		}
		/* u is t[a .. k], parentheses included */
		put(s, len, cap, is_asinh ? "(log(" : "(0.5*log((",
		    is_asinh ? 5 : 10);
		rewrite(t + a, k + 1 - a, s, len, cap);
		put(s, len, cap, is_asinh ? "+sqrt(" : "+1)/(",
		    is_asinh ? 6 : 5);
		rewrite(t + a, k + 1 - a, s, len, cap);
		put(s, len, cap, is_asinh ? "^2+1)))" : "-1)))",
		    is_asinh ? 7 : 5);
		i = k + 1;
	}
}

fek_expr *
fek_expr_parse(const char *text, int ndim)
{
	fek_expr *e;
	char *copy, **names;
	int i, count;

	if (text == NULL || text[0] == '\0') {
		fek_seterr(FEK_EX_USAGE, "empty formula");
		return NULL;
	}
	copy = strdup(text);
	if (copy == NULL)
		fek_errx(FEK_EX_SOFTWARE, "out of memory");
	e = fek_alloc(1, sizeof *e);
	e->ndim = ndim;
	e->ev = evaluator_create(copy);
	free(copy);
	if (e->ev == NULL) {
		free(e);
		fek_seterr(FEK_EX_USAGE, "'%s': not a formula libmatheval can "
		    "parse", text);
		return NULL;
	}
	evaluator_get_variables(e->ev, &names, &count);
	if (count > EXPR_MAXVAR) {
		fek_expr_free(e);
		fek_seterr(FEK_EX_USAGE, "'%s': too many variables", text);
		return NULL;
	}
	for (i = 0; i < count; i++) {
		e->names[i] = names[i];
		e->dim[i] = var_dim(names[i], ndim);
		if (e->dim[i] < 0) {
			fek_seterr(FEK_EX_USAGE, "'%s': unknown variable '%s' "
			    "(this formula has %d dimension%s: %s)", text,
			    names[i], ndim, ndim == 1 ? "" : "s",
			    ndim == 1 ? "x" : ndim == 2 ? "x, y" :
			    ndim == 3 ? "x, y, z" : "x1..xn");
			fek_expr_free(e);
			return NULL;
		}
	}
	e->nvar = count;
	e->text = strdup(text);
	return e;
}

double
fek_expr_eval(fek_expr *e, const double *x)
{
	int i;

	for (i = 0; i < e->nvar; i++)
		e->vals[i] = x[e->dim[i]];
	return evaluator_evaluate(e->ev, e->nvar, e->names, e->vals);
}

int
fek_expr_grad(fek_expr *e, const double *x, double *grad)
{
	int i;

	for (i = 0; i < e->ndim; i++)
		grad[i] = 0;
	if (e->dev == NULL && e->nvar > 0) {
		char *t = NULL;
		size_t len = 0, cap = 0;

		rewrite(e->text, strlen(e->text), &t, &len, &cap);
		e->dev = t ? evaluator_create(t) : NULL;
		free(t);
		if (e->dev == NULL)
			return fek_seterr(FEK_EX_SOFTWARE, "cannot "
			    "differentiate the formula");
	}
	for (i = 0; i < e->nvar; i++) {
		e->vals[i] = x[e->dim[i]];
		if (e->deriv[i] == NULL) {
			e->deriv[i] = evaluator_derivative(e->dev, e->names[i]);
			if (e->deriv[i] == NULL)
				return fek_seterr(FEK_EX_SOFTWARE, "cannot "
				    "differentiate the formula by %s",
				    e->names[i]);
		}
	}
	for (i = 0; i < e->nvar; i++)
		grad[e->dim[i]] += evaluator_evaluate(e->deriv[i], e->nvar,
		    e->names, e->vals);
	return 0;
}

int
fek_expr_ndim(const fek_expr *e)
{
	return e->ndim;
}

void
fek_expr_free(fek_expr *e)
{
	int i;

	if (e == NULL)
		return;
	for (i = 0; i < EXPR_MAXVAR; i++)
		if (e->deriv[i])
			evaluator_destroy(e->deriv[i]);
	if (e->dev)
		evaluator_destroy(e->dev);
	evaluator_destroy(e->ev);
	free(e->text);
	free(e);
}
