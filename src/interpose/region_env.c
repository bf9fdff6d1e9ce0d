/* region_env.c - the interposer's environment variable (see region_env.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "number.h"
#include "region_env.h"

#define STATIC_SUFFIX "=static"

int smpol_region_env_format(const struct smpol_region_env *e, char *buf, size_t len)
{
	char nodes[1024];
	int n;

	if (e->min_bytes == 0 || smpol_bitmap_empty(&e->nodes))
		return -EINVAL;
	if (smpol_bitmap_format_list(&e->nodes, nodes, sizeof(nodes)) < 0)
		return -ENOSPC;
	n = snprintf(buf, len, "%llu %s%s %s", (unsigned long long)e->min_bytes,
		     e->weighted ? "weighted" : "interleave", e->static_nodes ? STATIC_SUFFIX : "", nodes);
	return n < 0 || (size_t)n >= len ? -ENOSPC : 0;
}

/* The next space-separated word of *text: its start, its length in *n. */
static const char *word(const char **text, size_t *n)
{
	const char *s = *text + strspn(*text, " ");

	*n = strcspn(s, " ");
	*text = s + *n;
	return s;
}

static bool word_is(const char *w, size_t n, const char *what)
{
	return n == strlen(what) && !strncmp(w, what, n);
}

int smpol_region_env_parse(const char *text, struct smpol_region_env *e, char *err, size_t errlen)
{
	char why[SMPOL_ERRLEN], q[SMPOL_QUOTE_LEN], list[1024];
	const char *w, *rest = text;
	size_t n;
	uint64_t min;

	memset(e, 0, sizeof(*e));
	smpol_quote(text, q, sizeof(q));
	w = word(&rest, &n);
	if (smpol_number_parse_span(w, n, 0, 1, UINT64_MAX, &min, why, sizeof(why)))
		return smpol_fail(err, errlen, EINVAL, SMPOL_REGION_ENV "=%s: the smallest allocation placed: %s", q,
				  why);
	e->min_bytes = min;
	w = word(&rest, &n);
	e->static_nodes = n > strlen(STATIC_SUFFIX) &&
			  !strncmp(w + n - strlen(STATIC_SUFFIX), STATIC_SUFFIX, strlen(STATIC_SUFFIX));
	if (e->static_nodes)
		n -= strlen(STATIC_SUFFIX);
	if (word_is(w, n, "weighted"))
		e->weighted = true;
	else if (!word_is(w, n, "interleave"))
		return smpol_fail(err, errlen, EINVAL, SMPOL_REGION_ENV "=%s: the mode must be weighted or interleave "
				  "(with =static or not)", q);
	w = word(&rest, &n);
	if (n == 0 || n >= sizeof(list) || *(rest + strspn(rest, " ")))
		return smpol_fail(err, errlen, EINVAL, SMPOL_REGION_ENV "=%s: write MIN_BYTES MODE NODES, three words",
				  q);
	memcpy(list, w, n);
	list[n] = '\0';
	if (smpol_bitmap_parse_list(list, SMPOL_MAX_NODES, &e->nodes, why, sizeof(why)) < 0)
		return smpol_fail(err, errlen, EINVAL, SMPOL_REGION_ENV "=%s: %s", q, why);
	if (smpol_bitmap_empty(&e->nodes))
		return smpol_fail(err, errlen, EINVAL, SMPOL_REGION_ENV "=%s: the node list is empty", q);
	return 0;
}
