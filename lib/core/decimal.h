/*
 * decimal.h - strtod(3) with a fast, correctly rounded path for plain
 * decimals (Clinger 1990, "How to read floating point numbers accurately",
 * PLDI '90; exact integer arithmetic beyond it).  See core/decimal.c.
 */
#ifndef FEK_DECIMAL_H
#define FEK_DECIMAL_H

/* strtod(s, end) in the C locale, bit for bit and with the same *end, for
 * every input: a plain decimal ([+-]digits[.digits][(e|E)[+-]digits]) of
 * at most 19 significant digits and a power of ten within 10^+-27 is
 * converted here, exactly rounded to nearest (ties to even), without
 * touching errno (no such number overflows or underflows); anything else
 * (hex, inf, nan, longer mantissas, larger exponents, leading space) goes
 * to strtod itself.  Thread-safe. */
double	fek_strtod(const char *s, char **end);
/* The same, faster, for a string followed by at least 8 readable bytes
 * after its NUL (a line in a larger buffer). */
double	fek_strtod_padded(const char *s, char **end);

#endif
