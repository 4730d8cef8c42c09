/*
 * blocking.c - Flyvbjerg-Petersen block averaging (J. Chem. Phys. 91, 461
 * (1989), Eqs. 20-28) with Jonsson's automated choice of the block size
 * (Phys. Rev. E 98, 043304 (2018), Eq. 22).
 *
 * Level 0 is the series itself; level k+1 averages neighbouring pairs of
 * level k.  At each level with n >= 2 values
 *
 *   c0    = (1/n) sum (x_i - xbar)^2
 *   var   = c0 / (n - 1)                 variance of the mean (FP Eq. 27)
 *   err   = var sqrt(2 / (n - 1))        its standard error (FP Eq. 28)
 *   rho1  = (1/n) sum (x_i - xbar)(x_{i+1} - xbar) / c0
 *
 * and Jonsson's statistic M_j = sum_{k >= j} n_k rho1_k^2, which is
 * chi^2 with (levels - j) degrees of freedom when the block means of
 * levels j, j+1, ... are uncorrelated.  The chosen level is the smallest
 * j with M_j below the 99 % quantile.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "core/blocking.h"
#include "core/fek.h"

void
fek_blocking(const double *x, long n, struct fek_blocking *b)
{
	double *y, m, c0, c1, M;
	long i;
	int k, j;

	memset(b, 0, sizeof *b);
	b->var = HUGE_VAL;
	if (n < 2)
		return;
	y = fek_alloc((size_t)n, sizeof *y);
	memcpy(y, x, (size_t)n * sizeof *y);
	for (k = 0; n >= 2 && k < FEK_BLOCK_MAXLEV; k++) {
		struct fek_block_level *L = &b->lev[k];

		for (m = 0, i = 0; i < n; i++)
			m += y[i];
		m /= n;
		for (c0 = c1 = 0, i = 0; i < n; i++) {
			c0 += (y[i] - m) * (y[i] - m);
			if (i + 1 < n)
				c1 += (y[i] - m) * (y[i + 1] - m);
		}
		c0 /= n;
		c1 /= n;
		L->size = 1L << k;
		L->nblocks = n;
		L->var = c0 / (n - 1);
		L->var_err = L->var * sqrt(2.0 / (n - 1));
		L->rho1 = c0 > 0 ? c1 / c0 : 0;
		/* the blocking transformation: pair means, odd value dropped */
		for (i = 0; i + 1 < n; i += 2)
			y[i / 2] = 0.5 * (y[i] + y[i + 1]);
		n /= 2;
	}
	b->nlev = k;
	free(y);
	b->chosen = b->nlev - 1;
	for (j = 0; j < b->nlev; j++) {
		for (M = 0, k = j; k < b->nlev; k++)
			M += b->lev[k].nblocks * b->lev[k].rho1 * b->lev[k].rho1;
		if (M < gsl_cdf_chisq_Qinv(0.01, b->nlev - j)) {
			b->chosen = j;
			break;
		}
	}
	b->var = b->lev[b->chosen].var;
}
