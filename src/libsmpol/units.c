/* units.c - memory sizes: strict parsing for options, short forms for tables. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>

#include "error.h"
#include "units.h"

/* Shift from KiB for each suffix; no suffix is MiB, as Slurm's --mem. */
static int suffix_shift(char c)
{
	switch (toupper((unsigned char)c)) {
	case 'K':
		return 0;
	case '\0':
	case 'M':
		return 10;
	case 'G':
		return 20;
	case 'T':
		return 30;
	}
	return -1;
}

int smpol_parse_size(const char *text, uint64_t *kib, char *err, size_t errlen)
{
	const char *p = text;
	uint64_t v = 0;
	int shift;

	if (!text || !*text)
		return smpol_fail(err, errlen, EINVAL,
				 "empty size: give a number with K, M, G or T (e.g. 4G)");
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return smpol_fail(err, errlen, ERANGE, "size '%s' is too large", text);
		v = v * 10 + d;
	}
	if (p == text || (p[0] && p[1]))
		return smpol_fail(err, errlen, EINVAL,
				 "bad size '%s': give whole digits and at most one suffix K, M, G or T (e.g. 4G, 512M)",
				 text);
	shift = suffix_shift(*p);
	if (shift < 0)
		return smpol_fail(err, errlen, EINVAL,
				 "bad size suffix '%c' in '%s': use K, M, G or T", *p, text);
	if (shift && v > (UINT64_MAX >> shift))
		return smpol_fail(err, errlen, ERANGE, "size '%s' is too large", text);
	*kib = v << shift;
	return 0;
}

int smpol_format_size(uint64_t kib, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	double v = (double)kib;
	int u = 0, n;

	while (v >= 1024 && units[u + 1]) {
		v /= 1024;
		u++;
	}
	if (v == (double)(uint64_t)v)
		n = snprintf(buf, len, "%llu%c", (unsigned long long)v, units[u]);
	else
		n = snprintf(buf, len, "%.1f%c", v, units[u]);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}
