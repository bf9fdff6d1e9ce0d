/* step.c - slurmstepd (root): site config, topology, the placement decision, the
 * weights lease, and the kept placement; all undone at step end. Tasks inherit the
 * decision when forked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>

#include "lease_place.h"
#include "number.h"
#include "plugin.h"
#include "pmbind.h"
#include "prom_textfile.h"
#include "record_step.h"
#include "release.h"
#include "step_name.h"
#include "sysfs.h"
#include "text.h"
#include "wi.h"

#define LOG_STEP(s, fn, fmt, ...) \
	fn(MI_LOG "job %u step %u: " fmt, (s)->owner.job_id, (s)->owner.step_id, __VA_ARGS__)

/* Remember why the step cannot have the placement it asked for; its tasks fail with it. */
static int step_fail(struct mi_step *s, const char *what, const char *err)
{
	char text[2 * SMPOL_ERRLEN];

	snprintf(text, sizeof(text), "%s%s", what, err);
	LOG_STEP(s, slurm_error, "%s", text);
	s->failed = true;
	free(s->failure);
	s->failure = strdup(text);
	return 0;
}

/* Memory for this step on this node in kB: the step's own limit, else the job's. */
static uint64_t step_mem_kb(spank_t sp)
{
	uint64_t mb = 0;

	if (spank_get_item(sp, S_STEP_ALLOC_MEM, &mb) != ESPANK_SUCCESS || mb == 0)
		if (spank_get_item(sp, S_JOB_ALLOC_MEM, &mb) != ESPANK_SUCCESS)
			mb = 0;
	return mb * 1024;
}

/*
 * Do the job's (S_JOB_ALLOC_CORES) or the step's (S_STEP_ALLOC_CORES) cores cover every
 * CPU of this node? Slurm gives them here as a list; a core holds as many CPUs as cpu0
 * has thread siblings.
 */
static bool cores_cover_node(spank_t sp, const struct mi_step *s, spank_item_t item)
{
	struct smpol_cpus cores = { 0 }, sib = { 0 };
	char *list = NULL, path[4200], text[256];
	int ncores, node_cpus = 0, first = -1, threads = 1;

	if (spank_get_item(sp, item, &list) != ESPANK_SUCCESS || !list ||
	    smpol_cpus_parse_list(list, s->topo.cpu_ids, &cores, NULL, 0) < 0)
		return false;
	ncores = smpol_cpus_count(&cores);
	smpol_cpus_free(&cores);
	/* nodes hold disjoint CPUs */
	for (int i = 0; i < s->topo.nnodes; i++) {
		int c = smpol_cpus_next(&s->topo.nodes[i].cpus, 0);

		node_cpus += smpol_cpus_count(&s->topo.nodes[i].cpus);
		if (c >= 0 && (first < 0 || c < first))
			first = c;
	}
	if (smpol_fs_path(s->site.host.fsroot, path, sizeof(path),
			  "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", first) == 0 &&
	    smpol_read_text(path, text, sizeof(text)) == 0 &&
	    smpol_cpus_parse_list(text, s->topo.cpu_ids, &sib, NULL, 0) == 0 && smpol_cpus_count(&sib) > 0)
		threads = smpol_cpus_count(&sib);
	smpol_cpus_free(&sib);
	return ncores * threads >= node_cpus;
}

/*
 * The CPUs the step's task will span, when that is known: the one task of a step whose
 * cores cover the node runs on the node's CPUs (task/affinity binds it to all the step
 * has), so a step that writes its own weights scales them to its sockets' CPUs
 * (placement.h). With several tasks, or fewer cores, each task's CPUs are its own: NULL.
 */
static const struct smpol_cpus *span_of_step(spank_t sp, const struct mi_step *s, struct smpol_cpus *span)
{
	if (s->local_tasks != 1 || !cores_cover_node(sp, s, S_STEP_ALLOC_CORES))
		return NULL;
	for (int i = 0; i < s->topo.nnodes; i++)
		if (smpol_cpus_or(span, &s->topo.nodes[i].cpus) < 0)
			return NULL;   /* out of memory: as if unknown */
	return span;
}

/*
 * A step killed while holding the lease left its weights behind, and its kept
 * placement: put the journaled table back before this step reads or compares it
 * (whatever its mode wants), and drop the dead steps' kept placements and metrics.
 */
static void recover_dead_steps(struct mi_step *s)
{
	struct smpol_lease_state found;
	char err[SMPOL_ERRLEN];
	int removed;

	if (smpol_lease_recover(&s->site.host, false, &found, err, sizeof(err)) < 0) {
		if (!found.holder_alive)
			LOG_STEP(s, slurm_error, "%s", err);
	} else if (found.restored) {
		LOG_STEP(s, slurm_info, "restored the weights left by job %u step %u (pid %d, dead)%s%s",
			 found.owner.job_id, found.owner.step_id, (int)found.owner.pid,
			 found.auto_failed ? "; " : "", found.auto_failed ? err : "");
	}
	if (smpol_step_state_reap(&s->site.host, &removed, err, sizeof(err)) < 0)
		LOG_STEP(s, slurm_error, "%s", err);
	else if (removed)
		LOG_STEP(s, slurm_info, "removed %d kept placement(s) of steps that died", removed);
	if (!s->site.prometheus_dir[0])
		return;
	if (smpol_prom_sweep(s->site.prometheus_dir, &removed, err, sizeof(err)) < 0)
		LOG_STEP(s, slurm_error, "metrics: %s", err);
	else if (removed)
		LOG_STEP(s, slurm_info, "metrics: removed %d file(s) of steps that died", removed);
}

/* The kept placement's memory, once nothing writes it again. */
static void drop_kept(struct mi_step *s)
{
	if (!s->kept)
		return;
	smpol_step_state_free(s->kept);
	free(s->kept);
	s->kept = NULL;
}

/* Keep the decision for mpolctl rebalance and watch: the step holds it until every
 * local task is forked and written into it (keep_tasks). */
static void keep_placement(struct mi_step *s, const struct smpol_place_in *in)
{
	char err[SMPOL_ERRLEN];

	s->kept = calloc(1, sizeof(*s->kept));
	if (!s->kept)
		snprintf(err, sizeof(err), "out of memory");
	if (!s->kept || smpol_step_state_from(in, &s->pl, s->owner.job_id, s->owner.step_id, s->owner.uid,
					      s->kept, err, sizeof(err)) < 0) {
		LOG_STEP(s, slurm_error, "placement not kept (mpolctl rebalance will use defaults): %s", err);
		drop_kept(s);
	}
}

/* Put the kept placement on the node, with its tasks, once every local task is forked:
 * one write per step (mpolctl follows tasks; nothing before needs the file), by the
 * sampler thread with its first sample, off the tasks' launch (record_step_keep);
 * without one, here. */
static void keep_tasks(struct mi_step *s)
{
	char err[SMPOL_ERRLEN];

	s->kept_written = true;         /* on the node, or soon: removed at the step's end */
	if (record_step_keep(s->record, s->kept)) {
		s->kept = NULL;
		return;
	}
	if (smpol_step_state_write(&s->site.host, s->kept, err, sizeof(err)) < 0) {
		LOG_STEP(s, slurm_error, "placement not kept (mpolctl rebalance will use defaults): %s", err);
		s->kept_written = false;
	}
	drop_kept(s);
}

/*
 * The job's run (its restart count): a requeued job runs again under its id. slurmstepd
 * knows it for the batch step alone (S_SLURM_RESTART_COUNT is 0 in the others); the
 * other steps take it from the job's environment, where slurmstepd put it for the
 * batch script (from the first requeue on). The user can change it there, which only
 * mislabels the user's own record: the run's row is chosen by time (record_dbd.h).
 */
static uint32_t job_run(spank_t sp)
{
	uint32_t run = 0;
	char text[16];
	uint64_t n;

	if (spank_get_item(sp, S_SLURM_RESTART_COUNT, &run) == ESPANK_SUCCESS && run > 0)
		return run;
	if (spank_getenv(sp, "SLURM_RESTART_COUNT", text, sizeof(text)) == ESPANK_SUCCESS &&
	    smpol_number_parse(text, 0, 0, UINT32_MAX, &n, NULL, 0) == 0)
		return (uint32_t)n;
	return 0;
}

/* This node's name as slurmd knows it: slurmstepd sets SLURMD_NODENAME in its own
 * environment from slurmd's configuration (22.05 to 24.11). The job's environment
 * (spank_getenv) is the user's to write, and inside a batch job carries the batch
 * host's name into every step: never taken from there. */
static void daemon_node_name(char *buf, size_t len)
{
	const char *name = getenv("SLURMD_NODENAME");

	snprintf(buf, len, "%s", name ? name : "");
}

static void begin_accounting(spank_t sp, struct mi_step *s)
{
	struct record_step_in in = {
		.job_id = s->owner.job_id,
		.step_id = s->owner.step_id,
		.uid = s->owner.uid,
		.pmbind = s->pmbind,
		.spec = s->spec,
		.pl = &s->pl,
		.sysfs_written = s->lease_held,
		.site = &s->site,
		.topo = &s->topo,
		.step_nnodes = s->job_nnodes,
	};
	char err[SMPOL_ERRLEN], nodelist[4096], node_name[256];

	daemon_node_name(node_name, sizeof(node_name));
	in.node_name = node_name[0] ? node_name : NULL;
	if (spank_get_item(sp, S_JOB_NODEID, &in.node_id) != ESPANK_SUCCESS)
		in.node_id = 0;
	in.run = job_run(sp);
	in.started = (int64_t)time(NULL);
	/* where the step's first node is: the job's copy, used only to route to it */
	if (spank_getenv(sp, "SLURM_STEP_NODELIST", nodelist, sizeof(nodelist)) == ESPANK_SUCCESS)
		in.step_nodelist = nodelist;
	if (record_step_begin(&in, &s->record, err, sizeof(err)) < 0)
		LOG_STEP(s, slurm_error, "placement record: %s", err);
}

/* The bandwidth table the step decides with; a source the site asked for that cannot
 * be used is logged, and the next one serves. */
static int resolve_bandwidth(const struct mi_step *s, struct smpol_bw_table *bandwidth)
{
	struct smpol_bw_origin origin;
	char warning[SMPOL_ERRLEN + 64];

	if (smpol_bw_resolve(&s->topo, s->site.bandwidth_file, s->site.bandwidth_named, bandwidth, &origin) < 0)
		return -1;
	smpol_bw_origin_warning(&origin, warning, sizeof(warning));
	if (warning[0])
		LOG_STEP(s, slurm_error, "%s", warning);
	return 0;
}

/* The site's plugstack arguments; a mistake there fails only jobs that asked. */
static bool read_site(struct mi_step *s, const struct mi_option *opt, int ac, char **av)
{
	char err[SMPOL_ERRLEN];

	if (smpol_config_default(&s->site) < 0)
		snprintf(err, sizeof(err), "out of memory reading them");
	else if (smpol_config_parse(ac, av, &s->site, err, sizeof(err)) == 0)
		return true;
	slurm_error(MI_LOG "plugstack.conf arguments: %s", err);
	if (opt->given) {
		s->active = true;
		step_fail(s, "the site's plugstack.conf arguments for mem_interleave are wrong; "
			  "ask the administrator (slurmd log): ", err);
	}
	return false;
}

/* The decision (with the lease), kept on the node, and the record begun. */
static int decide(spank_t sp, struct mi_step *s, struct smpol_place_in *in, struct smpol_wi_table *table)
{
	struct smpol_lease_try lease;   /* in points into it from here on */

	if (smpol_place_with_lease(in, table, &s->owner, &s->pl, &lease) < 0)
		return step_fail(s, "", "out of memory while planning");
	if (lease.refused[0])
		LOG_STEP(s, slurm_info, "weights not written: %s", lease.refused);
	s->lease_held = lease.held;
	if (s->pl.failure)
		return step_fail(s, "", s->pl.failure);
	if (!s->pl.active) {
		/* the site's default cannot apply here: the job runs without a policy */
		if (s->pl.note)
			LOG_STEP(s, slurm_info, "%s", s->pl.note);
		return 0;
	}
	keep_placement(s, in);
	begin_accounting(sp, s);
	return 0;
}

int step_init_post_opt(spank_t sp, struct mi_step *s, const struct mi_option *opt, int ac, char **av)
{
	struct smpol_place_in in = { 0 };
	struct smpol_wi_table table;
	struct smpol_bw_table bandwidth = { 0 };
	struct smpol_cpus span = { 0 };
	char err[SMPOL_ERRLEN], table_err[SMPOL_ERRLEN] = "", pmbind_err[SMPOL_ERRLEN] = "", note[SMPOL_ERRLEN];
	bool pmbind = false, site_default;
	uid_t uid = 0;
	int rc;

	spank_get_item(sp, S_JOB_ID, &s->owner.job_id);
	spank_get_item(sp, S_JOB_STEPID, &s->owner.step_id);
	spank_get_item(sp, S_JOB_UID, &uid);
	s->owner.uid = uid;
	s->spec = opt->given ? &opt->spec : &s->site.default_spec;
	/* Another Slurm release: no Slurm call but SPANK; only jobs that asked fail. */
	if (release_mismatch())
		return opt->given ? step_fail(s, "", release_mismatch()) : 0;
	if (spank_get_item(sp, S_JOB_NNODES, &s->job_nnodes) != ESPANK_SUCCESS)
		s->job_nnodes = 0;
	if (spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &s->local_tasks) != ESPANK_SUCCESS)
		s->local_tasks = 0;
	if (!read_site(s, opt, ac, av))
		return 0;
	site_default = !opt->given;
	/* The extern step runs no user tasks. */
	if (s->owner.step_id == SMPOL_STEP_EXTERN || s->spec->mode == SMPOL_MODE_NONE ||
	    s->spec->mode == SMPOL_MODE_UNSET || s->spec->mode == SMPOL_MODE_HELP)
		return 0;
	s->active = true;
	if (smpol_topology_read(&s->site.host, &s->topo, err, sizeof(err)) < 0) {
		if (!site_default)
			return step_fail(s, "", err);
		/* the site's default never fails a job: it runs without a policy, and says so */
		snprintf(note, sizeof(note), "the site's default cannot apply on this node: %.400s; "
			 "the tasks run without a memory policy", err);
		LOG_STEP(s, slurm_info, "%s", note);
		smpol_text_set(&s->pl.note, note);   /* the tasks' environment says it too, memory allowing */
		return 0;
	}
	s->have_topo = true;
	recover_dead_steps(s);
	if (resolve_bandwidth(s, &bandwidth) < 0) {
		smpol_bw_free(&bandwidth);
		return step_fail(s, "", "out of memory while reading the bandwidth sources");
	}
	smpol_wi_read(&s->site.host, &table, table_err, sizeof(table_err));
	/* process_mbind where the site names it and it answers: a region-aware step's large
	 * mappings, and the processes tasks start, take their plan's policy with it */
	if (s->site.process_mbind_nr)
		pmbind = smpol_pmbind_probe(s->site.process_mbind_nr, pmbind_err, sizeof(pmbind_err)) == 0;
	s->pmbind = pmbind;
	in = (struct smpol_place_in){
		.spec = *s->spec,
		.site_default = site_default,
		.site = &s->site.decide,
		.topo = &s->topo,
		.table_error = table_err[0] ? table_err : NULL,
		.job_owns_node = cores_cover_node(sp, s, S_JOB_ALLOC_CORES),
		.lease = SMPOL_LEASE_UNTRIED,
		.mem_kb = step_mem_kb(sp),
		.bandwidth = &bandwidth,
		.pmbind = pmbind,
		.pmbind_note = !pmbind && pmbind_err[0] ? pmbind_err : NULL,
		.span_cpus = span_of_step(sp, s, &span),
	};
	rc = decide(sp, s, &in, &table);
	smpol_cpus_free(&span);
	smpol_bw_free(&bandwidth);   /* the kept placement holds its copy */
	return rc;
}

int step_task_post_fork(spank_t sp, struct mi_step *s)
{
	char err[SMPOL_ERRLEN];
	pid_t pid;

	if (!s->pl.active || s->failed || spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS)
		return 0;
	record_step_task_begin(s->record, pid);
	if (!s->kept)
		return 0;
	/* without a sampler thread the step reads each task's start itself */
	if (!s->record && smpol_step_state_add_task(s->kept, pid, err, sizeof(err)) < 0)
		LOG_STEP(s, slurm_info, "%s", err);
	/* a count Slurm did not say: the first task's */
	if (++s->forked == s->local_tasks || s->local_tasks == 0)
		keep_tasks(s);
	return 0;
}

int step_task_exit(spank_t sp, struct mi_step *s)
{
	pid_t pid;
	int status = 0;

	if (!s->pl.active || s->failed || spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS)
		return 0;
	if (spank_get_item(sp, S_TASK_EXIT_STATUS, &status) != ESPANK_SUCCESS)
		status = 0;
	record_step_task_end(s->record, pid, WIFSIGNALED(status));
	return 0;
}

int step_exit(struct mi_step *s)
{
	char err[SMPOL_ERRLEN];
	bool auto_failed = false;

	if (s->lease_held) {
		if (smpol_lease_release(&s->site.host, &s->owner, &auto_failed, err, sizeof(err)) < 0)
			LOG_STEP(s, slurm_error, "restoring the weights: %s", err);
		else if (auto_failed)
			LOG_STEP(s, slurm_info, "%s", err);
		s->lease_held = false;
	}
	/* first: its sampler thread, which may write the kept placement, is then joined */
	record_step_end(&s->record);
	if (s->kept_written && smpol_step_state_remove(&s->site.host, s->owner.job_id, s->owner.step_id,
						       err, sizeof(err)) < 0)
		LOG_STEP(s, slurm_error, "%s", err);
	s->kept_written = false;
	s->forked = 0;
	drop_kept(s);
	smpol_placement_free(&s->pl);
	free(s->failure);
	s->failure = NULL;
	s->failed = false;
	if (s->have_topo)
		smpol_topology_free(&s->topo);
	s->have_topo = false;
	s->spec = NULL;   /* it may be the site's default */
	smpol_config_free(&s->site);
	s->active = false;
	return 0;
}
