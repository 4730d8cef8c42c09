/*
 * milestone-gen.c - synthetic Milestoning trajectory records drawn from a
 * known kernel K and exponential lifetimes, for tests/milestone.sh and
 * scripts/bench-milestone: the fek(5) trajectories kind, text twin or
 * binary.
 *
 *   milestone-gen [-b] [-i invalid] [-l limited] [-u unit] MODEL N SEED
 *
 * MODEL holds "K i j value" and "tau i value" lines (# comments).  Each
 * milestone with a row of K starts N / rows trajectories (the first ones
 * one more when N does not divide): the end milestone j is drawn from
 * K_i., the duration from the exponential distribution of mean tau_i, so
 * K_ij, tau_i and T_ij = K_ij tau_i are known exactly.  -i adds that many
 * records rejected by the first-hitting-point check (valid 0, absurd
 * durations) and -l that many that hit the time limit (end -1), spread
 * over the milestones; neither may change K or tau.  GSL's MT19937 seeded
 * with SEED makes the records reproducible.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#define MAXM 100000

static double *K;	/* dense, n x n */
static double tau[MAXM];
static long n;

static void
put_i32(long v)
{
	unsigned char b[4];
	int k;

	for (k = 0; k < 4; k++)
		b[k] = (unsigned char)(((unsigned long)v >> (8 * k)) & 0xff);
	fwrite(b, 1, 4, stdout);
}

static void
put_f64(double v)
{
	unsigned char b[8];
	unsigned long long u;
	int k;

	memcpy(&u, &v, 8);
	for (k = 0; k < 8; k++)
		b[k] = (unsigned char)((u >> (8 * k)) & 0xff);
	fwrite(b, 1, 8, stdout);
}

static int binary;

static void
record(long s, long e, double t, int valid)
{
	if (binary) {
		put_i32(s);
		put_i32(e);
		put_f64(t);
		put_i32(valid);
	} else
		printf("%ld %ld %.17g %d\n", s, e, t, valid);
}

int
main(int argc, char **argv)
{
	const char *unit = "1";
	long N, ninv = 0, nlim = 0, i, j, k, rows = 0, total, done = 0;
	unsigned long seed;
	char line[256];
	FILE *fp;
	gsl_rng *rng;
	int c;

	while ((c = getopt(argc, argv, "bi:l:u:")) != -1) {
		switch (c) {
		case 'b': binary = 1; break;
		case 'i': ninv = atol(optarg); break;
		case 'l': nlim = atol(optarg); break;
		case 'u': unit = optarg; break;
		default: return 2;
		}
	}
	if (argc - optind != 3)
		return 2;
	fp = fopen(argv[optind], "r");
	N = atol(argv[optind + 1]);
	seed = strtoul(argv[optind + 2], NULL, 10);
	if (fp == NULL)
		return 2;
	/* two passes: the size, then the values */
	while (fgets(line, sizeof line, fp)) {
		long a, b;
		double v;

		if (sscanf(line, "K %ld %ld %lf", &a, &b, &v) == 3) {
			n = a + 1 > n ? a + 1 : n;
			n = b + 1 > n ? b + 1 : n;
		} else if (sscanf(line, "tau %ld %lf", &a, &v) == 2)
			n = a + 1 > n ? a + 1 : n;
	}
	if (n < 2 || n > MAXM)
		return 2;
	K = calloc((size_t)n * n, sizeof *K);
	rewind(fp);
	while (fgets(line, sizeof line, fp)) {
		long a, b;
		double v;

		if (sscanf(line, "K %ld %ld %lf", &a, &b, &v) == 3)
			K[a * n + b] = v;
		else if (sscanf(line, "tau %ld %lf", &a, &v) == 2)
			tau[a] = v;
	}
	fclose(fp);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (K[i * n + j] > 0) {
				rows++;
				break;
			}
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(rng, seed);
	total = N + ninv + nlim;
	if (binary) {
		printf("\223FEK 1\nKIND trajectories\nROWS %ld\n", total);
		printf("COL start i32 1\nCOL end i32 1\nCOL t f64 %s\n"
		    "COL valid i32 1\nMILESTONES %ld\nEND\n", unit, n);
	} else {
		printf("#FEK 1\n#KIND trajectories\n#ROWS %ld\n", total);
		printf("#COL start i32 1\n#COL end i32 1\n#COL t f64 %s\n"
		    "#COL valid i32 1\n#MILESTONES %ld\n#END\n", unit, n);
	}
	for (i = 0, k = 0; i < n; i++) {
		double *p = K + i * n;
		gsl_ran_discrete_t *d;
		long m, my;

		for (j = 0; j < n && p[j] == 0; j++)
			;
		if (j == n)
			continue;
		my = N / rows + (k++ < N % rows);
		d = gsl_ran_discrete_preproc((size_t)n, p);
		for (m = 0; m < my; m++) {
			j = (long)gsl_ran_discrete(rng, d);
			record(i, j, gsl_ran_exponential(rng, tau[i]), 1);
			done++;
			/* the rejected and the time-limited, interleaved */
			if (ninv > 0 && gsl_rng_uniform(rng) < 2.0 * ninv / N) {
				record(i, (i + 1) % n, 1e6, 0);
				ninv--;
			}
			if (nlim > 0 && gsl_rng_uniform(rng) < 2.0 * nlim / N) {
				record(i, -1, 1e3, 1);
				nlim--;
			}
		}
		gsl_ran_discrete_free(d);
	}
	for (; ninv > 0; ninv--)
		record(0, 1, 1e6, 0);
	for (; nlim > 0; nlim--)
		record(0, -1, 1e3, 1);
	(void)done;
	gsl_rng_free(rng);
	free(K);
	return fflush(stdout) != 0;
}
