/* tests/mm-constr-check.c - placeholder until the helper writing lib/mm's
 * constraints replaces it; it fails so that nothing passes by accident. */
#include <stdio.h>

int
main(void)
{
	fprintf(stderr, "mm-constr-check: not written yet\n");
	return 70;
}
