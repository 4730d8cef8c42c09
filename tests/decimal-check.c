/*
 * decimal-check - lib/core/decimal.c's fek_strtod and fek_strtod_padded
 * against the C library's strtod(3), for tests/histogram.sh: the same
 * double, bit for bit, and the same end pointer, on N random strings of
 * many shapes and on hand-picked ones (the fast paths' edges: 2^53, 19
 * digits, 10^+-22, 10^+-27, half-way cases, '/' and ':' among eight
 * digits, and what must go to strtod: hex, inf, nan, leading space, a
 * lone sign or point, an exponent without digits).
 *
 *   decimal-check N seed
 *
 * Shapes: %.17g / %.16g / %.15g of doubles of random bits and of uniform
 * doubles on [0, 10) (simulation output); 1 to 21 random digits with a
 * point anywhere, leading and trailing zeros, an exponent of -40..40 in
 * several spellings, a sign; and decimals within 10^-19 of the midpoint
 * between two adjacent doubles (printed from long double with 17..20
 * digits), which reach core/decimal.c's exact 128 / 64-bit quotient.  Prints
 * "N strings, M mismatches" and the first few mismatches; exit 0 when M
 * is 0, 1 otherwise, 64 on bad arguments.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "core/decimal.h"

static long nbad, ntest;

static void
compare(const char *what, const char *s, double a, long ea, double b,
    long eb)
{
	if (memcmp(&a, &b, sizeof a) == 0 && ea == eb)
		return;
	if (nbad++ < 10)
		printf("mismatch: \"%s\": %s %.17g (%a) end %ld, strtod %.17g "
		    "(%a) end %ld\n", s, what, a, a, ea, b, b, eb);
}

/* s through fek_strtod, and through fek_strtod_padded with digits after
 * its NUL (which must not be read as part of it). */
static void
check(const char *s)
{
	char *e1, *e2, *e3, pad[160];
	size_t len = strlen(s);
	double a = fek_strtod(s, &e1), b = strtod(s, &e2), c;

	ntest++;
	compare("fek_strtod", s, a, e1 - s, b, e2 - s);
	memcpy(pad, s, len + 1);
	memset(pad + len + 1, '7', 16);
	c = fek_strtod_padded(pad, &e3);
	compare("fek_strtod_padded", s, c, e3 - pad, b, e2 - s);
}

static double
random_bits_double(gsl_rng *r)
{
	uint64_t u;
	double d;

	do {
		u = (uint64_t)gsl_rng_get(r) << 32 ^ gsl_rng_get(r);
		memcpy(&d, &u, sizeof d);
	} while (!isfinite(d));
	return d;
}

/* 1..21 digits, a point anywhere (or none), zeros around, an exponent. */
static void
random_decimal(gsl_rng *r, char *buf)
{
	static const char *ex[] = { "e", "E", "e+", "e-", "E-", "e0", "e-0" };
	int nd = 1 + (int)gsl_rng_uniform_int(r, 21), i, pt;
	char *p = buf;

	switch (gsl_rng_uniform_int(r, 4)) {
	case 0: *p++ = '-'; break;
	case 1: *p++ = '+'; break;
	default: break;
	}
	for (i = (int)gsl_rng_uniform_int(r, 4); i > 0 &&
	    gsl_rng_uniform_int(r, 3) == 0; i--)
		*p++ = '0';
	pt = (int)gsl_rng_uniform_int(r, nd + 2) - 1;	/* -1: no point */
	for (i = 0; i < nd; i++) {
		if (i == pt)
			*p++ = '.';
		*p++ = (char)('0' + gsl_rng_uniform_int(r, 10));
	}
	if (pt == nd)
		*p++ = '.';
	if (gsl_rng_uniform_int(r, 4) == 0)
		for (i = (int)gsl_rng_uniform_int(r, 8); i > 0; i--)
			*p++ = '0';
	if (gsl_rng_uniform_int(r, 2)) {
		int k = (int)gsl_rng_uniform_int(r, 7);

		p += sprintf(p, "%s%d", ex[k], (int)gsl_rng_uniform_int(r, 41) -
		    (k >= 3 && k != 5 ? 0 : 20));
	}
	*p = '\0';
}

int
main(int argc, char **argv)
{
	static const char *fixed[] = {
		"0", "-0", "+0", "0.0", "-0.0", "0e0", "0e999999", "-0e-999999",
		"1", "-1", "9007199254740992", "9007199254740993",
		"9007199254740994", "9007199254740995", "18014398509481985",
		"9999999999999999999", "10000000000000000000",
		"18446744073709551615", "18446744073709551616",
		"99999999999999999999", "1e22", "1e23", "1e27", "1e28",
		"1e-22", "1e-23", "1e-27", "1e-28", "9999999999999999999e27",
		"9999999999999999999e-27", "1.7976931348623157e308", "1e309",
		"4.9406564584124654e-324", "2.2250738585072011e-308", "1e-400",
		"0.1", "0.2", "0.3", "0.22185676441040414",
		"9.9999999999999999",
		"0.000000000000000000000000001", "1234567890123456789012345",
		"123456789012345678.9", "1.5", "2.5", "5.", ".5", "-.5",
		"+.5e1",
		"5.e3", ".", "-", "+", "-.", "e5", ".e5", "1e", "1e+", "1e-",
		"1e+x", "1ex", "1.5x", "0x10", "0X1p3", "0x", "-0x1.8p1", "1x",
		"inf", "-inf", "INF", "infinity", "nan", "-nan", "nan(123)",
		" 1.5", "\t2", "1.5 ", "1.5\n", "1,5", "1_000", "", "#", "1#",
		"00000000000000000000000000001", "0.00000000000000000000001e22",
		"100000000000000000000000e-10", "1e0000000000000000000000001",
		"1e-0000000000000000000000001", "1e99999999999999999999",
		"3.0000000000000000000000000001", "7.2057594037927933e16",
		/* exact ties beyond Clinger's path: to even */
		"4503599627370496.5", "4503599627370497.5",
		"-4503599627370497.5", "2251799813685248.25",
		"2251799813685248.75", "1125899906842624.125",
		"45035996273704965e-1", "9007199254740993e0",
		"9007199254740995e0",
		"1.0000000000000002220446049250313080847263336181640625",
		"1.00000000000000011102230246251565404236316680908203125",
		"1.00000000000000011102230246251565404236316680908203124",
		"1.00000000000000011102230246251565404236316680908203126",
		NULL
	};
	gsl_rng *r;
	char buf[128];

	long n, i;
	int k;

	if (argc != 3 || (n = atol(argv[1])) < 0) {
		fprintf(stderr, "usage: decimal-check N seed\n");
		return 64;
	}
	r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, strtoul(argv[2], NULL, 10));
	for (k = 0; fixed[k] != NULL; k++)
		check(fixed[k]);
	/* the neighbours of '0' and '9' ('/' and ':') and the ends of a
	 * line inside eight digits */
	for (k = 0; k < 17; k++) {
		static const char nb[] = "/:# \t\r\n";
		size_t c;

		for (c = 0; c < sizeof nb - 1; c++) {
			snprintf(buf, sizeof buf, "0.%.*s%c12345678901234567",
			    k, "12345678901234567", nb[c]);
			check(buf);
			snprintf(buf, sizeof buf, "-%.*s.%c123", k,
			    "12345678901234567", nb[c]);
			check(buf);
		}
	}
	for (i = 0; i < n; i++) {
		double d;
		long double mid;

		switch (i % 6) {
		case 0:
			snprintf(buf, sizeof buf, "%.17g",
			    random_bits_double(r));
			break;
		case 1:
			snprintf(buf, sizeof buf, "%.*g", 15 + (int)(i / 6 % 3),
			    10 * gsl_rng_uniform(r));
			break;
		case 2:
			snprintf(buf, sizeof buf, "%.17g",
			    10 * gsl_rng_uniform(r));
			break;
		case 3:
		case 4:
			random_decimal(r, buf);
			break;
		default:
			/* near the midpoint of d and the next double up */
			d = ldexp(1 + gsl_rng_uniform(r),
			    (int)gsl_rng_uniform_int(r, 200) - 100);
			mid = ((long double)d + (long double)nextafter(d,
			    INFINITY)) / 2;
			snprintf(buf, sizeof buf, "%.*Lg",
			    17 + (int)(i / 6 % 4), mid);
			break;
		}
		check(buf);
	}
	gsl_rng_free(r);
	printf("%ld strings, %ld mismatches\n", ntest, nbad);
	return nbad != 0;
}
