/*
 * decimal.c - decimal to double, correctly rounded, fast for the plain
 * decimals of simulation output (a time-series line such as
 * "1234 0.22185676441040414"), strtod(3) for everything else.
 *
 * A decimal m x 10^e with an integer m < 10^19 (19 significant digits at
 * most, so m fits 64 bits) is converted as follows:
 *
 *  - m < 2^53 and |e| <= 22: m and 10^|e| are exact doubles, so one IEEE
 *    multiplication or division, m * 10^e or m / 10^-e, is the correctly
 *    rounded result (Clinger, "How to read floating point numbers
 *    accurately", PLDI 1990, the fast path; needs FLT_EVAL_METHOD 0).
 *
 *  - otherwise, 0 <= e <= 27: m * 5^e is an exact 128-bit integer (5^27 <
 *    2^63), rounded to 53 bits here (to nearest, ties to even) and scaled
 *    by 2^e exactly.
 *
 *  - otherwise, -27 <= e < 0: the value is n / 5^k x 2^-(k + s) with
 *    n = m << s (top bit set) and k = -e.  The quotient Q = n 2^(64+L) / 5^k
 *    (L such that r_k = floor(2^(64+L) / 5^k) has 64 bits) satisfies
 *    n r_k <= Q < n r_k + n < n r_k + 2^64 (one 64 x 64-bit product, the
 *    reciprocal multiplication of Eisel and Lemire, "Number parsing at a
 *    gigabyte per second", Softw. Pract. Exp. 51, 2021, reduced to the
 *    exponents here).  Q has 127 or 128 bits, 74 or 75 of them below the
 *    53 kept, so the high word of n r_k decides the rounding unless its
 *    10 or 11 bits below the kept ones are the half-way pattern or one
 *    less (about one number in 2^9): then Q is computed exactly, as a
 *    128 / 64-bit quotient with its remainder.
 *
 * Everything is exact integer arithmetic until one final rounding, so the
 * result is the nearest double, ties to even: what glibc's strtod returns.
 * The results are normal doubles (10^-27 .. 10^46), so no underflow or
 * overflow, and errno is not touched.  tests/decimal-check.c compares this
 * with strtod on random and hand-picked strings, bit for bit.
 */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/decimal.h"

#define MAXDIG	19	/* significant digits in a 64-bit m */
#define MAXPOW	27	/* 5^27 < 2^63 */

#if FLT_EVAL_METHOD == 0
static const double pow10_exact[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22
};
#endif

#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;

/* 5^k and L = floor(log2 5^k); r_k = floor(2^(64+L) / 5^k) has 64 bits
 * (k >= 1), folded by the compiler. */
#define P5(p, l) { p##ULL, l, (uint64_t)((((u128)1) << (64 + l)) / p##ULL) }
static const struct {
	uint64_t p5;
	int l;
	uint64_t r;
} pow5[MAXPOW + 1] = {
	{ 1, 0, 0 },	/* not used: e = 0 is a product */
	P5(5, 2), P5(25, 4), P5(125, 6), P5(625, 9), P5(3125, 11),
	P5(15625, 13), P5(78125, 16), P5(390625, 18), P5(1953125, 20),
	P5(9765625, 23), P5(48828125, 25), P5(244140625, 27),
	P5(1220703125, 30), P5(6103515625, 32), P5(30517578125, 34),
	P5(152587890625, 37), P5(762939453125, 39), P5(3814697265625, 41),
	P5(19073486328125, 44), P5(95367431640625, 46),
	P5(476837158203125, 48), P5(2384185791015625, 51),
	P5(11920928955078125, 53), P5(59604644775390625, 55),
	P5(298023223876953125, 58), P5(1490116119384765625, 60),
	P5(7450580596923828125, 62)
};

static int
bits128(u128 x)
{
	uint64_t hi = (uint64_t)(x >> 64);

	return hi ? 128 - __builtin_clzll(hi) :
	    64 - __builtin_clzll((uint64_t)x);
}

/* x > 0 to 53 significant bits, to nearest, ties to even, a nonzero
 * fraction below x's last bit when sticky: x ~ mant 2^*sh, mant <= 2^53. */
static uint64_t
round53(u128 x, int sticky, int *sh)
{
	int s = bits128(x) - 53;
	uint64_t mant;
	u128 rem, half;

	if (s <= 0) {		/* exact (no caller has sticky here) */
		*sh = 0;
		return (uint64_t)x;
	}
	mant = (uint64_t)(x >> s);
	rem = x & ((((u128)1) << s) - 1);
	half = ((u128)1) << (s - 1);
	if (rem > half || (rem == half && (sticky || (mant & 1))))
		mant++;
	*sh = s;
	return mant;
}

/* mant 2^e, exactly: mant <= 2^53 and the result is a normal double. */
static double
scale2(uint64_t mant, int e)
{
	uint64_t b = (uint64_t)(1023 + e) << 52;
	double t;

	memcpy(&t, &b, sizeof t);
	return (double)mant * t;
}

/* m 10^e, m > 0, -27 <= e <= 27, correctly rounded. */
static double
exact_value(uint64_t m, int e)
{
	uint64_t n, mant, hi, rem, half;
	u128 q, num;
	int s, sh, k = -e, w;

	if (e >= 0) {
		mant = round53((u128)m * pow5[e].p5, 0, &sh);
		return scale2(mant, sh + e);
	}
	s = __builtin_clzll(m);
	n = m << s;
	q = (u128)n * pow5[k].r;	/* Q - 2^64 < q <= Q */
	hi = (uint64_t)(q >> 64);	/* 2^62 <= hi < 2^64 */
	w = 11 - __builtin_clzll(hi);	/* hi's bits below the 53 kept */
	mant = hi >> w;
	rem = hi & ((1ULL << w) - 1);
	half = 1ULL << (w - 1);
	/* Q's bits below the 53 are rem 2^64 + (q's low word) + (less than
	 * 2^64): above half-way when rem > half, below when rem < half - 1 */
	if (rem > half)
		return scale2(mant + 1, w - pow5[k].l - s - k);
	if (rem + 1 < half)
		return scale2(mant, w - pow5[k].l - s - k);
	/* near half-way: the exact quotient decides */
	num = (u128)n << 64;
	q = num / pow5[k].p5;
	mant = round53(q, num % pow5[k].p5 != 0, &sh);
	return scale2(mant, sh - 64 - s - k);
}
#endif

/* The 8 bytes at p as a number when all are digits (p[0] the first):
 * pairs, then quads, then the eight, each step one multiplication on
 * the little-endian word (no lane overflows: 10*9+9, 100*99+99 and
 * 10000*9999+9999 fit their 8-, 16- and 32-bit lanes). */
static int
eight_digits(const char *p, uint64_t *val)
{
	uint64_t v, a;
	const unsigned char *u = (const unsigned char *)p;

	v = (uint64_t)u[0] | (uint64_t)u[1] << 8 | (uint64_t)u[2] << 16 |
	    (uint64_t)u[3] << 24 | (uint64_t)u[4] << 32 |
	    (uint64_t)u[5] << 40 | (uint64_t)u[6] << 48 |
	    (uint64_t)u[7] << 56;
	a = v - 0x3030303030303030ULL;	/* a byte below '0' borrows */
	if ((a | (v + 0x4646464646464646ULL)) & 0x8080808080808080ULL)
		return 0;		/* ... and one above '9' carries */
	a = a * 10 + (a >> 8);
	a = (a & 0x00FF00FF00FF00FFULL) * 100 +
	    ((a >> 16) & 0x00FF00FF00FF00FFULL);
	a &= 0x0000FFFF0000FFFFULL;
	*val = (a * 10000 + (a >> 32)) & 0xFFFFFFFFULL;
	return 1;
}

/* fek_strtod; with pad, 8 bytes from any point of the string up to its
 * NUL may be read (eight digits at a time). */
static double
parse(const char *s, char **end, int pad)
{
	const char *p = s;
	uint64_t m = 0, v8;
	long e10 = 0;
	int neg = 0, nd = 0, any = 0;
	double v;

	if (*p == '-' || *p == '+')
		neg = *p++ == '-';
	for (; (unsigned)(*p - '0') < 10; p++) {
		any = 1;
		if (nd < MAXDIG) {
			m = 10 * m + (unsigned)(*p - '0');
			nd += m != 0;
		} else if (*p != '0')
			goto slow;
		else
			e10++;
	}
	if (*p == '.') {
		p++;
		/* eight at a time while they fit m; nd may count leading
		 * zeros here, which only sends a longer number to strtod */
		while (pad && nd <= MAXDIG - 8 && eight_digits(p, &v8)) {
			m = m * 100000000 + v8;
			nd = m != 0 ? nd + 8 : 0;
			e10 -= 8;
			p += 8;
			any = 1;
		}
		for (; (unsigned)(*p - '0') < 10; p++) {
			any = 1;
			if (nd < MAXDIG) {
				m = 10 * m + (unsigned)(*p - '0');
				nd += m != 0;
				e10--;
			} else if (*p != '0')
				goto slow;
		}
	}
	if (!any)
		goto slow;
	if ((*p | 0x20) == 'e') {
		const char *q = p + 1;
		long x = 0;
		int eneg = 0;

		if (*q == '-' || *q == '+')
			eneg = *q++ == '-';
		if ((unsigned)(*q - '0') < 10) {
			for (; (unsigned)(*q - '0') < 10; q++)
				if (x < 100000)
					x = 10 * x + (*q - '0');
			e10 += eneg ? -x : x;
			p = q;
		}
	}
	if ((*p | 0x20) == 'x')		/* 0x...: hexadecimal */
		goto slow;
	if (m == 0)
		v = 0;
#if FLT_EVAL_METHOD == 0
	else if (m < (1ULL << 53) && e10 >= -22 && e10 <= 22)
		v = e10 >= 0 ? (double)m * pow10_exact[e10] :
		    (double)m / pow10_exact[-e10];
#endif
#ifdef __SIZEOF_INT128__
	else if (e10 >= -MAXPOW && e10 <= MAXPOW)
		v = exact_value(m, (int)e10);
#endif
	else
		goto slow;
	if (end != NULL)
		*end = (char *)p;
	return neg ? -v : v;
slow:
	return strtod(s, end);
}

double
fek_strtod(const char *s, char **end)
{
	return parse(s, end, 0);
}

double
fek_strtod_padded(const char *s, char **end)
{
	return parse(s, end, 1);
}
