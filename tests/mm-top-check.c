/* tests/mm-top-check.c - placeholder until the helper writing lib/mm's
 * top code replaces it; it fails so that nothing passes by accident. */
#include <stdio.h>

int
main(void)
{
	fprintf(stderr, "mm-top-check: not written yet\n");
	return 70;
}
