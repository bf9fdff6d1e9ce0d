/* spec.c - the --mem-interleave value: parse, check, format (see spec.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "number.h"
#include "spec.h"
#include "units.h"

/* A precision has at most 9 digits after the point: 0.000000001 to 1. */
#define PRECISION_DECIMALS 9
#define PRECISION_ONE 1000000000ULL

#define KNOWN "modes: weighted, auto, interleave, none, help; " \
	"options: quiet, verbose, nodes=, weights=, scope=, precision=, min_region=, strict"

static const char *const mode_names[] = {
	[SMPOL_MODE_UNSET] = "unset",
	[SMPOL_MODE_NONE] = "none",
	[SMPOL_MODE_WEIGHTED] = "weighted",
	[SMPOL_MODE_AUTO] = "auto",
	[SMPOL_MODE_INTERLEAVE] = "interleave",
	[SMPOL_MODE_HELP] = "help",
};

const char *smpol_mode_name(enum smpol_mode mode)
{
	if ((unsigned)mode >= sizeof(mode_names) / sizeof(mode_names[0]))
		return "unknown";
	return mode_names[mode];
}

/* What one parse has seen so far, to catch a key given twice with different values. */
struct seen {
	bool mode, verbosity, weights, scope, precision, min_region;
	int options;          /* keys other than the mode and quiet/verbose */
};

static int parse_mode(const char *word, struct smpol_spec *s, struct seen *seen, char *err, size_t errlen)
{
	for (int m = SMPOL_MODE_NONE; m <= SMPOL_MODE_HELP; m++) {
		if (strcmp(word, mode_names[m]))
			continue;
		if (seen->mode && s->mode != (enum smpol_mode)m)
			return smpol_fail(err, errlen, EINVAL, "two modes given ('%s' and '%s'); give one",
					 mode_names[s->mode], word);
		seen->mode = true;
		s->mode = m;
		return 1;
	}
	return 0;
}

static int parse_verbosity(const char *word, struct smpol_spec *s, struct seen *seen, char *err, size_t errlen)
{
	bool verbose = !strcmp(word, "verbose");

	if (!verbose && strcmp(word, "quiet"))
		return 0;
	if (seen->verbosity && s->verbose != verbose)
		return smpol_fail(err, errlen, EINVAL, "both quiet and verbose given; give one");
	seen->verbosity = true;
	s->verbose = verbose;
	return 1;
}

/* The highest id in a set that is not empty. */
static int highest(const struct smpol_bitmap *b)
{
	int last = -1;

	for (int id = smpol_bitmap_next(b, 0); id >= 0; id = smpol_bitmap_next(b, id + 1))
		last = id;
	return last;
}

/* weights=N:W[:N:W...] into w[] (0 = not named). */
static int parse_weights(const char *text, uint8_t *w, struct smpol_bitmap *nodes, char *err, size_t errlen)
{
	char q[SMPOL_QUOTE_LEN], part[SMPOL_QUOTE_LEN], why[SMPOL_ERRLEN];
	const char *p = text;

	memset(w, 0, SMPOL_MAX_NODES);
	smpol_bitmap_clear(nodes);
	if (!*text)
		return smpol_fail(err, errlen, EINVAL, "weights= needs node:weight pairs, such as weights=0:3:2:1");
	smpol_quote(text, q, sizeof(q));
	while (*p) {
		const char *colon = strchr(p, ':'), *wend;
		uint64_t node, weight;

		if (!colon)
			return smpol_fail(err, errlen, EINVAL, "bad weights %s: %s has no weight; give node:weight pairs",
					  q, smpol_quote(p, part, sizeof(part)));
		wend = strchr(colon + 1, ':');
		if (!wend)
			wend = colon + strlen(colon);
		if (smpol_number_parse_span(p, (size_t)(colon - p), 0, 0, SMPOL_MAX_NODES - 1, &node, why, sizeof(why)))
			return smpol_fail(err, errlen, EINVAL, "bad weights %s: node %s: %s", q,
					  smpol_quote_n(p, (size_t)(colon - p), part, sizeof(part)), why);
		if (smpol_number_parse_span(colon + 1, (size_t)(wend - colon - 1), 0, 1, SMPOL_WEIGHT_MAX, &weight,
					    why, sizeof(why)))
			return smpol_fail(err, errlen, EINVAL, "bad weight %s for node %" PRIu64 ": %s",
					  smpol_quote_n(colon + 1, (size_t)(wend - colon - 1), part, sizeof(part)), node, why);
		if (w[node])
			return smpol_fail(err, errlen, EINVAL, "bad weights %s: node %" PRIu64 " is given twice", q, node);
		w[node] = (uint8_t)weight;
		smpol_bitmap_set(nodes, (int)node);
		p = *wend ? wend + 1 : wend;
		if (*wend && !*p)
			return smpol_fail(err, errlen, EINVAL, "bad weights %s: it ends with ':'", q);
	}
	return 0;
}

int smpol_precision_parse(const char *text, double *out, char *err, size_t errlen)
{
	char q[SMPOL_QUOTE_LEN], why[SMPOL_ERRLEN];
	uint64_t billionths;

	if (smpol_number_parse(text, PRECISION_DECIMALS, 1, PRECISION_ONE, &billionths, why, sizeof(why)))
		return smpol_fail(err, errlen, EINVAL, "bad precision %s: %s", smpol_quote(text, q, sizeof(q)), why);
	*out = (double)billionths / (double)PRECISION_ONE;
	return 0;
}

/* key=value words. The node list may hold commas: its continuation is passed in
 * already joined. */
static int parse_option(const char *key, const char *value, struct smpol_spec *s, struct seen *seen,
			char *err, size_t errlen)
{
	char why[SMPOL_ERRLEN], qk[SMPOL_QUOTE_LEN], qv[SMPOL_QUOTE_LEN];
	int rc;

	seen->options++;
	smpol_quote(key, qk, sizeof(qk));
	smpol_quote(value, qv, sizeof(qv));
	if (!strcmp(key, "strict")) {
		if (value)
			return smpol_fail(err, errlen, EINVAL, "strict takes no value (found strict=%s)", qv);
		s->strict = true;
		return 0;
	}
	if (!value)
		return smpol_fail(err, errlen, EINVAL, "unknown word %s (%s)", qk, KNOWN);
	if (!*value)
		return smpol_fail(err, errlen, EINVAL, "the key %s has no value", qk);
	if (!strcmp(key, "nodes")) {
		struct smpol_bitmap nodes;

		rc = smpol_bitmap_parse_list(value, SMPOL_MAX_NODES, &nodes, why, sizeof(why));
		if (rc)
			return smpol_fail(err, errlen, EINVAL, "nodes=: %s", why);
		if (smpol_bitmap_empty(&nodes))
			return smpol_fail(err, errlen, EINVAL, "nodes= names no node");
		if (s->has_nodes && !smpol_bitmap_equal(&nodes, &s->nodes))
			return smpol_fail(err, errlen, EINVAL,
					 seen->weights ? "nodes=%s names other nodes than weights=; give one of them"
						       : "nodes= given twice with different lists (%s is the second)",
					 qv);
		s->has_nodes = true;
		s->nodes = nodes;
		return 0;
	}
	if (!strcmp(key, "weights")) {
		uint8_t w[SMPOL_MAX_NODES];
		struct smpol_bitmap nodes;
		int n;

		rc = parse_weights(value, w, &nodes, err, errlen);
		if (rc)
			return rc;
		n = highest(&nodes) + 1;
		if (seen->weights && (n != s->nweights || memcmp(w, s->weights, (size_t)n)))
			return smpol_fail(err, errlen, EINVAL, "weights= given twice with different values (%s is the second)",
					 qv);
		if (s->has_nodes && !smpol_bitmap_equal(&nodes, &s->nodes))
			return smpol_fail(err, errlen, EINVAL,
					 "weights=%s names other nodes than nodes=; give one of them", qv);
		if (!seen->weights && !(s->weights = malloc((size_t)n)))
			return smpol_fail(err, errlen, ENOMEM, "out of memory for weights=");
		seen->weights = s->has_weights = s->has_nodes = true;
		memcpy(s->weights, w, (size_t)n);
		s->nweights = n;
		s->nodes = nodes;
		return 0;
	}
	if (!strcmp(key, "scope")) {
		enum smpol_scope scope;

		if (!strcmp(value, "socket"))
			scope = SMPOL_SCOPE_SOCKET;
		else if (!strcmp(value, "all"))
			scope = SMPOL_SCOPE_ALL;
		else
			return smpol_fail(err, errlen, EINVAL, "bad scope %s: use socket or all", qv);
		if (s->has_scope && s->scope != scope)
			return smpol_fail(err, errlen, EINVAL, "scope= given twice with different values");
		s->has_scope = true;
		s->scope = scope;
		return 0;
	}
	if (!strcmp(key, "precision")) {
		double p = 0;

		rc = smpol_precision_parse(value, &p, err, errlen);
		if (rc)
			return rc;
		if (s->has_precision && s->precision != p)
			return smpol_fail(err, errlen, EINVAL, "precision= given twice with different values");
		s->has_precision = true;
		s->precision = p;
		return 0;
	}
	if (!strcmp(key, "min_region")) {
		uint64_t kb;

		if (smpol_parse_size(value, &kb, why, sizeof(why)) < 0)
			return smpol_fail(err, errlen, EINVAL, "min_region=: %s", why);
		if (kb < SMPOL_MIN_REGION_LEAST_KB)
			return smpol_fail(err, errlen, EINVAL, "min_region=%s is below one page: give at least %dK "
					 "(64M is a good start)", qv, SMPOL_MIN_REGION_LEAST_KB);
		if (seen->min_region && s->min_region_kb != kb)
			return smpol_fail(err, errlen, EINVAL, "min_region= given twice with different values");
		seen->min_region = true;
		s->min_region_kb = kb;
		return 0;
	}
	return smpol_fail(err, errlen, EINVAL, "unknown key %s (%s)", qk, KNOWN);
}

/* A part that continues nodes=LIST after a comma: it starts with a digit. */
static bool continues_list(const char *part, const char *last_key)
{
	return last_key && !strcmp(last_key, "nodes") && isdigit((unsigned char)*part);
}

/* Whole-spec rules, after every word is read. */
static int check_spec(const struct smpol_spec *s, const struct seen *seen, char *err, size_t errlen)
{
	if (!seen->mode)
		return smpol_fail(err, errlen, EINVAL, "no mode given (weighted, auto, interleave, none or help)");
	if (s->mode == SMPOL_MODE_HELP && (seen->options || seen->verbosity))
		return smpol_fail(err, errlen, EINVAL, "help takes nothing else; give it alone");
	if (s->mode == SMPOL_MODE_NONE && seen->options)
		return smpol_fail(err, errlen, EINVAL, "none takes no options: it leaves the default policy");
	if (s->min_region_kb && s->mode != SMPOL_MODE_WEIGHTED && s->mode != SMPOL_MODE_AUTO &&
	    s->mode != SMPOL_MODE_INTERLEAVE)
		return smpol_fail(err, errlen, EINVAL, "min_region= needs a mode that interleaves (weighted, auto "
				 "or interleave)");
	if (s->has_weights && s->mode != SMPOL_MODE_WEIGHTED)
		return smpol_fail(err, errlen, EINVAL, "weights= needs mode weighted (%s does not use weights)",
				 mode_names[s->mode]);
	return 0;
}

int smpol_spec_parse(const char *text, struct smpol_spec *spec, char *err, size_t errlen)
{
	struct smpol_spec s;
	struct seen seen = { 0 };
	char buf[4096], list[4096] = "", *save = NULL, *part;
	const char *last_key = NULL;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	if (!text || !*text)
		return smpol_fail(err, errlen, EINVAL, "the value is empty; try --mem-interleave=help");
	if (strlen(text) >= sizeof(buf))
		return smpol_fail(err, errlen, EINVAL, "the value is too long (%zu characters)", strlen(text));
	if (text[0] == ',' || text[strlen(text) - 1] == ',' || strstr(text, ",,"))
		return smpol_fail(err, errlen, EINVAL, "%s has an empty part between commas",
				  smpol_quote(text, buf, sizeof(buf)));
	strcpy(buf, text);
	for (part = strtok_r(buf, ",", &save); part && !rc; part = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(part, '=');

		if (continues_list(part, last_key)) {
			/* nodes=0,2: gather the list, parse it once it is complete */
			strcat(list, ",");
			strcat(list, part);
			continue;
		}
		if (*list) {
			rc = parse_option("nodes", list, &s, &seen, err, errlen);
			*list = '\0';
			if (rc)
				break;
		}
		last_key = NULL;
		if (eq) {
			*eq = '\0';
			if (!strcmp(part, "nodes")) {
				strcpy(list, eq + 1);
				last_key = "nodes";
				if (!*list)
					rc = smpol_fail(err, errlen, EINVAL, "the key 'nodes' has no value");
				continue;
			}
			rc = parse_option(part, eq + 1, &s, &seen, err, errlen);
		} else if (!(rc = parse_mode(part, &s, &seen, err, errlen)) &&
			   !(rc = parse_verbosity(part, &s, &seen, err, errlen))) {
			rc = parse_option(part, NULL, &s, &seen, err, errlen);
		}
		rc = rc > 0 ? 0 : rc;
	}
	if (!rc && *list)
		rc = parse_option("nodes", list, &s, &seen, err, errlen);
	if (!rc)
		rc = check_spec(&s, &seen, err, errlen);
	if (rc) {
		smpol_spec_free(&s);
		return rc;
	}
	*spec = s;
	return 0;
}

void smpol_spec_free(struct smpol_spec *spec)
{
	free(spec->weights);
	spec->weights = NULL;
	spec->nweights = 0;
}

int smpol_spec_copy(struct smpol_spec *dst, const struct smpol_spec *src)
{
	uint8_t *w = NULL;

	if (src->nweights && !(w = malloc((size_t)src->nweights)))
		return -ENOMEM;
	if (w)
		memcpy(w, src->weights, (size_t)src->nweights);
	smpol_spec_free(dst);
	*dst = *src;
	dst->weights = w;
	return 0;
}

bool smpol_spec_equal(const struct smpol_spec *a, const struct smpol_spec *b)
{
	return a->mode == b->mode && a->verbose == b->verbose && a->strict == b->strict &&
	       a->has_nodes == b->has_nodes && smpol_bitmap_equal(&a->nodes, &b->nodes) &&
	       a->has_weights == b->has_weights && a->nweights == b->nweights &&
	       (!a->nweights || !memcmp(a->weights, b->weights, (size_t)a->nweights)) &&
	       a->has_scope == b->has_scope && (!a->has_scope || a->scope == b->scope) &&
	       a->has_precision == b->has_precision && (!a->has_precision || a->precision == b->precision) &&
	       a->min_region_kb == b->min_region_kb;
}

/* The precision as the grammar writes it: parse(format(p)) == p. */
static void format_precision(double p, char *buf, size_t len)
{
	smpol_number_format((uint64_t)llround(p * (double)PRECISION_ONE), PRECISION_DECIMALS, buf, len);
}

static int append(char *buf, size_t len, size_t *used, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int append(char *buf, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= len)
		return -ENOSPC;
	va_start(ap, fmt);
	n = vsnprintf(buf + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - *used)
		return -ENOSPC;
	*used += (size_t)n;
	return 0;
}

int smpol_spec_format(const struct smpol_spec *spec, char *buf, size_t len)
{
	char part[4096];
	size_t used = 0;
	int rc;

	if (spec->mode == SMPOL_MODE_UNSET || (unsigned)spec->mode > SMPOL_MODE_HELP)
		return -EINVAL;
	rc = append(buf, len, &used, "%s%s", spec->verbose ? "verbose," : "", mode_names[spec->mode]);
	/* weights= implies the nodes, so the canonical text gives only weights= */
	if (!rc && spec->has_nodes && !spec->has_weights) {
		rc = smpol_bitmap_format_list(&spec->nodes, part, sizeof(part));
		if (!rc)
			rc = append(buf, len, &used, ",nodes=%s", part);
	}
	if (!rc && spec->has_weights) {
		const char *sep = ",weights=";

		for (int id = 0; id < spec->nweights && !rc; id++) {
			if (!spec->weights[id])
				continue;
			rc = append(buf, len, &used, "%s%d:%u", sep, id, spec->weights[id]);
			sep = ":";
		}
	}
	if (!rc && spec->has_scope)
		rc = append(buf, len, &used, ",scope=%s", smpol_scope_name(spec->scope));
	if (!rc && spec->has_precision) {
		format_precision(spec->precision, part, sizeof(part));
		rc = append(buf, len, &used, ",precision=%s", part);
	}
	if (!rc && spec->min_region_kb) {
		smpol_format_size_exact(spec->min_region_kb, part, sizeof(part));
		rc = append(buf, len, &used, ",min_region=%s", part);
	}
	if (!rc && spec->strict)
		rc = append(buf, len, &used, ",strict");
	if (rc && len)
		buf[0] = '\0';
	return rc;
}

const char *smpol_spec_usage(void)
{
	return "Usage: --mem-interleave=[quiet|verbose,]MODE[,nodes=LIST][,weights=N:W[:N:W...]]\n"
	       "                        [,scope=socket|all][,precision=P][,min_region=SIZE][,strict]\n"
	       "\n"
	       "Interleave each task's memory over the node's memory tiers (DRAM, CXL, HBM) in\n"
	       "proportion to their bandwidth.\n"
	       "\n"
	       "MODE:\n"
	       "  weighted    weighted interleave with weights computed for this job from the\n"
	       "              node's HMAT bandwidth (and its memory request)\n"
	       "  auto        weighted interleave with the weights the kernel holds now; only\n"
	       "              the node set is chosen for the job\n"
	       "  interleave  plain interleave over the planned nodes (equal shares)\n"
	       "  none        the default policy (overrides a site default)\n"
	       "  help        print this text and exit\n"
	       "\n"
	       "Options:\n"
	       "  quiet|verbose       verbose prints one line per task on its stderr\n"
	       "  nodes=LIST          interleave only over these memory nodes (0,2 or 0-3)\n"
	       "  weights=N:W[:N:W...]\n"
	       "                      explicit weights 1-255 for nodes N; implies nodes=\n"
	       "  scope=socket|all    socket (default): the task's own socket's memory;\n"
	       "                      all: every node with memory\n"
	       "  precision=P         0 < P <= 1 (default 0.98, or the site's): the smallest\n"
	       "                      weights whose modelled streaming efficiency reaches P\n"
	       "  min_region=SIZE     region-aware: only allocations and mappings of at least\n"
	       "                      SIZE (64M, 1G; no suffix: MiB) are interleaved, as they\n"
	       "                      are made; stacks, small objects and libraries stay on\n"
	       "                      the task's own node\n"
	       "  strict              fail the task when the kernel has no weighted interleave\n"
	       "                      instead of falling back to plain interleave\n"
	       "\n"
	       "weights= goes with weighted only; none takes only quiet|verbose; help stands\n"
	       "alone. A key given twice must repeat its value.\n"
	       "\n"
	       "Examples:\n"
	       "  srun --mem-interleave=weighted ./app\n"
	       "  srun --mem-interleave=verbose,weighted,scope=all,precision=0.95 ./app\n"
	       "  srun --mem-interleave=weighted,nodes=0,2 ./app\n"
	       "  srun --mem-interleave=weighted,weights=0:3:2:1 ./app\n"
	       "  srun --mem-interleave=auto,strict ./app\n"
	       "  srun --mem-interleave=weighted,min_region=64M ./app\n"
	       "\n"
	       "Each task finds what it got in SLURM_MEM_INTERLEAVE_{MODE,NODES,WEIGHTS}.\n"
	       "Details: man mem_interleave.\n";
}
