/* units.c - memory sizes: strict parsing for options, short forms for tables. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "number.h"
#include "units.h"

/* Shift from KiB for each suffix (no suffix is MiB, as Slurm's --mem). */
static int suffix_shift(char c)
{
	switch (toupper((unsigned char)c)) {
	case 'K':
		return 0;
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
	char q[SMPOL_QUOTE_LEN];
	size_t n = text ? strlen(text) : 0;
	int shift = 10, rc;
	uint64_t v;

	if (!n)
		return smpol_fail(err, errlen, EINVAL,
				 "empty size: give a number with K, M, G or T (e.g. 4G)");
	smpol_quote(text, q, sizeof(q));
	if (isalpha((unsigned char)text[n - 1])) {
		shift = suffix_shift(text[n - 1]);
		if (shift < 0)
			return smpol_fail(err, errlen, EINVAL, "bad size %s: its suffix is not K, M, G or T", q);
		n--;
	}
	rc = smpol_number_parse_span(text, n, 0, 0, UINT64_MAX >> shift, &v, NULL, 0);
	if (rc == -EINVAL)
		return smpol_fail(err, errlen, EINVAL,
				 "bad size %s: give whole digits and at most one suffix K, M, G or T (e.g. 4G, 512M)", q);
	if (rc < 0)
		return smpol_fail(err, errlen, ERANGE, "size %s is too large", q);
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
	/* binary units said as such: "1.4G" beside decimal MB/s reads as 10^9 */
	if (v == (double)(uint64_t)v)
		n = snprintf(buf, len, "%llu %ciB", (unsigned long long)v, units[u]);
	else
		n = snprintf(buf, len, "%.1f %ciB", v, units[u]);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

int smpol_format_size_exact(uint64_t kib, char *buf, size_t len)
{
	static const char units[] = "KMGT";
	int u = 0, n;

	while (kib && kib % 1024 == 0 && units[u + 1]) {
		kib /= 1024;
		u++;
	}
	n = snprintf(buf, len, "%llu%c", (unsigned long long)kib, units[u]);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}
