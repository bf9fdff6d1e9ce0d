/* number.h - the one grammar for the numbers people type: --mem-interleave values,
 * plugstack arguments and mpolctl arguments (mem_interleave(8), mpolctl(8)):
 *
 *   NUMBER = DIGITS [ "." DIGITS ]        DIGITS = one or more of 0-9
 *
 * Decimal only: no sign, space, exponent, hexadecimal, "inf" or "nan", nothing before
 * or after. Each use allows some digits after the point (none: a whole number) and a
 * range, both checked on the digits as written, never on a rounded binary value, so
 * "1.0000000000000001" is above 1 and no tiny value rounds to 0.
 */
#ifndef SMPOL_NUMBER_H
#define SMPOL_NUMBER_H

#include <stddef.h>
#include <stdint.h>

/* The most digits after the point any use allows (values are scaled by 10^decimals). */
#define SMPOL_NUMBER_MAX_DECIMALS 9

/*
 * smpol_number_parse - text as a NUMBER with at most `decimals` digits after the point,
 * scaled by 10^decimals ("0.98", decimals 9 -> 980000000), within [min, max] (scaled
 * alike) into *out. 0; -EINVAL when it is not such a NUMBER, -ERANGE when it is outside
 * the range. err gets what to give instead ("give a whole number from 1 to 255"); the
 * caller names the value and what it is for.
 */
int smpol_number_parse(const char *text, unsigned decimals, uint64_t min, uint64_t max, uint64_t *out,
		       char *err, size_t errlen);

/* The same for the n bytes at text (one part of a longer value, such as weights=0:3). */
int smpol_number_parse_span(const char *text, size_t n, unsigned decimals, uint64_t min, uint64_t max,
			    uint64_t *out, char *err, size_t errlen);

/* A scaled value as the grammar writes it, without trailing zeros: "0.98", "5". 0 or -ENOSPC. */
int smpol_number_format(uint64_t scaled, unsigned decimals, char *buf, size_t len);

#endif
