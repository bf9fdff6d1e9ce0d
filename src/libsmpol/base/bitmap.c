/* bitmap.c - node sets (values) and CPU sets (grown), and the kernel's list and mask syntax. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "error.h"
#include "number.h"

#define BITS 64
#define NODE_WORDS (SMPOL_MAX_NODES / BITS)

/* ---- the words of either kind of set ---- */

static bool words_test(const uint64_t *w, int n, int id)
{
	return id >= 0 && id / BITS < n && (w[id / BITS] >> (id % BITS) & 1);
}

static int words_count(const uint64_t *w, int n)
{
	int count = 0;

	for (int i = 0; i < n; i++)
		count += __builtin_popcountll(w[i]);
	return count;
}

static int words_next(const uint64_t *w, int n, int from)
{
	if (from < 0)
		from = 0;
	for (int i = from / BITS; i < n; i++) {
		uint64_t word = w[i];

		if (i == from / BITS)
			word &= ~UINT64_C(0) << (from % BITS);
		if (word)
			return i * BITS + __builtin_ctzll(word);
	}
	return -1;
}

static int words_format(const uint64_t *w, int n, char *buf, size_t len)
{
	size_t used = 0;
	int lo = words_next(w, n, 0);

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	while (lo >= 0) {
		int hi = lo, k;

		while (words_test(w, n, hi + 1))
			hi++;
		if (hi == lo)
			k = snprintf(buf + used, len - used, "%s%d", used ? "," : "", lo);
		else
			k = snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", lo, hi);
		if (k < 0 || (size_t)k >= len - used) {
			buf[0] = '\0';
			return -ENOSPC;
		}
		used += (size_t)k;
		lo = words_next(w, n, hi + 1);
	}
	return 0;
}

/* ---- node sets ---- */

static bool node_valid(int id)
{
	return id >= 0 && id < SMPOL_MAX_NODES;
}

void smpol_bitmap_clear(struct smpol_bitmap *b)
{
	memset(b, 0, sizeof(*b));
}

/* Out-of-range ids are ignored: callers validate ids where they come from. */
void smpol_bitmap_set(struct smpol_bitmap *b, int id)
{
	if (node_valid(id))
		b->bits[id / BITS] |= UINT64_C(1) << (id % BITS);
}

void smpol_bitmap_unset(struct smpol_bitmap *b, int id)
{
	if (node_valid(id))
		b->bits[id / BITS] &= ~(UINT64_C(1) << (id % BITS));
}

bool smpol_bitmap_test(const struct smpol_bitmap *b, int id)
{
	return words_test(b->bits, NODE_WORDS, id);
}

int smpol_bitmap_count(const struct smpol_bitmap *b)
{
	return words_count(b->bits, NODE_WORDS);
}

bool smpol_bitmap_empty(const struct smpol_bitmap *b)
{
	return words_next(b->bits, NODE_WORDS, 0) < 0;
}

bool smpol_bitmap_equal(const struct smpol_bitmap *a, const struct smpol_bitmap *b)
{
	return !memcmp(a->bits, b->bits, sizeof(a->bits));
}

int smpol_bitmap_and(struct smpol_bitmap *a, const struct smpol_bitmap *b)
{
	for (int w = 0; w < NODE_WORDS; w++)
		a->bits[w] &= b->bits[w];
	return smpol_bitmap_count(a);
}

void smpol_bitmap_or(struct smpol_bitmap *a, const struct smpol_bitmap *b)
{
	for (int w = 0; w < NODE_WORDS; w++)
		a->bits[w] |= b->bits[w];
}

int smpol_bitmap_next(const struct smpol_bitmap *b, int from)
{
	return words_next(b->bits, NODE_WORDS, from);
}

void smpol_bitmap_to_mask(const struct smpol_bitmap *b, unsigned long *mask)
{
	const int per_long = 8 * (int)sizeof(unsigned long);

	memset(mask, 0, SMPOL_MASK_LONGS * sizeof(unsigned long));
	for (int n = smpol_bitmap_next(b, 0); n >= 0; n = smpol_bitmap_next(b, n + 1))
		mask[n / per_long] |= 1UL << (n % per_long);
}

int smpol_bitmap_format_list(const struct smpol_bitmap *b, char *buf, size_t len)
{
	return words_format(b->bits, NODE_WORDS, buf, len);
}

/* ---- CPU sets ---- */

void smpol_cpus_free(struct smpol_cpus *c)
{
	free(c->bits);
	c->bits = NULL;
	c->nwords = 0;
}

/* Room for id (zeroed words added). 0 or -ENOMEM. */
static int cpus_grow(struct smpol_cpus *c, int id)
{
	int want = id / BITS + 1;
	uint64_t *more;

	if (want <= c->nwords)
		return 0;
	more = realloc(c->bits, sizeof(*more) * (size_t)want);
	if (!more)
		return -ENOMEM;
	memset(more + c->nwords, 0, sizeof(*more) * (size_t)(want - c->nwords));
	c->bits = more;
	c->nwords = want;
	return 0;
}

int smpol_cpus_copy(struct smpol_cpus *dst, const struct smpol_cpus *src)
{
	struct smpol_cpus c = { 0 };

	if (src->nwords && cpus_grow(&c, src->nwords * BITS - 1) < 0)
		return -ENOMEM;
	if (src->nwords)
		memcpy(c.bits, src->bits, sizeof(*c.bits) * (size_t)src->nwords);
	smpol_cpus_free(dst);
	*dst = c;
	return 0;
}

void smpol_cpus_clear(struct smpol_cpus *c)
{
	if (c->nwords)
		memset(c->bits, 0, sizeof(*c->bits) * (size_t)c->nwords);
}

int smpol_cpus_set(struct smpol_cpus *c, int id)
{
	if (id < 0 || id >= SMPOL_MAX_CPUS)
		return 0;
	if (cpus_grow(c, id) < 0)
		return -ENOMEM;
	c->bits[id / BITS] |= UINT64_C(1) << (id % BITS);
	return 0;
}

bool smpol_cpus_test(const struct smpol_cpus *c, int id)
{
	return words_test(c->bits, c->nwords, id);
}

int smpol_cpus_count(const struct smpol_cpus *c)
{
	return words_count(c->bits, c->nwords);
}

bool smpol_cpus_empty(const struct smpol_cpus *c)
{
	return words_next(c->bits, c->nwords, 0) < 0;
}

bool smpol_cpus_equal(const struct smpol_cpus *a, const struct smpol_cpus *b)
{
	int n = a->nwords > b->nwords ? a->nwords : b->nwords;

	for (int i = 0; i < n; i++)
		if ((i < a->nwords ? a->bits[i] : 0) != (i < b->nwords ? b->bits[i] : 0))
			return false;
	return true;
}

int smpol_cpus_count_and(const struct smpol_cpus *a, const struct smpol_cpus *b)
{
	int n = a->nwords < b->nwords ? a->nwords : b->nwords, count = 0;

	for (int i = 0; i < n; i++)
		count += __builtin_popcountll(a->bits[i] & b->bits[i]);
	return count;
}

int smpol_cpus_or(struct smpol_cpus *a, const struct smpol_cpus *b)
{
	if (b->nwords && cpus_grow(a, b->nwords * BITS - 1) < 0)
		return -ENOMEM;
	for (int i = 0; i < b->nwords; i++)
		a->bits[i] |= b->bits[i];
	return 0;
}

int smpol_cpus_next(const struct smpol_cpus *c, int from)
{
	return words_next(c->bits, c->nwords, from);
}

int smpol_cpus_format_list(const struct smpol_cpus *c, char *buf, size_t len)
{
	return words_format(c->bits, c->nwords, buf, len);
}

/* ---- the list and mask syntax, for either kind ---- */

/* Adds ids lo..hi to the set being parsed: 0 or -ENOMEM. */
typedef int (*add_ids_fn)(void *set, int lo, int hi);

static int add_node_ids(void *set, int lo, int hi)
{
	for (int id = lo; id <= hi; id++)
		smpol_bitmap_set(set, id);
	return 0;
}

static int add_cpu_ids(void *set, int lo, int hi)
{
	if (cpus_grow(set, hi) < 0)
		return -ENOMEM;
	for (int id = lo; id <= hi; id++)
		smpol_cpus_set(set, id);
	return 0;
}

/* What is parsed: the kind of list (for sentences) and where its ids go. */
struct sink {
	const char *kind;      /* "node list", "CPU list" */
	add_ids_fn add;
	void *set;
};

/* The ids of one list entry, [s, e): a whole NUMBER (number.h). q is the whole list, quoted. */
static int parse_id(const char *s, const char *e, int limit, int *id, const char *kind, const char *q,
		    char *err, size_t errlen)
{
	char part[SMPOL_QUOTE_LEN], why[SMPOL_ERRLEN];
	uint64_t v;

	if (s == e)
		return smpol_fail(err, errlen, EINVAL, "bad %s %s: a range is missing a number", kind, q);
	if (smpol_number_parse_span(s, (size_t)(e - s), 0, 0, (uint64_t)limit - 1, &v, why, sizeof(why)))
		return smpol_fail(err, errlen, EINVAL, "bad %s %s: id %s: %s", kind, q,
				  smpol_quote_n(s, (size_t)(e - s), part, sizeof(part)), why);
	*id = (int)v;
	return 0;
}

/* One comma-separated entry "N" or "N-M", [s, e). */
static int parse_entry(const char *s, const char *e, int limit, const struct sink *out,
		       const char *q, char *err, size_t errlen)
{
	const char *dash = memchr(s, '-', (size_t)(e - s));
	char part[SMPOL_QUOTE_LEN];
	int lo, hi, rc;

	if (s == e)
		return smpol_fail(err, errlen, EINVAL, "bad %s %s: it has an empty entry", out->kind, q);
	rc = parse_id(s, dash ? dash : e, limit, &lo, out->kind, q, err, errlen);
	if (!rc)
		rc = dash ? parse_id(dash + 1, e, limit, &hi, out->kind, q, err, errlen) : 0;
	if (rc)
		return rc;
	if (!dash)
		hi = lo;
	if (hi < lo)
		return smpol_fail(err, errlen, EINVAL, "bad %s %s: the range %s goes backwards", out->kind, q,
				  smpol_quote_n(s, (size_t)(e - s), part, sizeof(part)));
	if (out->add(out->set, lo, hi) < 0)
		return smpol_fail(err, errlen, ENOMEM, "out of memory for the %s %s", out->kind, q);
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

/* The ids of text into out (limit already within the kind's). */
static int parse_list(const char *text, int limit, const struct sink *out, char *err, size_t errlen)
{
	char q[SMPOL_QUOTE_LEN];
	const char *s, *e;

	smpol_quote(text, q, sizeof(q));
	trim(text, &s, &e);
	while (s < e) {
		const char *comma = memchr(s, ',', (size_t)(e - s));
		const char *end = comma ? comma : e;
		int rc = parse_entry(s, end, limit, out, q, err, errlen);

		if (rc)
			return rc;
		if (comma && comma + 1 == e)
			return smpol_fail(err, errlen, EINVAL, "bad %s %s: it ends with a comma", out->kind, q);
		s = comma ? comma + 1 : e;
	}
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
static int parse_mask(const char *text, int limit, const struct sink *out, char *err, size_t errlen)
{
	char q[SMPOL_QUOTE_LEN], part[SMPOL_QUOTE_LEN];
	const char *s, *e;
	int bit = 0;

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
				if (out->add(out->set, id, id) < 0)
					return smpol_fail(err, errlen, ENOMEM, "out of memory for the mask %s", q);
			}
		}
		bit += 32;
		e = group > s ? group - 1 : s;
		if (group > s && e == s)
			return smpol_fail(err, errlen, EINVAL, "bad mask %s: it starts with a comma", q);
	}
	return 0;
}

static int limit_within(int limit, int most)
{
	return limit < 1 || limit > most ? most : limit;
}

/* A parsed node set is out; a failed one leaves out alone. */
static int nodes_take(int rc, const struct smpol_bitmap *parsed, struct smpol_bitmap *out)
{
	if (!rc)
		*out = *parsed;
	return rc;
}

int smpol_bitmap_parse_list(const char *text, int limit, struct smpol_bitmap *out, char *err, size_t errlen)
{
	struct smpol_bitmap b = { 0 };

	return nodes_take(parse_list(text, limit_within(limit, SMPOL_MAX_NODES),
				     &(struct sink){ "node list", add_node_ids, &b }, err, errlen), &b, out);
}

int smpol_bitmap_parse_mask(const char *text, int limit, struct smpol_bitmap *out, char *err, size_t errlen)
{
	struct smpol_bitmap b = { 0 };

	return nodes_take(parse_mask(text, limit_within(limit, SMPOL_MAX_NODES),
				     &(struct sink){ "mask", add_node_ids, &b }, err, errlen), &b, out);
}

/* A parsed CPU set replaces what out held; a failed one is dropped. */
static int cpus_take(int rc, struct smpol_cpus *parsed, struct smpol_cpus *out)
{
	if (rc) {
		smpol_cpus_free(parsed);
		return rc;
	}
	smpol_cpus_free(out);
	*out = *parsed;
	return 0;
}

int smpol_cpus_parse_list(const char *text, int limit, struct smpol_cpus *out, char *err, size_t errlen)
{
	struct smpol_cpus c = { 0 };

	return cpus_take(parse_list(text, limit_within(limit, SMPOL_MAX_CPUS),
				      &(struct sink){ "CPU list", add_cpu_ids, &c }, err, errlen), &c, out);
}

int smpol_cpus_parse_mask(const char *text, int limit, struct smpol_cpus *out, char *err, size_t errlen)
{
	struct smpol_cpus c = { 0 };

	return cpus_take(parse_mask(text, limit_within(limit, SMPOL_MAX_CPUS),
				      &(struct sink){ "mask", add_cpu_ids, &c }, err, errlen), &c, out);
}
