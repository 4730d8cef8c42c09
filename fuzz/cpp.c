/*
 * cpp.c - fuzz target: the topology preprocessor alone (mm_cpp_open and
 * mm_cpp_next, lib/mm/cpp.c): #include, #define, #ifdef/#ifndef/#else/
 * #endif, #undef, continued lines and comments.  The file's directory is
 * the include path ("cpp.top" includes itself); the first byte's bit 0
 * defines FLEXIBLE and X=1 2 3.
 */
#include <stdlib.h>

#include "core/fek.h"
#include "mm/cpp.h"
#include "fuzz.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsetenv("GMXLIB");
	unsetenv("GMXDATA");
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mm_cpp *c;
	char *line;

	if (size < 1)
		return 0;
	c = mm_cpp_open(fuzz_file(data + 1, size - 1, "cpp.top"), fuzz_dir(),
	    (data[0] & 1) ? "-DFLEXIBLE -DX=1" : NULL);
	if (c == NULL)
		return 0;
	while (mm_cpp_next(c, &line) > 0)
		(void)mm_cpp_line(c);
	mm_cpp_close(c);
	return 0;
}
