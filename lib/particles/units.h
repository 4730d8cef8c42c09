/*
 * units.h - md-gpu's unit systems (lib/particles/units.c): what the user gives
 * and reads, against the engine's consistent set.
 */
#ifndef FEK_PMD_UNITS_H
#define FEK_PMD_UNITS_H

struct fek_md_units {
	const char *name;		/* lj, real, gmx */
	const char *length, *energy, *mass, *time, *temp, *pressure;
	const char *velocity;
	double kb;			/* energy per temperature unit */
	double time_unit;		/* the engine's time in user units */
	double pressure_unit;		/* the engine's pressure in user units */
};

/* The system called name, or NULL. */
const struct fek_md_units *fek_md_units_find(const char *name);

#endif
