/*
 * expr.c - analytic formulas given on the command line (a PMF in x, y, z
 * or x1..xn), parsed, evaluated and differentiated symbolically by GNU
 * libmatheval.  Constants such as pi and e are libmatheval's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <matheval.h>

#include "fek.h"

#define EXPR_MAXVAR 64

struct fek_expr {
	void *ev;			/* the evaluator */
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
	for (i = 0; i < e->nvar; i++) {
		e->vals[i] = x[e->dim[i]];
		if (e->deriv[i] == NULL) {
			e->deriv[i] = evaluator_derivative(e->ev, e->names[i]);
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
	evaluator_destroy(e->ev);
	free(e);
}
