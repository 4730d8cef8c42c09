/* tests/mm-pme-check.c - placeholder until the helper writing lib/mm's
 * pme code replaces it; it fails so that nothing passes by accident. */
#include <stdio.h>

int
main(void)
{
	fprintf(stderr, "mm-pme-check: not written yet\n");
	return 70;
}
