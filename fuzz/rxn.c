/*
 * rxn.c - fuzz target: bd-step's reaction contacts files
 * (fek_bd_rxn_read, lib/bd/rxn.c: "SPEC_A SPEC_B" a line, atom
 * selections of fek_bd_pqr_select) against two fixed small solutes.
 */
#include <string.h>

#include "core/fek.h"
#include "bd/bd.h"
#include "fuzz.h"

static const char pqr_a[] =
    "ATOM      1  N   ARG    83      0.000   0.000   0.000 -0.30 1.85\n"
    "ATOM      2  NE  ARG    83      1.000   0.000   0.000 -0.70 1.85\n"
    "ATOM      3  NH1 ARG    83      2.000   0.000   0.000  0.80 1.85\n"
    "ATOM      4  NH2 ARG    83      2.000   1.000   0.000  0.80 1.85\n"
    "ATOM      5  CA  GLY    84      3.000   1.000   0.000  0.00 1.90\n";
static const char pqr_b[] =
    "ATOM      1  OD1 ASP    39      0.000   0.000   0.000 -0.80 1.60\n"
    "ATOM      2  OD2 ASP    39      1.000   0.000   0.000 -0.80 1.60\n"
    "ATOM      3  CA  ASP    39      1.000   1.000   0.000  0.10 1.90\n"
    "HETATM    4  O   HOH   101      5.000   0.000   0.000  0.00 1.40\n";

static struct fek_bd_pqr A, B;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (fek_bd_pqr_read(fuzz_file((const uint8_t *)pqr_a,
	    strlen(pqr_a), "a.pqr"), &A) < 0 ||
	    fek_bd_pqr_read(fuzz_file((const uint8_t *)pqr_b,
	    strlen(pqr_b), "b.pqr"), &B) < 0)
		__builtin_trap();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fek_bd_rxnset x;

	if (fek_bd_rxn_read(fuzz_file(data, size, "rxn"), &A, &B, &x) == 0)
		fek_bd_rxn_free(&x);
	return 0;
}
