/* fuzz.h - what every libFuzzer target here shares: the input as a C string, and a
 * property check that aborts (libFuzzer then saves the input as a reproducer). */
#ifndef MPOL_FUZZ_H
#define MPOL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The parsers take C strings: the bytes up to the first NUL, malloc'ed. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

#define fuzz_check(cond, ...)                                                   \
	do {                                                                    \
		if (!(cond)) {                                                  \
			fprintf(stderr, "property failed: %s: ", #cond);        \
			fprintf(stderr, __VA_ARGS__);                           \
			fputc('\n', stderr);                                    \
			abort();                                                \
		}                                                               \
	} while (0)

#endif
