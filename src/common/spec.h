/* spec.h - the user's --mem-interleave request, parsed and checked.
 *
 * Syntax: [quiet|verbose,]MODE[,nodes=LIST][,weights=N:W[:N:W...]][,scope=socket|all]
 *         [,precision=P][,strict]
 * MODE: weighted | auto | interleave | none | help. Explicit weights imply the nodes.
 * The same value parsed twice gives the same spec (callbacks may run twice).
 * nodes=LIST may hold commas ("nodes=0,2,strict"): words after it that start with a
 * digit continue the list. A key given twice must repeat its value; nodes= and
 * weights= together must name the same nodes; weights= only with weighted; help
 * stands alone; none takes nothing but quiet|verbose.
 */
#ifndef MPOL_SPEC_H
#define MPOL_SPEC_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "bitmap.h"
#include "plan.h"

enum mpol_mode {
	MPOL_MODE_UNSET,       /* no option given */
	MPOL_MODE_NONE,
	MPOL_MODE_WEIGHTED,
	MPOL_MODE_AUTO,
	MPOL_MODE_INTERLEAVE,
	MPOL_MODE_HELP,
};

struct mpol_spec {
	enum mpol_mode mode;
	bool verbose;
	bool strict;
	bool has_nodes;
	struct mpol_bitmap nodes;
	bool has_weights;
	uint8_t weights[MPOL_MAX_NODES];   /* 0 = node not named */
	bool has_scope;
	enum mpol_scope scope;
	bool has_precision;
	double precision;
};

/* Parse; -EINVAL with one sentence naming the bad part ("bad weight '0' for node 2:
 * weights are 1-255"). */
int mpol_spec_parse(const char *text, struct mpol_spec *spec, char *err, size_t errlen);

/* A precision: a number P with 0 < P <= 1; -EINVAL naming the text otherwise. */
int mpol_precision_parse(const char *text, double *out, char *err, size_t errlen);

/* Canonical text of a spec (parse(format(s)) == s). */
int mpol_spec_format(const struct mpol_spec *spec, char *buf, size_t len);

/* The help text printed for MODE=help and in --help. */
const char *mpol_spec_usage(void);

const char *mpol_mode_name(enum mpol_mode mode);

#endif
