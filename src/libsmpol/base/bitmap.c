/* bitmap.c - fixed-size id sets and the kernel's list and mask syntax. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bitmap.h"
#include "error.h"
#include "number.h"

#define BITS 64

static bool id_valid(int id)
{
	return id >= 0 && id < SMPOL_MAX_CPUS;
}

void smpol_bitmap_clear(struct smpol_bitmap *b)
{
	memset(b, 0, sizeof(*b));
}

/* Out-of-range ids are ignored: callers validate ids where they come from. */
void smpol_bitmap_set(struct smpol_bitmap *b, int id)
{
	if (id_valid(id))
		b->bits[id / BITS] |= UINT64_C(1) << (id % BITS);
}

void smpol_bitmap_unset(struct smpol_bitmap *b, int id)
{
	if (id_valid(id))
		b->bits[id / BITS] &= ~(UINT64_C(1) << (id % BITS));
}

bool smpol_bitmap_test(const struct smpol_bitmap *b, int id)
{
	return id_valid(id) && (b->bits[id / BITS] >> (id % BITS) & 1);
}

int smpol_bitmap_count(const struct smpol_bitmap *b)
{
	int n = 0;

	for (int w = 0; w < SMPOL_BITMAP_WORDS; w++)
		n += __builtin_popcountll(b->bits[w]);
	return n;
}

bool smpol_bitmap_empty(const struct smpol_bitmap *b)
{
	for (int w = 0; w < SMPOL_BITMAP_WORDS; w++)
		if (b->bits[w])
			return false;
	return true;
}

bool smpol_bitmap_equal(const struct smpol_bitmap *a, const struct smpol_bitmap *b)
{
	return !memcmp(a->bits, b->bits, sizeof(a->bits));
}

int smpol_bitmap_and(struct smpol_bitmap *a, const struct smpol_bitmap *b)
{
	for (int w = 0; w < SMPOL_BITMAP_WORDS; w++)
		a->bits[w] &= b->bits[w];
	return smpol_bitmap_count(a);
}

void smpol_bitmap_or(struct smpol_bitmap *a, const struct smpol_bitmap *b)
{
	for (int w = 0; w < SMPOL_BITMAP_WORDS; w++)
		a->bits[w] |= b->bits[w];
}

int smpol_bitmap_next(const struct smpol_bitmap *b, int from)
{
	if (from < 0)
		from = 0;
	for (int w = from / BITS; w < SMPOL_BITMAP_WORDS; w++) {
		uint64_t word = b->bits[w];

		if (w == from / BITS)
			word &= ~UINT64_C(0) << (from % BITS);
		if (word)
			return w * BITS + __builtin_ctzll(word);
	}
	return -1;
}

void smpol_bitmap_to_mask(const struct smpol_bitmap *b, unsigned long *mask)
{
	const int per_long = 8 * (int)sizeof(unsigned long);

	memset(mask, 0, SMPOL_MASK_LONGS * sizeof(unsigned long));
	for (int n = smpol_bitmap_next(b, 0); n >= 0 && n < SMPOL_MAX_NODES; n = smpol_bitmap_next(b, n + 1))
		mask[n / per_long] |= 1UL << (n % per_long);
}

/* Node lists and CPU lists share the syntax; name the one the caller parses. */
static const char *list_kind(int limit)
{
	return limit <= SMPOL_MAX_NODES ? "node list" : "CPU list";
}

/* The ids of one list entry, [s, e): a whole NUMBER (number.h). q is the whole list, quoted. */
static int parse_id(const char *s, const char *e, int limit, int *id, const char *q, char *err, size_t errlen)
{
	char part[SMPOL_QUOTE_LEN], why[SMPOL_ERRLEN];
	uint64_t v;

	if (s == e)
		return smpol_fail(err, errlen, EINVAL, "bad %s %s: a range is missing a number", list_kind(limit), q);
	if (smpol_number_parse_span(s, (size_t)(e - s), 0, 0, (uint64_t)limit - 1, &v, why, sizeof(why)))
		return smpol_fail(err, errlen, EINVAL, "bad %s %s: id %s: %s", list_kind(limit), q,
				  smpol_quote_n(s, (size_t)(e - s), part, sizeof(part)), why);
	*id = (int)v;
	return 0;
}

/* One comma-separated entry "N" or "N-M", [s, e). */
static int parse_entry(const char *s, const char *e, int limit, struct smpol_bitmap *out,
		       const char *q, char *err, size_t errlen)
{
	const char *dash = memchr(s, '-', (size_t)(e - s));
	char part[SMPOL_QUOTE_LEN];
	int lo, hi, rc;

	if (s == e)
		return smpol_fail(err, errlen, EINVAL, "bad %s %s: it has an empty entry", list_kind(limit), q);
	rc = parse_id(s, dash ? dash : e, limit, &lo, q, err, errlen);
	if (!rc)
		rc = dash ? parse_id(dash + 1, e, limit, &hi, q, err, errlen) : 0;
	if (rc)
		return rc;
	if (!dash)
		hi = lo;
	if (hi < lo)
		return smpol_fail(err, errlen, EINVAL, "bad %s %s: the range %s goes backwards", list_kind(limit), q,
				  smpol_quote_n(s, (size_t)(e - s), part, sizeof(part)));
	for (int id = lo; id <= hi; id++)
		smpol_bitmap_set(out, id);
	return 0;
}

/* Trim surrounding whitespace: [*s, *e). */
static void trim(const char *text, const char **s, const char **e)
{
	*s = text;
	while (isspace((unsigned char)**s))
		(*s)++;
	*e = *s + strlen(*s);
	while (*e > *s && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

int smpol_bitmap_parse_list(const char *text, int limit, struct smpol_bitmap *out, char *err, size_t errlen)
{
	struct smpol_bitmap b;
	char q[SMPOL_QUOTE_LEN];
	const char *s, *e;

	if (limit < 1 || limit > SMPOL_MAX_CPUS)
		limit = SMPOL_MAX_CPUS;
	smpol_bitmap_clear(&b);
	smpol_quote(text, q, sizeof(q));
	trim(text, &s, &e);
	while (s < e) {
		const char *comma = memchr(s, ',', (size_t)(e - s));
		const char *end = comma ? comma : e;
		int rc = parse_entry(s, end, limit, &b, q, err, errlen);

		if (rc)
			return rc;
		if (comma && comma + 1 == e)
			return smpol_fail(err, errlen, EINVAL, "bad %s %s: it ends with a comma", list_kind(limit), q);
		s = comma ? comma + 1 : e;
	}
	*out = b;
	return 0;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The kernel prints 32-bit groups, most significant first, separated by commas. */
int smpol_bitmap_parse_mask(const char *text, int limit, struct smpol_bitmap *out, char *err, size_t errlen)
{
	struct smpol_bitmap b;
	char q[SMPOL_QUOTE_LEN], part[SMPOL_QUOTE_LEN];
	const char *s, *e;
	int bit = 0;

	if (limit < 1 || limit > SMPOL_MAX_CPUS)
		limit = SMPOL_MAX_CPUS;
	smpol_bitmap_clear(&b);
	smpol_quote(text, q, sizeof(q));
	trim(text, &s, &e);
	if (s == e)
		return smpol_fail(err, errlen, EINVAL, "bad mask %s: it is empty", q);
	/* walk from the least significant end */
	while (e > s) {
		const char *group = e;
		int digits = 0;

		while (group > s && group[-1] != ',')
			group--;
		if (group == e || e - group > 8)
			return smpol_fail(err, errlen, EINVAL,
					 "bad mask %s: %s is not a group of 1-8 hex digits", q,
					 smpol_quote_n(group, (size_t)(e - group), part, sizeof(part)));
		for (const char *p = e; p > group; p--, digits++) {
			int v = hex_value(p[-1]);

			if (v < 0)
				return smpol_fail(err, errlen, EINVAL, "bad mask %s: %s is not a hex digit",
						 q, smpol_quote_n(p - 1, 1, part, sizeof(part)));
			for (int k = 0; k < 4; k++) {
				int id = bit + digits * 4 + k;

				if (!(v >> k & 1))
					continue;
				if (id >= limit)
					return smpol_fail(err, errlen, EINVAL,
							 "bad mask %s: it sets id %d, ids are 0-%d", q, id,
							 limit - 1);
				smpol_bitmap_set(&b, id);
			}
		}
		bit += 32;
		e = group > s ? group - 1 : s;
		if (group > s && e == s)
			return smpol_fail(err, errlen, EINVAL, "bad mask %s: it starts with a comma", q);
	}
	*out = b;
	return 0;
}

int smpol_bitmap_format_list(const struct smpol_bitmap *b, char *buf, size_t len)
{
	size_t used = 0;
	int lo = smpol_bitmap_next(b, 0);

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	while (lo >= 0) {
		int hi = lo, n;

		while (smpol_bitmap_test(b, hi + 1))
			hi++;
		if (hi == lo)
			n = snprintf(buf + used, len - used, "%s%d", used ? "," : "", lo);
		else
			n = snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", lo, hi);
		if (n < 0 || (size_t)n >= len - used) {
			buf[0] = '\0';
			return -ENOSPC;
		}
		used += (size_t)n;
		lo = smpol_bitmap_next(b, hi + 1);
	}
	return 0;
}
