/* spec.h - the user's --mem-interleave request, parsed and checked.
 *
 * Syntax: [quiet|verbose,]MODE[,nodes=LIST][,weights=N:W[:N:W...]][,scope=socket|all]
 *         [,precision=P][,min_region=SIZE][,strict]
 * MODE: weighted | auto | interleave | none | help. Explicit weights imply the nodes.
 * The same value parsed twice gives the same spec (callbacks may run twice).
 * nodes=LIST may hold commas ("nodes=0,2,strict"): words after it that start with a
 * digit continue the list. A key given twice must repeat its value; nodes= and
 * weights= together must name the same nodes; weights= only with weighted; help
 * stands alone; none takes nothing but quiet|verbose. min_region=SIZE (units.h: 64M;
 * no suffix is MiB; at least 4K) asks for region-aware placement: only mappings of at
 * least SIZE are interleaved, the rest stays on the task's own node (placement.h).
 */
#ifndef SMPOL_SPEC_H
#define SMPOL_SPEC_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "bitmap.h"
#include "plan.h"

enum smpol_mode {
	SMPOL_MODE_UNSET,       /* no option given */
	SMPOL_MODE_NONE,
	SMPOL_MODE_WEIGHTED,
	SMPOL_MODE_AUTO,
	SMPOL_MODE_INTERLEAVE,
	SMPOL_MODE_HELP,
};

struct smpol_spec {
	enum smpol_mode mode;
	bool verbose;
	bool strict;
	bool has_nodes;
	struct smpol_bitmap nodes;
	bool has_weights;
	uint8_t *weights;                   /* has_weights: weights[id] for id < nweights, 0 = node
	                                     * not named; malloc'ed, sized by the highest id */
	int nweights;
	bool has_scope;
	enum smpol_scope scope;
	bool has_precision;
	double precision;
	uint64_t min_region_kb;             /* 0 = not asked: every page interleaved */
};

/* The smallest min_region: one base page. */
#define SMPOL_MIN_REGION_LEAST_KB 4

/* A spec owns its weights: smpol_spec_copy, never `=` (a copy by value borrows them,
 * and its holder says so), and smpol_spec_free. */

/* Parse into *spec, which holds nothing before (smpol_spec_free it after); -EINVAL with
 * one sentence naming the bad part ("bad weight '0' for node 2: weights are 1-255"),
 * -ENOMEM. Nothing changes on error. */
int smpol_spec_parse(const char *text, struct smpol_spec *spec, char *err, size_t errlen);

/* dst = src with weights of its own (what dst held is freed). 0 or -ENOMEM (dst unchanged). */
int smpol_spec_copy(struct smpol_spec *dst, const struct smpol_spec *src);

/* Do two specs ask for the same? */
bool smpol_spec_equal(const struct smpol_spec *a, const struct smpol_spec *b);

/* Free the weights; spec then holds nothing (freeing it again does nothing). */
void smpol_spec_free(struct smpol_spec *spec);

/* A precision: a number P with 0 < P <= 1; -EINVAL naming the text otherwise. */
int smpol_precision_parse(const char *text, double *out, char *err, size_t errlen);

/* Canonical text of a spec (parse(format(s)) == s). */
int smpol_spec_format(const struct smpol_spec *spec, char *buf, size_t len);

/* The help text printed for MODE=help and in --help. */
const char *smpol_spec_usage(void);

const char *smpol_mode_name(enum smpol_mode mode);

#endif
