/* task_target.c - a running task's target, decided as at its launch (see task_target.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "task_target.h"

const struct smpol_step_state *smpol_step_state_find(const struct smpol_step_state *states, int n, pid_t pid,
						     uint64_t start, uint32_t job_id, uint32_t step_id)
{
	for (int i = 0; i < n; i++)
		if (states[i].holder_alive && smpol_step_state_task(&states[i], pid, start))
			return &states[i];
	for (int i = 0; step_id != SMPOL_NO_STEP && i < n; i++)
		if (states[i].holder_alive && states[i].job_id == job_id && states[i].step_id == step_id)
			return &states[i];
	return NULL;
}

/* The decision's inputs: the kept ones over today's node, or the defaults. */
static int target_inputs(const struct smpol_target_in *in, struct smpol_site_decision *site,
			 struct smpol_topology *launch_topo, bool *have_launch_topo,
			 struct smpol_place_in *pin, struct smpol_task_target *out, char *err, size_t errlen)
{
	int rc;

	*have_launch_topo = false;
	if (in->kept) {
		rc = smpol_step_state_place_in(in->kept, in->topo, in->table, in->table_error, launch_topo, pin,
					       err, errlen);
		if (rc < 0)
			return rc;
		*have_launch_topo = true;
		snprintf(out->source, sizeof(out->source), "job %" PRIu32 " step %" PRIu32 "'s kept placement "
			 "(algorithm %s, precision %g, %s)%s", in->kept->job_id, in->kept->step_id,
			 smpol_algorithm_name(in->kept->site.algorithm), in->kept->site.precision,
			 in->kept->lease_held ? "holding the weights lease" : "on the node's weights",
			 in->spec ? ", with --spec" : "");
	} else {
		smpol_site_decision_default(site);
		memset(pin, 0, sizeof(*pin));
		pin->site = site;
		pin->topo = in->topo;
		pin->table = in->table;
		pin->table_error = in->table_error;
		pin->bandwidth = in->bandwidth;
		pin->lease = in->job_holds_lease ? SMPOL_LEASE_HELD : SMPOL_LEASE_NOT_HELD;
		pin->lease_note = "the process holds no weights lease; it runs on the node's weights";
		snprintf(out->source, sizeof(out->source), "defaults (%s)",
			 in->why_defaults ? in->why_defaults : "no kept placement");
	}
	if (in->spec)
		pin->spec = *in->spec;
	/* A running task's request is its own: a failure is reported, never a fallback. */
	pin->site_default = false;
	return 0;
}

int smpol_task_target(const struct smpol_target_in *in, struct smpol_task_target *out, char *err, size_t errlen)
{
	struct smpol_site_decision site;
	struct smpol_topology launch_topo;
	struct smpol_place_in pin;
	struct smpol_placement pl;
	bool have_launch_topo;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!in->kept && !in->spec)
		return smpol_fail(err, errlen, EINVAL, "no request to decide on (no kept placement, no spec)");
	rc = target_inputs(in, &site, &launch_topo, &have_launch_topo, &pin, out, err, errlen);
	if (rc < 0)
		return rc;
	smpol_spec_format(&pin.spec, out->spec_text, sizeof(out->spec_text));
	rc = smpol_place(&pin, &pl);
	if (rc == 0 && pl.failure)
		rc = smpol_fail(err, errlen, EINVAL, "%s", pl.failure);
	else if (rc == 0 && !pl.active)
		rc = smpol_fail(err, errlen, EINVAL, "its request '%s' names no interleave", out->spec_text);
	if (rc == 0)
		rc = smpol_placement_pick(&pl, pin.topo, in->cpus, &out->plan, err, errlen);
	if (rc == 0) {
		out->path = pl.path;
		out->weights_known = pl.weights_known;
		out->min_region_kb = pl.min_region_kb;
		snprintf(out->note, sizeof(out->note), "%s", pl.note ? pl.note : "");
	}
	smpol_placement_free(&pl);
	if (have_launch_topo)
		smpol_topology_free(&launch_topo);
	return rc;
}
