/* number.c - the one parser of typed numbers (see number.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "number.h"

static uint64_t power_of_ten(unsigned n)
{
	uint64_t p = 1;

	while (n--)
		p *= 10;
	return p;
}

int smpol_number_format(uint64_t scaled, unsigned decimals, char *buf, size_t len)
{
	uint64_t unit = power_of_ten(decimals);
	int n;

	if (decimals == 0 || scaled % unit == 0) {
		n = snprintf(buf, len, "%" PRIu64, scaled / unit);
	} else {
		n = snprintf(buf, len, "%" PRIu64 ".%0*" PRIu64, scaled / unit, (int)decimals, scaled % unit);
		while (n > 0 && (size_t)n < len && buf[n - 1] == '0')
			buf[--n] = '\0';
	}
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* What to give instead: "a whole number from 1 to 255", "a number above 0 and at most 1
 * with at most 9 digits after the point". */
static int range_sentence(int rc, unsigned decimals, uint64_t min, uint64_t max, char *err, size_t errlen)
{
	char lo[32], hi[32];

	smpol_number_format(min, decimals, lo, sizeof(lo));
	smpol_number_format(max, decimals, hi, sizeof(hi));
	if (decimals == 0)
		return smpol_fail(err, errlen, -rc, "give a whole number from %s to %s (digits only)", lo, hi);
	if (min == 1)   /* the smallest step above 0: say what is meant */
		return smpol_fail(err, errlen, -rc, "give a number above 0 and at most %s, with at most %u "
				  "digits after the point", hi, decimals);
	return smpol_fail(err, errlen, -rc, "give a number from %s to %s, with at most %u digits after the "
			  "point", lo, hi, decimals);
}

int smpol_number_parse_span(const char *text, size_t n, unsigned decimals, uint64_t min, uint64_t max,
			    uint64_t *out, char *err, size_t errlen)
{
	uint64_t v = 0;
	size_t i = 0, whole_digits = 0, frac_digits = 0;
	bool too_large = false;
	int rc = 0;

	if (decimals > SMPOL_NUMBER_MAX_DECIMALS)
		decimals = SMPOL_NUMBER_MAX_DECIMALS;
	for (; i < n && text[i] >= '0' && text[i] <= '9'; i++, whole_digits++) {
		unsigned d = (unsigned)(text[i] - '0');

		too_large = too_large || v > (UINT64_MAX - d) / 10;
		v = too_large ? v : v * 10 + d;
	}
	if (i < n && text[i] == '.' && decimals > 0) {
		for (i++; i < n && text[i] >= '0' && text[i] <= '9'; i++, frac_digits++) {
			if (frac_digits < decimals) {
				unsigned d = (unsigned)(text[i] - '0');

				too_large = too_large || v > (UINT64_MAX - d) / 10;
				v = too_large ? v : v * 10 + d;
			}
		}
		if (frac_digits == 0)
			rc = -EINVAL;      /* "1." */
	}
	if (rc == 0 && (whole_digits == 0 || i != n || frac_digits > decimals))
		rc = -EINVAL;
	/* scale what was written to `decimals` digits after the point */
	for (size_t k = frac_digits; rc == 0 && !too_large && k < decimals; k++) {
		too_large = v > UINT64_MAX / 10;
		v = too_large ? v : v * 10;
	}
	if (rc == 0 && (too_large || v < min || v > max))
		rc = -ERANGE;
	if (rc < 0)
		return range_sentence(rc, decimals, min, max, err, errlen);
	*out = v;
	return 0;
}

int smpol_number_parse(const char *text, unsigned decimals, uint64_t min, uint64_t max, uint64_t *out,
		       char *err, size_t errlen)
{
	return smpol_number_parse_span(text ? text : "", text ? strlen(text) : 0, decimals, min, max, out,
				       err, errlen);
}
