/* array.c - growing arrays (see array.h). */
#include <stdint.h>
#include <stdlib.h>

#include "array.h"

void *smpol_array_room(void *v, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t want = *cap ? *cap : first ? first : 1;
	void *grown;

	if (n < *cap)
		return v;
	while (want <= n || want == *cap) {
		if (want > SIZE_MAX / 2)
			return NULL;
		want *= 2;
	}
	if (size && want > SIZE_MAX / size)
		return NULL;
	grown = realloc(v, want * size);
	if (grown)
		*cap = want;
	return grown;
}
