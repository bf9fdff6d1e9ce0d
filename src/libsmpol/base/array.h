/* array.h - growing a malloc'ed array one element at a time, in one place: capacity
 * doubles (so n appends cost O(n) copies), the byte count never overflows, and on
 * failure the caller still owns the old array. */
#ifndef SMPOL_ARRAY_H
#define SMPOL_ARRAY_H

#include <stddef.h>

/*
 * smpol_array_room - make room for element index n of v, an array of `size`-byte
 * elements with room for *cap. n < *cap: v as it is. Otherwise v grown to twice *cap
 * (to `first` elements the first time, at least n + 1) and *cap updated. NULL when
 * memory runs out or the size would overflow: v is untouched and still the caller's.
 */
void *smpol_array_room(void *v, size_t *cap, size_t n, size_t size, size_t first);

#endif
