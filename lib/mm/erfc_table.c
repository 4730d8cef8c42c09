/*
 * erfc_table.c - the table of erfc_table.h: erfc and h erfc' at the nodes
 * i h (libm's erfc and exp).
 */
#include <math.h>
#include <stdlib.h>

#include "core/fek.h"
#include "mm/erfc_table.h"

void
fek_erfc_table_new(struct fek_erfc_table *t, double xmax)
{
	const double h = 1.0 / FEK_ERFC_TABLE_STEPS;

	t->ih = FEK_ERFC_TABLE_STEPS;
	t->n = (int)ceil(xmax * FEK_ERFC_TABLE_STEPS);
	if (t->n < 1)
		t->n = 1;
	t->xmax = t->n * h;
	t->v = fek_alloc(2 * ((size_t)t->n + 1), sizeof *t->v);
	for (int i = 0; i <= t->n; i++) {
		double x = i * h;

		t->v[2 * i] = erfc(x);
		t->v[2 * i + 1] = -h * M_2_SQRTPI * exp(-x * x);
	}
}

void
fek_erfc_table_free(struct fek_erfc_table *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}
