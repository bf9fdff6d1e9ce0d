/* placement.c - the one decision of what a step's tasks get (see placement.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "placement.h"
#include "text.h"

void smpol_plan_opts_from_spec(const struct smpol_spec *spec, const struct smpol_site_decision *cfg,
			       uint64_t mem_kb, struct smpol_plan_opts *o)
{
	smpol_plan_opts_default(o);
	o->algorithm = cfg->algorithm;
	o->weight.precision = spec->has_precision ? spec->precision : cfg->precision;
	o->weight.max_sum = cfg->max_weight_sum;
	o->scope = spec->has_scope ? spec->scope : SMPOL_SCOPE_SOCKET;
	o->mem_kb = mem_kb;
	o->has_nodes = spec->has_nodes;
	o->nodes = spec->nodes;
	o->has_weights = spec->has_weights;
	o->weights = spec->weights;
	o->nweights = spec->nweights;
	/* auto interleaves by the kernel's table: every candidate keeps a seat, as there. */
	if (spec->mode == SMPOL_MODE_AUTO)
		o->algorithm = SMPOL_ALGO_KERNEL;
}

static int set_note(char **slot, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* *slot = the sentence, what it held freed. 0 or -ENOMEM (the slot unchanged). */
static int set_note(char **slot, const char *fmt, ...)
{
	char text[SMPOL_ERRLEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return smpol_text_set(slot, text);
}

/* One more sentence after what the note already says. */
static void add_note(char **slot, const char *text)
{
	set_note(slot, "%s%s%s", *slot ? *slot : "", *slot ? "; " : "", text);
}

const char *smpol_regions_by_name(enum smpol_regions_by by)
{
	switch (by) {
	case SMPOL_REGIONS_POLICY:
		return "process_mbind";
	case SMPOL_REGIONS_MOVE:
		return "move_pages";
	default:
		return "none";
	}
}

/* Region-aware placement: how the large mappings get the plan, and what that costs. */
static void settle_regions(const struct smpol_place_in *in, struct smpol_placement *out)
{
	char text[SMPOL_ERRLEN];

	out->min_region_kb = in->spec.min_region_kb;
	if (in->pmbind) {
		out->regions_by = SMPOL_REGIONS_POLICY;
	} else if (!out->weights_known) {
		/* nothing to move the pages onto: they stay where the task faults them */
		out->regions_by = SMPOL_REGIONS_NONE;
		add_note(&out->note, "the weights in force are unknown and this kernel has no process_mbind: large "
			 "mappings stay on the local node");
		return;
	} else {
		out->regions_by = SMPOL_REGIONS_MOVE;
		snprintf(text, sizeof(text), "%s: large mappings' pages are moved onto the plan at each sample "
			 "(sample_interval), the pages they fault in between land on the local node first",
			 in->pmbind_note ? in->pmbind_note : "this kernel has no process_mbind (not upstream; "
			 "plugstack process_mbind_nr= names it where a kernel has it)");
		add_note(&out->note, text);
	}
	if (in->site->sample_interval == 0)
		add_note(&out->note, "sample_interval=0: large mappings are placed once, about 1 s after the first "
			 "task starts; later ones stay on the local node");
}

/* The request cannot be had. The user's own request fails its tasks; the site's
 * default leaves the job without a policy, and the note says why. */
static int cannot_have(const struct smpol_place_in *in, struct smpol_placement *out, const char *why)
{
	char text[256] = "";

	smpol_placement_free(out);
	if (!in->site_default)
		return set_note(&out->failure, "%s", why);   /* -ENOMEM: not silently none */
	smpol_spec_format(&in->spec, text, sizeof(text));
	set_note(&out->note, "the site's default '%s' cannot apply on this node: %s; the tasks run without a "
		 "memory policy", text, why);
	return 0;
}

/* The tasks run on the table's weights for their nodes (or on unknown ones). */
static void run_on_table(const struct smpol_place_in *in, struct smpol_placement *out)
{
	if (in->table_error) {
		out->weights_known = false;
		return;
	}
	smpol_wi_weigh_plans(in->table, out->plans, out->nplans);
}

/* A weighted step: its own weights when the table has them or it holds the lease. */
static void settle_weighted(const struct smpol_place_in *in, struct smpol_placement *out)
{
	struct smpol_wanted_table want;
	char err[SMPOL_ERRLEN];

	if (smpol_wi_from_plans(out->plans, out->nplans, &want.table, &want.nodes, err, sizeof(err)) < 0) {
		set_note(&out->note, "%s; running on the node's current weights", err);
		run_on_table(in, out);
		return;
	}
	if (in->lease == SMPOL_LEASE_HELD)
		return;
	if (in->table_error) {
		set_note(&out->note, "%s; running on the node's current weights, which are unknown", in->table_error);
		run_on_table(in, out);
		return;
	}
	if (smpol_wi_holds(in->table, &want.table, &want.nodes))
		return;         /* the kernel already uses these weights: nothing to write */
	if (in->lease == SMPOL_LEASE_NOT_HELD)
		set_note(&out->note, "%s", in->lease_note ? in->lease_note : "the step does not hold the weights lease; "
			 "running on the node's system weights");
	else if (in->site->sysfs == SMPOL_SYSFS_NEVER)
		set_note(&out->note, "the site does not let jobs write weights (sysfs=never); running on the node's "
			 "system weights");
	else if (in->site->sysfs == SMPOL_SYSFS_EXCLUSIVE && !in->job_owns_node)
		set_note(&out->note, "the job shares the node (sysfs=exclusive); running on the node's system weights");
	else if ((out->want = malloc(sizeof(*out->want)))) {
		*out->want = want;
		out->lease_wanted = true;
		return;
	} else
		set_note(&out->note, "out of memory for the weights table this step needs; running on the node's "
			 "system weights");
	run_on_table(in, out);
}

int smpol_place(const struct smpol_place_in *in, struct smpol_placement *out)
{
	struct smpol_plan_opts opts;
	enum smpol_mode mode = in->spec.mode;
	bool weighted = mode == SMPOL_MODE_WEIGHTED || mode == SMPOL_MODE_AUTO;
	char err[SMPOL_ERRLEN];
	int rc;

	memset(out, 0, sizeof(*out));
	out->path = SMPOL_PATH_NONE;
	if (mode == SMPOL_MODE_NONE || mode == SMPOL_MODE_UNSET || mode == SMPOL_MODE_HELP)
		return 0;
	if (weighted && !in->table->present && in->spec.strict)
		return cannot_have(in, out, "strict: this kernel has no weighted interleave (needs Linux 6.9); "
				   "not falling back to interleave");
	smpol_plan_opts_from_spec(&in->spec, in->site, in->mem_kb, &opts);
	opts.bandwidth = in->bandwidth;
	rc = smpol_plan_all(in->topo, &opts, &out->plans, &out->nplans, err, sizeof(err));
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0)
		return cannot_have(in, out, err);
	out->opts = opts;
	out->opts.bandwidth = NULL;
	out->active = true;
	out->weights_known = true;
	if (!weighted || !in->table->present) {
		out->path = SMPOL_PATH_INTERLEAVE;
		for (int i = 0; i < out->nplans; i++)
			smpol_plan_set_equal_weights(&out->plans[i]);
		if (weighted)
			set_note(&out->note, "this kernel has no weighted interleave (needs Linux 6.9): plain interleave "
				 "over the same nodes");
	} else {
		out->path = SMPOL_PATH_WEIGHTED;
		if (mode == SMPOL_MODE_AUTO) {
			if (in->table_error)
				set_note(&out->note, "%s; the kernel's weights are unknown", in->table_error);
			run_on_table(in, out);
		} else {
			if (in->span_cpus)
				smpol_plan_scale_for_span(in->topo, out->plans, out->nplans, in->span_cpus, &opts.weight);
			settle_weighted(in, out);
		}
	}
	/* a step that still wants the lease decides again with its outcome */
	if (in->spec.min_region_kb && !out->lease_wanted)
		settle_regions(in, out);
	return 0;
}

void smpol_placement_free(struct smpol_placement *pl)
{
	smpol_plans_free(pl->plans, pl->nplans);
	pl->plans = NULL;
	pl->nplans = 0;
	free(pl->want);
	pl->want = NULL;
	pl->lease_wanted = false;
	pl->active = false;
	pl->path = SMPOL_PATH_NONE;
	pl->min_region_kb = 0;
	pl->regions_by = SMPOL_REGIONS_NONE;
	free(pl->note);
	free(pl->failure);
	pl->note = pl->failure = NULL;
}

int smpol_placement_pick(const struct smpol_placement *pl, const struct smpol_topology *topo,
			 const struct smpol_cpus *cpus, struct smpol_plan *chosen,
			 char *err, size_t errlen)
{
	return smpol_plan_pick(topo, pl->plans, pl->nplans, cpus, &pl->opts, chosen, err, errlen);
}
