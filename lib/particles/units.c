/*
 * units.c - the unit systems of md-gpu's particle engine.  The engine
 * computes in one consistent set (length L, energy E, mass M, time
 * L sqrt(M / E)); the user speaks in
 *   lj    reduced: sigma, epsilon, m, tau = sigma sqrt(m / epsilon),
 *         temperature as kT / epsilon, pressure epsilon / sigma^3;
 *   real  A, kcal/mol, g/mol, fs, K, atm (LAMMPS's "real": the engine's
 *         time unit is 48.888 fs, AKMA's);
 *   gmx   nm, kJ/mol, g/mol, ps, K, bar (GROMACS's; the time unit is
 *         1 ps exactly).
 * Constants from CODATA 2018 (R, N_A exact), 1 kcal = 4.184 kJ, 1 atm =
 * 101325 Pa.
 */
#include <string.h>

#include "core/fek.h"
#include "particles/units.h"

static const struct fek_md_units units[] = {
	{ "lj", "sigma", "epsilon", "m", "tau", "epsilon/kB",
	    "epsilon/sigma^3", "sigma/tau", 1, 1, 1 },
	/* tau = 1e-10 sqrt(1e-3 / 4184) s; E / L^3 = 4184 / N_A / 1e-30 Pa */
	{ "real", "A", "kcal/mol", "g/mol", "fs", "K", "atm", "A/fs",
	    FEK_KB_KCAL, 48.88821290839617, 68568.42296625092 },
	/* tau = 1e-9 sqrt(1e-3 / 1e3) s = 1 ps; 1e3 / N_A / 1e-27 Pa */
	{ "gmx", "nm", "kJ/mol", "g/mol", "ps", "K", "bar", "nm/ps",
	    FEK_KB_KJ, 1, 16.60539067173847 },
};

const struct fek_md_units *
fek_md_units_find(const char *name)
{
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strcmp(units[i].name, name) == 0)
			return &units[i];
	return NULL;
}
