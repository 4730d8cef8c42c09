/*
 * units.c - energy units and the Boltzmann constant.
 *
 * k_B from the exact CODATA 2018 molar gas constant R = 8.314462618...
 * J/mol/K; 1 kcal = 4.184 kJ (thermochemical).  Grossfield's wham default
 * (0.001982923700) is 0.2 % off; ours is not.
 */
#include <string.h>
#include <strings.h>

#include "core/fek.h"

int
fek_unit_parse(const char *s, enum fek_unit *u)
{
	if (strcasecmp(s, "kcal") == 0 || strcasecmp(s, "kcal/mol") == 0)
		*u = FEK_KCAL;
	else if (strcasecmp(s, "kJ") == 0 || strcasecmp(s, "kJ/mol") == 0)
		*u = FEK_KJ;
	else if (strcasecmp(s, "kT") == 0)
		*u = FEK_KT;
	else
		return -1;
	return 0;
}

const char *
fek_unit_name(enum fek_unit u)
{
	switch (u) {
	case FEK_KCAL:
		return "kcal/mol";
	case FEK_KJ:
		return "kJ/mol";
	default:
		return "kT";
	}
}

double
fek_kb(enum fek_unit u)
{
	switch (u) {
	case FEK_KCAL:
		return FEK_KB_KCAL;
	case FEK_KJ:
		return FEK_KB_KJ;
	default:
		return 0;
	}
}

double
fek_unit_in_kcal(enum fek_unit u, double T)
{
	switch (u) {
	case FEK_KCAL:
		return 1.0;
	case FEK_KJ:
		return 1.0 / 4.184;
	default:
		return FEK_KB_KCAL * T;
	}
}
