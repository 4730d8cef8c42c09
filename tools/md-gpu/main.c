/*
 * md-gpu - dynamics on the CPU or the GPU, in three modes chosen by the
 * command line: a molecular system from GROMACS inputs (--top,
 * molecules.c), periodic boxes of particles with pair potentials
 * (--lattice, --config or --restart, particles.c), or, else, batched
 * replicas of a particle in a model potential (replicas.c).  md-gpu(1)
 * describes them; md-gpu.h is what they share.
 */
#include "core/fek.h"
#include "md-gpu.h"

int
main(int argc, char **argv)
{
	fek_setprogname(argv[0]);
	if (mdg_has_option(argc, argv, "--top"))
		return mdg_molecules(argc, argv);
	if (mdg_has_option(argc, argv, "--lattice") ||
	    mdg_has_option(argc, argv, "--config") ||
	    mdg_has_option(argc, argv, "--restart"))
		return mdg_particles(argc, argv);
	return mdg_replicas(argc, argv);
}
