/*
 * blocking.h - the standard error of the mean of a correlated series by
 * block averaging: Flyvbjerg & Petersen, J. Chem. Phys. 91, 461 (1989),
 * Eqs. 20-28 (the blocking transformation and the variance estimate
 * c0/(n-1) with its own error), with the block size chosen by the
 * automated test of Jonsson, Phys. Rev. E 98, 043304 (2018), Eq. 22: the
 * smallest level j whose lag-1 autocorrelations at levels j, j+1, ... are
 * jointly consistent with zero (M_j below the 99 % quantile of chi^2 with
 * as many degrees of freedom as levels).
 */
#ifndef FEK_BLOCKING_H
#define FEK_BLOCKING_H

#define FEK_BLOCK_MAXLEV 64

struct fek_block_level {
	long size;		/* samples per block: 2^level */
	long nblocks;		/* blocks at this level (>= 2) */
	double var;		/* variance of the mean: c0 / (n - 1) */
	double var_err;		/* its standard error: var sqrt(2 / (n - 1)) */
	double rho1;		/* lag-1 autocorrelation of the block means */
};

struct fek_blocking {
	int nlev;		/* levels with at least 2 blocks */
	struct fek_block_level lev[FEK_BLOCK_MAXLEV];
	int chosen;		/* the level of Jonsson's test */
	double var;		/* lev[chosen].var; +inf for n < 2 */
};

/* Block the series x[0..n-1] (the last value of an odd level is dropped,
 * as Flyvbjerg and Petersen do).  n < 2 gives nlev = 0 and var = +inf
 * (one value says nothing about its spread). */
void	fek_blocking(const double *x, long n, struct fek_blocking *b);

#endif
