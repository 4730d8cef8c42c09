/*
 * fuzz.h - what the libFuzzer targets of fuzz/ share (fuzz/fuzz.c).
 *
 * Each fuzz/NAME.c defines LLVMFuzzerTestOneInput for one reader of
 * lib/; the Makefile's fuzz rules link it with fuzz.c, clang's libFuzzer
 * and a copy of libfek built with ASan and UBSan (build/fuzz/), and
 * scripts/fuzz runs it on its seeds in testdata/fuzz/NAME/.  The readers
 * take paths, so the input is first written to a file of a private
 * directory (on /dev/shm where there is one).
 */
#ifndef FEK_FUZZ_H
#define FEK_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Write data to the file name (a plain name, suffix included: some
 * readers tell formats by it) in the target's private directory and
 * return its path (valid for the next three calls too).  Aborts when it
 * cannot: that is the harness's fault, not the reader's. */
const char *fuzz_file(const uint8_t *data, size_t size, const char *name);
/* The private directory (for include paths). */
const char *fuzz_dir(void);

/* Particle configurations and trajectories (lib/particles): the first byte
 * of data says how, the rest is the file.  Bit 0: read it as one
 * configuration (fek_config_read) too (always when tfmt is NULL); bit 1:
 * the format guessed from the content (format NULL) rather than named; bit
 * 2: trajectory frames untyped (fek_trajin_set_untyped).  cfmt and tfmt
 * are the format names of the configuration and trajectory readers (NULL:
 * not read so). */
int	fuzz_particles(const uint8_t *data, size_t size, const char *cfmt,
	    const char *tfmt);

#endif
