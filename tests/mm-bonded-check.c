/* tests/mm-bonded-check.c - placeholder until the helper writing lib/mm's
 * bonded code replaces it; it fails so that nothing passes by accident. */
#include <stdio.h>

int
main(void)
{
	fprintf(stderr, "mm-bonded-check: not written yet\n");
	return 70;
}
