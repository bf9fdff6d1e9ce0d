/* watch_migration.c - `mpolctl watch`'s periodic scan for tasks that moved to another
 * socket's CPUs (see migration.h). Only tasks of steps that keep a placement are
 * looked at: a process that did not ask for --mem-interleave is never touched. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "apply.h"
#include "migration.h"
#include "numa_maps.h"
#include "step_state.h"
#include "task_ref.h"
#include "task_target.h"
#include "watch.h"
#include "wi.h"

/* Tasks already reported as not ours, so that each is said once, not every scan. */
#define QUIET_MAX 256
struct said { pid_t pid; uint64_t start; };
static struct said quiet[QUIET_MAX];
static unsigned nquiet;

static bool say_once(pid_t pid, uint64_t start)
{
	for (unsigned i = 0; i < nquiet && i < QUIET_MAX; i++)
		if (quiet[i].pid == pid && quiet[i].start == start)
			return false;
	quiet[nquiet++ % QUIET_MAX] = (struct said){ pid, start };
	return true;
}

/* The policy of most of the task's anonymous pages, as numa_maps prints it. */
static int task_policy(pid_t pid, char *policy, size_t len)
{
	struct smpol_numa_usage *u = malloc(sizeof(*u));
	int rc;

	if (!u)
		return -ENOMEM;
	smpol_numa_usage_init(u);
	rc = smpol_numa_maps_read(NULL, pid, u, NULL, 0);
	if (rc == 0)
		snprintf(policy, len, "%s", u->npolicies ? u->policies[0].policy : "default");
	free(u);
	return rc;
}

/* One task: moved to another socket? Appends its pid to moved[] when so. */
static void check_task(const struct smpol_topology *topo, const struct smpol_wi_table *table,
		       const char *table_error, const struct smpol_step_state *st, const struct smpol_step_task *task,
		       pid_t *moved, int *nmoved)
{
	struct smpol_target_in in = { .topo = topo, .table = table, .table_error = table_error, .kept = st };
	struct smpol_task_target target;
	struct smpol_task_ref ref;
	struct smpol_cpus cpus = { 0 };
	struct smpol_bitmap from, to;
	char err[SMPOL_ERRLEN], policy[64], list[128] = "", from_list[128] = "", to_list[128] = "";
	enum smpol_migration m;

	if (smpol_task_pin(task->pid, task->start, &ref, err, sizeof(err)) < 0)
		return;         /* exited, or the pid is another process's now */
	if (smpol_task_cpus(task->pid, &cpus, err, sizeof(err)) < 0 || task_policy(task->pid, policy, sizeof(policy)) < 0)
		goto out;
	in.cpus = &cpus;
	if (smpol_task_target(&in, &target, err, sizeof(err)) < 0) {
		if (say_once(task->pid, task->start))
			watch_log(LOG_WARNING, "job %u step %u task %d (%s): no target: %s", st->job_id, st->step_id,
				  (int)task->pid, ref.comm, err);
		goto out;
	}
	m = smpol_migration_check(topo, policy, &task->rebound, &target.plan, &from);
	smpol_cpus_format_list(&cpus, list, sizeof(list));
	smpol_plan_sockets(topo, &target.plan, &to);
	smpol_bitmap_format_list(&from, from_list, sizeof(from_list));
	smpol_bitmap_format_list(&to, to_list, sizeof(to_list));
	if (m == SMPOL_MIGRATION_MOVED) {
		watch_log(LOG_NOTICE, "job %u step %u task %d (%s) now runs on CPUs %s (the plan of CPU node(s) %s) "
			  "while its memory follows node(s) %s's: rebalancing it", st->job_id, st->step_id,
			  (int)task->pid, ref.comm, list, to_list, from_list);
		moved[(*nmoved)++] = task->pid;
	} else if (m == SMPOL_MIGRATION_NOT_OURS && say_once(task->pid, task->start)) {
		watch_log(LOG_INFO, "job %u step %u task %d (%s) has policy '%s', not the one it was launched with: "
			  "left alone", st->job_id, st->step_id, (int)task->pid, ref.comm, policy);
	}
	smpol_plan_free(&target.plan);
out:
	smpol_cpus_free(&cpus);
	smpol_task_unpin(&ref);
}

int watch_scan_migrations(const struct smpol_host *h, pid_t **moved, int *nmoved)
{
	struct smpol_step_state *states = NULL;
	struct smpol_topology topo;
	struct smpol_wi_table table;
	char err[SMPOL_ERRLEN], table_error[SMPOL_ERRLEN] = "";
	int nstates = 0, ntasks = 0, rc;

	*moved = NULL;
	*nmoved = 0;
	rc = smpol_topology_read(h, &topo, err, sizeof(err));
	if (rc == 0)
		rc = smpol_step_state_list(h, &states, &nstates, NULL, err, sizeof(err));
	if (rc < 0) {
		watch_log(LOG_ERR, "migration scan: %s", err);
		smpol_topology_free(&topo);
		return rc;
	}
	smpol_wi_read(h, &table, table_error, sizeof(table_error));
	for (int i = 0; i < nstates; i++)
		ntasks += states[i].holder_alive ? states[i].ntasks : 0;
	if (ntasks && !(*moved = calloc((size_t)ntasks, sizeof(**moved))))
		rc = -ENOMEM;
	for (int i = 0; *moved && i < nstates; i++)
		for (int j = 0; states[i].holder_alive && j < states[i].ntasks; j++)
			check_task(&topo, &table, table_error[0] ? table_error : NULL, &states[i], &states[i].tasks[j],
				   *moved, nmoved);
	smpol_step_states_free(states, nstates);
	smpol_topology_free(&topo);
	return rc;
}
