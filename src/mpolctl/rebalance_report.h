/* rebalance_report.h - what `mpolctl rebalance` did, per task, as text or JSON. */
#ifndef MPOLCTL_REBALANCE_REPORT_H
#define MPOLCTL_REBALANCE_REPORT_H

#include <stdbool.h>

#include "cpuset.h"
#include "error.h"
#include "pages.h"
#include "plan.h"
#include "rebalance.h"
#include "task_ref.h"

/* One task of a run: who it is, its target, and what happened. */
struct rebalance_target {
	struct smpol_task_ref t;
	char spec_text[256];
	char source[160];                /* where the target was decided from (task_target.h) */
	bool kept_task;                  /* a task its step's kept placement lists (by pid and start) */
	uint32_t kept_job, kept_step;
	struct smpol_plan plan;
	enum smpol_kernel_path path;     /* the policy the plan is applied with */
	uint64_t min_region_kb;          /* region-aware: only mappings this large, 0 = all */
	int rc;                          /* 0 done; >0 skipped (not an error); <0 failed */
	int ncpuset;                     /* cpuset.mems files widened (or, dry, to widen) */
	struct smpol_cpuset_change cpuset[SMPOL_CPUSET_MAX_CHANGES];
	char why[SMPOL_ERRLEN + 160];     /* skip or failure reason */
	struct smpol_rebalance_result r;
};

/* Per task: plan, pages per node before / target / after, minimum, moved, what did
 * not move and why; then the lease sentence (lease may be ""). */
void rebalance_print_text(bool dry_run, const char *why, const struct rebalance_target *tgs, int n,
			  const char *lease);

/* The same as one JSON object on stdout (job NULL for --pid). 0, or 1 when stdout failed. */
int rebalance_print_json(bool dry_run, const char *job, enum smpol_backend backend, const char *why,
			 const struct rebalance_target *tgs, int n, const char *lease);

#endif
