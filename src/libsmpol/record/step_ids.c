/* step_ids.c - sets of a job's steps, listed as ranges (see step_ids.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "step_ids.h"

enum key_kind { KEY_NUMBER, KEY_NAME, KEY_OTHER };

/* A decimal step number at p, without leading zeros, within 32 bits; *end after it. */
static bool parse_number(const char *p, const char **end, uint32_t *v)
{
	uint64_t x = 0;
	const char *q = p;

	if (*q < '0' || *q > '9' || (*q == '0' && q[1] >= '0' && q[1] <= '9'))
		return false;
	for (; *q >= '0' && *q <= '9'; q++) {
		x = x * 10 + (uint64_t)(*q - '0');
		if (x > UINT32_MAX)
			return false;
	}
	*end = q;
	*v = (uint32_t)x;
	return true;
}

static bool is_name(const char *p, size_t len)
{
	if (len == 0 || len >= SMPOL_STEP_NAME_LEN || p[0] < 'a' || p[0] > 'z')
		return false;
	for (size_t i = 1; i < len; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
			return false;
	return true;
}

static enum key_kind classify(const char *step, uint32_t *num)
{
	const char *end;

	if (parse_number(step, &end, num) && *end == '\0')
		return KEY_NUMBER;
	return is_name(step, strlen(step)) ? KEY_NAME : KEY_OTHER;
}

void smpol_step_ids_init(struct smpol_step_ids *s)
{
	memset(s, 0, sizeof(*s));
}

void smpol_step_ids_free(struct smpol_step_ids *s)
{
	free(s->ids);
	smpol_step_ids_init(s);
}

static int grow(struct smpol_step_ids *s, size_t more, char *err, size_t errlen)
{
	size_t cap = s->cap ? s->cap : 64;
	uint32_t *bigger;

	if (s->n + more > SMPOL_STEP_IDS_MAX)
		return smpol_fail(err, errlen, E2BIG, "a list of steps holds at most %u steps", SMPOL_STEP_IDS_MAX);
	if (s->n + more <= s->cap)
		return 0;
	while (cap < s->n + more)
		cap *= 2;
	bigger = realloc(s->ids, cap * sizeof(*bigger));
	if (!bigger)
		return smpol_fail(err, errlen, ENOMEM, "out of memory listing steps");
	s->ids = bigger;
	s->cap = cap;
	return 0;
}

/* Where id is, or would go, in the ascending ids. */
static size_t position(const struct smpol_step_ids *s, uint32_t id)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int add_number(struct smpol_step_ids *s, uint32_t id, char *err, size_t errlen)
{
	size_t at = position(s, id);
	int rc;

	if (at < s->n && s->ids[at] == id)
		return 0;
	rc = grow(s, 1, err, errlen);
	if (rc < 0)
		return rc;
	memmove(s->ids + at + 1, s->ids + at, (s->n - at) * sizeof(*s->ids));
	s->ids[at] = id;
	s->n++;
	return 0;
}

static int add_name(struct smpol_step_ids *s, const char *name, size_t len, char *err, size_t errlen)
{
	int at = 0;

	while (at < s->nnames && strncmp(s->names[at], name, len) < 0)
		at++;
	if (at < s->nnames && !strncmp(s->names[at], name, len) && s->names[at][len] == '\0')
		return 0;
	if (s->nnames == SMPOL_STEP_NAMES_MAX)
		return smpol_fail(err, errlen, E2BIG, "a list of steps holds at most %d named steps",
				 SMPOL_STEP_NAMES_MAX);
	memmove(s->names[at + 1], s->names[at], (size_t)(s->nnames - at) * sizeof(s->names[0]));
	memcpy(s->names[at], name, len);
	s->names[at][len] = '\0';
	s->nnames++;
	return 0;
}

int smpol_step_ids_add(struct smpol_step_ids *s, const char *step, char *err, size_t errlen)
{
	char q[SMPOL_QUOTE_LEN];
	uint32_t num;

	switch (classify(step, &num)) {
	case KEY_NUMBER:
		return add_number(s, num, err, errlen);
	case KEY_NAME:
		return add_name(s, step, strlen(step), err, errlen);
	default:
		return smpol_fail(err, errlen, EINVAL, "step %s is neither a step number nor a step name",
				 smpol_quote(step, q, sizeof(q)));
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Sort the ids, each kept once. Lists come in order, and steps are folded oldest
 * first, so there is mostly nothing to do. */
static void settle(struct smpol_step_ids *s)
{
	size_t out = 0, in_order = 1;

	while (in_order < s->n && s->ids[in_order - 1] < s->ids[in_order])
		in_order++;
	if (in_order >= s->n)
		return;
	qsort(s->ids, s->n, sizeof(*s->ids), cmp_u32);
	for (size_t i = 0; i < s->n; i++)
		if (out == 0 || s->ids[out - 1] != s->ids[i])
			s->ids[out++] = s->ids[i];
	s->n = out;
}

/* One item of a list at p ("7", "0-131", "200-298:2", "batch"), appended unsorted. */
static int parse_item(const char *p, size_t len, struct smpol_step_ids *s, char *err, size_t errlen)
{
	const char *end = p;
	uint32_t first, last, stride = 1;
	uint64_t count;
	int rc;

	if (is_name(p, len))
		return add_name(s, p, len, err, errlen);
	if (!parse_number(p, &end, &first))
		return -EINVAL;
	last = first;
	if (*end == '-') {
		if (!parse_number(end + 1, &end, &last))
			return -EINVAL;
		/* a stride belongs to a range */
		if (*end == ':' && (!parse_number(end + 1, &end, &stride) || stride == 0))
			return -EINVAL;
	}
	if (end != p + len || last < first)
		return -EINVAL;
	count = ((uint64_t)last - first) / stride + 1;
	rc = grow(s, count > SMPOL_STEP_IDS_MAX ? SMPOL_STEP_IDS_MAX + 1 : (size_t)count, err, errlen);
	if (rc < 0)
		return rc;
	for (uint64_t id = first; id <= last; id += stride)
		s->ids[s->n++] = (uint32_t)id;
	return 0;
}

int smpol_step_ids_parse(const char *text, struct smpol_step_ids *s, char *err, size_t errlen)
{
	char q[SMPOL_QUOTE_LEN];
	const char *p = text;
	int rc = 0;

	while (rc == 0) {
		size_t len = strcspn(p, ",");

		rc = parse_item(p, len, s, err, errlen);
		if (rc == -EINVAL)
			rc = smpol_fail(err, errlen, EINVAL, "%s is not a list of steps (like 0-131,140,200-298:2,batch)",
				       smpol_quote(text, q, sizeof(q)));
		if (p[len] != ',')
			break;
		p += len + 1;
	}
	settle(s);
	return rc;
}

int smpol_step_ids_merge(struct smpol_step_ids *into, const struct smpol_step_ids *from, char *err, size_t errlen)
{
	int rc = grow(into, from->n, err, errlen);

	if (rc < 0)
		return rc;
	if (from->n) {
		memcpy(into->ids + into->n, from->ids, from->n * sizeof(*from->ids));
		into->n += from->n;
		settle(into);
	}
	for (int i = 0; rc == 0 && i < from->nnames; i++)
		rc = add_name(into, from->names[i], strlen(from->names[i]), err, errlen);
	return rc;
}

bool smpol_step_ids_has(const struct smpol_step_ids *s, const char *step)
{
	uint32_t num;
	size_t at;

	switch (classify(step, &num)) {
	case KEY_NUMBER:
		at = position(s, num);
		return at < s->n && s->ids[at] == num;
	case KEY_NAME:
		for (int i = 0; i < s->nnames; i++)
			if (!strcmp(s->names[i], step))
				return true;
		return false;
	default:
		return false;
	}
}

void smpol_step_ids_remove(struct smpol_step_ids *s, const char *step)
{
	uint32_t num;
	size_t at;

	switch (classify(step, &num)) {
	case KEY_NUMBER:
		at = position(s, num);
		if (at < s->n && s->ids[at] == num) {
			s->n--;
			memmove(s->ids + at, s->ids + at + 1, (s->n - at) * sizeof(*s->ids));
		}
		break;
	case KEY_NAME:
		for (int i = 0; i < s->nnames; i++) {
			if (!strcmp(s->names[i], step)) {
				s->nnames--;
				memmove(s->names + i, s->names + i + 1, (size_t)(s->nnames - i) * sizeof(s->names[0]));
				break;
			}
		}
		break;
	default:
		break;
	}
}

size_t smpol_step_ids_count(const struct smpol_step_ids *s)
{
	return s->n + (size_t)s->nnames;
}

/* How many steps from index i on, not taken yet, step by stride: ids[i], ids[i] +
 * stride, ... (a forward scan: the list is sorted). */
static size_t run_length(const struct smpol_step_ids *s, const bool *taken, size_t i, uint32_t stride)
{
	uint64_t next = (uint64_t)s->ids[i] + stride;
	size_t len = 1;

	for (size_t at = i + 1; at < s->n && stride > 0; at++) {
		if (s->ids[at] < next || taken[at])
			continue;
		if (s->ids[at] > next)
			break;
		len++;
		next += stride;
	}
	return len;
}

/* Mark the run of len steps from i taken; its last step. */
static uint32_t take_run(const struct smpol_step_ids *s, bool *taken, size_t i, uint32_t stride, size_t len)
{
	uint64_t next = s->ids[i];

	for (size_t at = i; at < s->n && len > 0; at++) {
		if (s->ids[at] == next && !taken[at]) {
			taken[at] = true;
			len--;
			next += stride;
		}
	}
	return (uint32_t)(next - stride);
}

/* How many steps from index i on, not taken yet, follow each other at one stride
 * with none between them (as "0-5" or "0-10:2" list them); *stride is that stride. */
static size_t next_run(const struct smpol_step_ids *s, const bool *taken, size_t i, uint32_t *stride)
{
	size_t len = 1, prev = i;

	*stride = 0;
	for (size_t at = i + 1; at < s->n; at++) {
		if (taken[at])
			continue;
		if (len == 1)
			*stride = s->ids[at] - s->ids[i];
		else if (s->ids[at] - s->ids[prev] != *stride)
			break;
		len++;
		prev = at;
	}
	return len;
}

/* Strides tried from one step when the steps that follow it make no range: the
 * distances to the next few steps, smallest first (every third step of another
 * shape: "2-98:3"). */
#define STRIDE_TRIES 8
/* Steps a range that skips others must have to be worth it ("0,2-4", not "0-4:2,3"). */
#define SKIPPING_RUN_MIN 4

/* The stride of the range to list from i, 0 for i alone; *len its steps. The
 * smallest stride that makes a range: the densest runs cover the most. */
static uint32_t best_stride(const struct smpol_step_ids *s, const bool *taken, size_t i, size_t *len)
{
	uint32_t stride;
	size_t tries = 0;

	*len = next_run(s, taken, i, &stride);
	if (*len >= 3)
		return stride;
	for (size_t k = i + 1; k < s->n && tries < STRIDE_TRIES; k++) {
		if (taken[k])
			continue;
		tries++;
		stride = s->ids[k] - s->ids[i];
		*len = run_length(s, taken, i, stride);
		if (*len >= SKIPPING_RUN_MIN)
			return stride;
	}
	*len = 1;
	return 0;
}

char *smpol_step_ids_format(const struct smpol_step_ids *s)
{
	char *text = NULL;
	size_t size = 0;
	bool *taken = calloc(s->n ? s->n : 1, sizeof(*taken));
	FILE *out = taken ? open_memstream(&text, &size) : NULL;
	const char *sep = "";

	if (!out) {
		free(taken);
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++) {
		size_t len;
		uint32_t stride;

		if (taken[i])
			continue;
		stride = best_stride(s, taken, i, &len);
		if (stride == 0) {
			taken[i] = true;
			fprintf(out, "%s%u", sep, s->ids[i]);
		} else {
			uint32_t last = take_run(s, taken, i, stride, len);

			fprintf(out, stride == 1 ? "%s%u-%u" : "%s%u-%u:%u", sep, s->ids[i], last, stride);
		}
		sep = ",";
	}
	for (int i = 0; i < s->nnames; i++) {
		fprintf(out, "%s%s", sep, s->names[i]);
		sep = ",";
	}
	free(taken);
	if (fclose(out) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

bool smpol_step_key_listable(const char *step)
{
	uint32_t num;

	return classify(step, &num) != KEY_OTHER;
}

int smpol_step_key_cmp(const char *a, const char *b)
{
	uint32_t x = 0, y = 0;
	enum key_kind ka = classify(a, &x), kb = classify(b, &y);

	if (ka != kb)
		return ka < kb ? -1 : 1;
	if (ka == KEY_NUMBER)
		return x < y ? -1 : x > y;
	return strcmp(a, b);
}
