/* cmd_rebalance.c - `mpolctl rebalance`: move running tasks' pages to their current plan.
 *
 * Processes come from Slurm (--job, through scontrol listpids) or the command line
 * (--pid). Each is pinned with a pidfd before anything is read or moved, checked for
 * ownership (root may rebalance any process, a user only their own) and, for --job,
 * checked to still belong to the job. Its target is decided as at launch
 * (task_target.h: the step's kept placement over today's topology, so hot-added
 * nodes take part, and the plan for the task's CPUs now); a job holding the weights
 * lease gets its sysfs weights rewritten under the same journal. Every action goes to
 * stderr and syslog.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "apply.h"
#include "cli.h"
#include "commands.h"
#include "cpuset.h"
#include "job_id.h"
#include "job_pids.h"
#include "lease.h"
#include "migration.h"
#include "number.h"
#include "plan.h"
#include "pmbind.h"
#include "rebalance.h"
#include "rebalance_report.h"
#include "site.h"
#include "site_config.h"
#include "spec.h"
#include "step_name.h"
#include "step_state.h"
#include "task_ref.h"
#include "task_target.h"
#include "topology.h"
#include "units.h"
#include "wi.h"

enum { OPT_JOB = 0x200, OPT_PID, OPT_DRY_RUN, OPT_BACKEND, OPT_RATE, OPT_SPEC,
       OPT_PMBIND_NR, OPT_BATCH, OPT_GROW_CPUSET };

#define MAX_PIDS 4096
#define PID_MAX 4194304                  /* the kernel's largest pid_max */
#define RATE_MAX_MILLI 1000000000000ULL  /* --rate up to 1e9 MiB/s, in thousandths */

static volatile sig_atomic_t stop_requested;

static void on_sigint(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mpolctl rebalance (--job ID[.STEP] | --pid PID[,PID...]...) [--dry-run]\n"
		"                         [--backend auto|process_mbind|move_pages|migrate_pages]\n"
		"                         [--rate MB/s] [--spec SPEC] [--statedir DIR]\n"
		"                         [--grow-cpuset] [--process-mbind-nr N] [--batch PAGES]\n"
		"                         [--bandwidth FILE|none] [--plugstack FILE] [--fsroot DIR] [--json]\n"
		"\n"
		"Decide each task's plan again as at its launch (the step's kept placement:\n"
		"its request, the site's settings, its memory and weights lease) over the node's\n"
		"current topology (hot-added nodes included) and the task's CPUs now, and move\n"
		"its private anonymous pages toward the weights it runs with, moving only the\n"
		"surplus of over-target nodes (the minimum). A process whose step keeps no\n"
		"placement gets the built-in defaults. A job holding the weights lease gets its\n"
		"sysfs weights updated. Root may rebalance any process, a user only their own.\n"
		"Ctrl-C stops after the current batch and reports; running it again resumes\n"
		"where it stopped.\n"
		"\n"
		"  --job ID[.STEP]     the job's (or step's) processes on this node (scontrol listpids;\n"
		"                      an array task by its own job id, squeue -o %%A);\n"
		"                      tasks that did not ask for --mem-interleave are skipped\n"
		"  --pid PID[,PID...]  these processes (repeatable; none empty, none twice)\n"
		"  --dry-run           count and plan, move nothing, change no weights\n"
		"  --backend B         auto (default): process_mbind when configured and confirmed\n"
		"                      and mpolctl has CAP_SYS_NICE (root), else move_pages;\n"
		"                      migrate_pages only empties nodes left out\n"
		"  --rate MB/s         move at most this many MiB per second, up to 3 digits after\n"
		"                      the point (default: no limit)\n"
		"  --spec SPEC         the request, as --mem-interleave takes it (default: the\n"
		"                      step's kept request; without one, the mode the plugin\n"
		"                      applied to the task, else 'weighted')\n"
		"  --statedir DIR      the plugin's state directory: weights lease and kept\n"
		"                      placements (default " SMPOL_DEFAULT_STATEDIR ")\n"
		"  --grow-cpuset       when the plan names nodes the task's cpuset does not allow (a\n"
		"                      hot-added node, Slurm's explicit cpuset.mems), add them to the\n"
		"                      job's cpuset.mems, parents first; without it such a task fails\n"
		"  --process-mbind-nr N  syscall number of process_mbind on a kernel that has it\n"
		"                      (not upstream; upstream numbers, below 470, are refused\n"
		"                      uncalled: 457/458 are statmount/listmount)\n"
		"  --batch PAGES       pages per system call (default %d, 1-65536)\n"
		"  --bandwidth FILE|none, --plugstack FILE\n"
		"                      the bandwidth table for processes whose step keeps no\n"
		"                      placement (default: the plugin's plugstack line, as\n"
		"                      mpolctl plan reads it)\n"
		"  --fsroot DIR        read sysfs under DIR (default: $MPOL_FSROOT or /)\n"
		"  --json              print one JSON object\n"
		"  -h, --help          show this help\n"
		"\n"
		"Exit status: 0 done (tasks that exited meanwhile are reported, not errors),\n"
		"1 a task could not be rebalanced, a --pid names no process, or the run was\n"
		"interrupted, 2 bad arguments. With --json a failure before the report prints\n"
		"{\"error\": ...} instead.\n",
		SMPOL_REBALANCE_BATCH);
}

/* Every action: one line on stderr and one in syslog. */
#define log_action(...) cli_log("rebalance", LOG_INFO, __VA_ARGS__)

struct args {
	struct cli_common c;
	const char *job;          /* --job as given (no array task: job_id.h) */
	struct job_id jid;
	pid_t pids[MAX_PIDS];
	int npids;
	bool dry_run;
	enum smpol_backend backend;
	double rate;
	const char *spec;
	struct smpol_spec spec_parsed;
	long pmbind_nr;
	unsigned batch;
	bool grow_cpuset;
};

/* --pid PID[,PID...]: every entry a pid, none empty, none twice (over all --pid). */
static void add_pids(struct args *a, const char *text)
{
	char q[SMPOL_QUOTE_LEN], part[SMPOL_QUOTE_LEN], why[SMPOL_ERRLEN];
	const char *p = text;

	smpol_quote(text, q, sizeof(q));
	for (;;) {
		size_t n = strcspn(p, ",");
		uint64_t pid;

		if (a->npids == MAX_PIDS)
			cli_usage_error("rebalance", "at most %d processes per run", MAX_PIDS);
		if (!n)
			cli_usage_error("rebalance", "bad --pid %s: it has an empty entry; give PID[,PID...]", q);
		if (smpol_number_parse_span(p, n, 0, 1, PID_MAX, &pid, why, sizeof(why)) < 0)
			cli_usage_error("rebalance", "bad --pid %s: the entry %s: %s", q,
					smpol_quote_n(p, n, part, sizeof(part)), why);
		for (int i = 0; i < a->npids; i++)
			if (a->pids[i] == (pid_t)pid)
				cli_usage_error("rebalance", "--pid names process %d twice", (int)pid);
		a->pids[a->npids++] = (pid_t)pid;
		if (!p[n])
			return;
		p += n + 1;
	}
}

static void parse_args(int argc, char **argv, struct args *a)
{
	static const struct option options[] = {
		{ "job", required_argument, NULL, OPT_JOB },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "spec", required_argument, NULL, OPT_SPEC },
		CLI_STATEDIR_OPTION,
		CLI_SITE_OPTIONS,
		{ "process-mbind-nr", required_argument, NULL, OPT_PMBIND_NR },
		{ "batch", required_argument, NULL, OPT_BATCH },
		{ "grow-cpuset", no_argument, NULL, OPT_GROW_CPUSET },
		CLI_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	char err[SMPOL_ERRLEN];
	int opt;

	memset(a, 0, sizeof(*a));
	cli_common_init(&a->c);
	a->c.repeatable = OPT_PID;   /* --pid 7 --pid 8: a list */
	a->backend = SMPOL_BACKEND_AUTO;
	while ((opt = cli_getopt(&a->c, "rebalance", argc, argv, ":h", options)) != -1) {
		switch (opt) {
		case OPT_JOB:
			if (job_id_parse(optarg, false, &a->jid, err, sizeof(err)) < 0)
				cli_usage_error("rebalance", "--job: %s", err);
			a->job = optarg;
			break;
		case OPT_PID:
			add_pids(a, optarg);
			break;
		case OPT_DRY_RUN:
			a->dry_run = true;
			break;
		case OPT_BACKEND:
			if (smpol_backend_parse(optarg, &a->backend, err, sizeof(err)) < 0)
				cli_usage_error("rebalance", "%s", err);
			break;
		case OPT_RATE:
			/* MiB/s with up to 3 digits after the point */
			a->rate = (double)cli_number("rebalance", "--rate", optarg, 3, 1, RATE_MAX_MILLI) / 1000;
			break;
		case OPT_SPEC:
			if (smpol_spec_parse(optarg, &a->spec_parsed, err, sizeof(err)) < 0)
				cli_usage_error("rebalance", "--spec: %s", err);
			if (a->spec_parsed.mode == SMPOL_MODE_NONE || a->spec_parsed.mode == SMPOL_MODE_HELP ||
			    a->spec_parsed.mode == SMPOL_MODE_UNSET)
				cli_usage_error("rebalance", "--spec %s names no interleave to rebalance to",
						smpol_quote(optarg, err, sizeof(err)));
			a->spec = optarg;
			break;
		case OPT_PMBIND_NR:
			a->pmbind_nr = (long)cli_number("rebalance", "--process-mbind-nr", optarg, 0, 1, 4095);
			break;
		case OPT_BATCH:
			a->batch = (unsigned)cli_number("rebalance", "--batch", optarg, 0, 1, 65536);
			break;
		case OPT_GROW_CPUSET:
			a->grow_cpuset = true;
			break;
		default:
			cli_common_option(&a->c, "rebalance", opt, argc, argv, usage);
		}
	}
	cli_no_operands(&a->c, "rebalance", argc, argv);
	if (!a->job == !a->npids)
		cli_usage_error("rebalance", "give exactly one of --job ID[.STEP] or --pid PID");
	if (a->backend == SMPOL_BACKEND_PROCESS_MBIND && !a->pmbind_nr)
		cli_usage_error("rebalance", "--backend process_mbind needs --process-mbind-nr N (it is not upstream)");
}

/* NAME's value in the task's environment ("" when absent or unreadable). */
static void task_env(pid_t pid, const char *name, char *val, size_t len)
{
	char path[64], buf[65536];
	size_t n, nlen = strlen(name);
	FILE *f;

	*val = '\0';
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		if (!strncmp(buf + i, name, nlen) && buf[i + nlen] == '=') {
			snprintf(val, len, "%s", buf + i + nlen + 1);
			return;
		}
}

/* What the target is decided from: the node as it is now, and the kept placements. */
struct node_now {
	struct smpol_topology topo;
	struct smpol_wi_table table;
	char table_error[SMPOL_ERRLEN];
	struct smpol_step_state *kept;
	int nkept;
	const char *no_kept;             /* why the kept placements are not read, or NULL */
	struct smpol_bw_table bw;        /* the plugin's bandwidth table, for processes without kept placement */
	struct smpol_lease_state lease;  /* the journal, for processes without kept placement */
};

/*
 * The task's target (see task_target.h). Without a kept placement the request is
 * --spec, else the mode the plugin applied (SLURM_MEM_INTERLEAVE_MODE), else for --pid
 * "weighted". Returns 0, 1 (skip: the task did not ask) or -errno.
 */
static int task_target(const struct args *a, const struct node_now *now, const struct job_pid *jp,
		       struct rebalance_target *tg, char *err, size_t errlen)
{
	struct smpol_target_in in = {
		.topo = &now->topo,
		.table = &now->table,
		.table_error = now->table_error[0] ? now->table_error : NULL,
		.spec = a->spec ? &a->spec_parsed : NULL,
		.why_defaults = now->no_kept,
		.bandwidth = &now->bw,
		.job_holds_lease = jp && now->lease.held && now->lease.holder_alive && now->lease.owner.job_id == jp->job,
	};
	struct smpol_task_target target;
	struct smpol_spec applied = { 0 };
	struct smpol_cpus cpus = { 0 };
	uint32_t step = SMPOL_NO_STEP;
	char mode[64];
	int rc;

	if (jp && smpol_step_number(jp->step, &step, NULL, 0) < 0)
		step = SMPOL_NO_STEP;
	in.kept = smpol_step_state_find(now->kept, now->nkept, tg->t.pid, tg->t.start, jp ? jp->job : 0, step);
	if (!in.kept && !in.spec) {
		task_env(tg->t.pid, "SLURM_MEM_INTERLEAVE_MODE", mode, sizeof(mode));
		if ((!*mode && !a->npids) || !strcmp(mode, "none")) {
			snprintf(tg->why, sizeof(tg->why),
				 "it did not ask for --mem-interleave (give --spec to rebalance it anyway)");
			return 1;
		}
		if (smpol_spec_parse(*mode ? mode : "weighted", &applied, err, errlen) < 0)
			return -EINVAL;
		in.spec = &applied;
		if (!in.why_defaults)
			in.why_defaults = *mode ? "its step keeps no placement; the mode the plugin applied" :
				"not started by the plugin";
	}
	rc = smpol_task_cpus(tg->t.pid, &cpus, err, errlen);
	in.cpus = &cpus;
	if (rc == 0)
		rc = smpol_task_target(&in, &target, err, errlen);
	smpol_cpus_free(&cpus);
	smpol_spec_free(&applied);
	if (rc < 0)
		return rc;
	if (!target.weights_known) {
		smpol_plan_free(&target.plan);
		return smpol_fail(err, errlen, EIO, "the weights it runs with are unknown: %s", target.note);
	}
	tg->plan = target.plan;   /* the target's plan is tg's now */
	tg->path = target.path;
	tg->min_region_kb = target.min_region_kb;
	if (in.kept && smpol_step_state_task(in.kept, tg->t.pid, tg->t.start)) {
		tg->kept_task = true;
		tg->kept_job = in.kept->job_id;
		tg->kept_step = in.kept->step_id;
	}
	snprintf(tg->spec_text, sizeof(tg->spec_text), "%s", target.spec_text);
	snprintf(tg->source, sizeof(tg->source), "%s", target.source);
	return 0;
}

/* Does this pinned process still belong to the job (its environment says so)? */
static bool in_job(const struct args *a, pid_t pid)
{
	struct job_id theirs;
	char job[32], step[32];

	task_env(pid, "SLURM_JOB_ID", job, sizeof(job));
	if (job_id_parse(job, false, &theirs, NULL, 0) < 0 || theirs.job != a->jid.job)
		return false;
	if (!a->jid.step[0])
		return true;
	task_env(pid, "SLURM_STEP_ID", step, sizeof(step));
	return !strcmp(step, a->jid.step) || (!*step && !strcmp(a->jid.step, "batch"));
}

/* The plan's nodes must be in the task's cpuset: move_pages refuses others, and new
 * allocations could not follow. With --grow-cpuset the job's cpuset.mems widens. */
static int allow_plan_nodes(const struct args *a, struct rebalance_target *tg, char *err, size_t errlen)
{
	struct smpol_bitmap want, mems, missing;
	char dir[4096], root[2048], list[256] = "", allowed[256] = "";
	int rc;

	smpol_bitmap_clear(&want);
	for (int i = 0; i < tg->plan.nnodes; i++)
		smpol_bitmap_set(&want, tg->plan.nodes[i]);
	rc = smpol_task_mems_allowed(tg->t.pid, &mems, err, errlen);
	if (rc < 0)
		return rc;
	missing = want;
	for (int n = smpol_bitmap_next(&want, 0); n >= 0; n = smpol_bitmap_next(&want, n + 1))
		if (smpol_bitmap_test(&mems, n))
			smpol_bitmap_unset(&missing, n);
	if (smpol_bitmap_empty(&missing))
		return 0;
	smpol_bitmap_format_list(&missing, list, sizeof(list));
	smpol_bitmap_format_list(&mems, allowed, sizeof(allowed));
	if (!a->grow_cpuset)
		return smpol_fail(err, errlen, EPERM,
				 "its cpuset allows nodes %s only, the plan also wants %s: give --grow-cpuset to add "
				 "them to the job's cpuset.mems, or a --spec without them", allowed, list);
	rc = smpol_cpuset_dir(tg->t.pid, a->c.host.fsroot, dir, sizeof(dir), root, sizeof(root), err, errlen);
	if (rc == 0)
		rc = smpol_cpuset_grow(root, dir, &want, a->dry_run, tg->cpuset, &tg->ncpuset, err, errlen);
	for (int i = 0; i < tg->ncpuset; i++)
		log_action("%s %s from %s to %s", a->dry_run ? "would widen" : "widened", tg->cpuset[i].path,
			   tg->cpuset[i].before, tg->cpuset[i].after);
	return rc;
}

/* A task of a kept step now follows its plan: say so in the kept placement, so that
 * `mpolctl watch` knows which socket its memory follows (its policy cannot tell once
 * the pages were moved by someone else). */
static void record_rebound(const struct args *a, const struct node_now *now, const struct rebalance_target *tg)
{
	struct smpol_bitmap sockets;
	char err[SMPOL_ERRLEN];
	int rc;

	if (a->dry_run || tg->r.interrupted || !tg->kept_task)
		return;
	smpol_plan_sockets(&now->topo, &tg->plan, &sockets);
	rc = smpol_step_state_set_rebound(&a->c.host, tg->kept_job, tg->kept_step, tg->t.pid, tg->t.start,
					  &sockets, err, sizeof(err));
	if (rc < 0 && rc != -ENOENT)
		log_action("pid %d: the move is not recorded in its step's kept placement: %s", (int)tg->t.pid, err);
}

static void rebalance_one(const struct args *a, const struct node_now *now, enum smpol_backend backend,
			  pid_t pid, const struct job_pid *jp, struct rebalance_target *tg)
{
	struct smpol_rebalance_opts o;
	char err[SMPOL_ERRLEN], weights[256] = "", nodes[256] = "", large[32] = "";
	int rc;

	memset(tg, 0, sizeof(*tg));
	rc = smpol_task_pin(pid, 0, &tg->t, tg->why, sizeof(tg->why));
	/* a job's process may exit after listpids named it; a pid the admin named must exist */
	if ((rc == -ESRCH || rc == -ESTALE) && jp) {
		tg->rc = 1;
		log_action("pid %d skipped: %s", (int)pid, tg->why);
		return;
	}
	if (rc < 0) {
		tg->rc = rc;
		if (rc == -ESRCH || rc == -ESTALE)
			snprintf(tg->why, sizeof(tg->why), "no process %d runs on this node", (int)pid);
		log_action("pid %d: %s", (int)pid, tg->why);
		return;
	}
	if (getuid() != 0 && tg->t.uid != getuid()) {
		tg->rc = -EPERM;
		snprintf(tg->why, sizeof(tg->why),
			 "process %d (%s) belongs to uid %u: only root may rebalance another user's process",
			 (int)pid, tg->t.comm, (unsigned)tg->t.uid);
		log_action("refused: %s", tg->why);
		goto out;
	}
	if (a->job && !in_job(a, pid)) {
		tg->rc = 1;
		snprintf(tg->why, sizeof(tg->why), "process %d (%s) is no longer in job %s; left alone",
			 (int)pid, tg->t.comm, a->job);
		log_action("pid %d skipped: %s", (int)pid, tg->why);
		goto out;
	}
	rc = task_target(a, now, jp, tg, err, sizeof(err));
	if (rc > 0) {
		tg->rc = 1;
		log_action("pid %d (%s) skipped: %s", (int)pid, tg->t.comm, tg->why);
		goto out;
	}
	if (rc < 0) {
		tg->rc = rc;
		snprintf(tg->why, sizeof(tg->why), "no plan for process %d (%s): %s", (int)pid, tg->t.comm, err);
		log_action("%s", tg->why);
		goto out;
	}
	rc = allow_plan_nodes(a, tg, err, sizeof(err));
	if (rc < 0) {
		tg->rc = rc;
		snprintf(tg->why, sizeof(tg->why), "process %d (%s): %s", (int)pid, tg->t.comm, err);
		log_action("%s", tg->why);
		goto out;
	}
	memset(&o, 0, sizeof(o));
	o.backend = backend;
	o.pmbind_nr = a->pmbind_nr;
	if (backend == SMPOL_BACKEND_PROCESS_MBIND &&
	    smpol_plan_policy(&tg->plan, tg->path, &o.pmbind_mode, o.pmbind_mask, err, sizeof(err)) < 0) {
		tg->rc = -EINVAL;
		snprintf(tg->why, sizeof(tg->why), "process %d (%s): %s", (int)pid, tg->t.comm, err);
		log_action("%s", tg->why);
		goto out;
	}
	/* region-aware tasks: only their large mappings take the plan, each on its own */
	o.min_region = tg->min_region_kb * 1024;
	o.dry_run = a->dry_run;
	o.rate_mb_s = a->rate;
	o.batch = a->batch;
	o.stop = &stop_requested;
	for (int i = 0; i < tg->plan.nnodes; i++)
		o.weight[tg->plan.nodes[i]] = tg->plan.weights[i];
	smpol_plan_format_nodes(&tg->plan, nodes, sizeof(nodes));
	smpol_plan_format_weights(&tg->plan, weights, sizeof(weights));
	if (tg->min_region_kb)
		smpol_format_size_exact(tg->min_region_kb, large, sizeof(large));
	log_action("%s pid %d (%s, uid %u) to nodes %s weights %s with %s%s%s%s", a->dry_run ? "planning" : "rebalancing",
		   (int)pid, tg->t.comm, (unsigned)tg->t.uid, nodes, weights, smpol_backend_name(backend),
		   large[0] ? " (region-aware: mappings of at least " : "", large, large[0] ? ", each on its own)" : "");
	rc = smpol_rebalance_task(&tg->t, &o, &tg->r, err, sizeof(err));
	if (rc < 0) {
		tg->rc = rc;
		snprintf(tg->why, sizeof(tg->why), "process %d (%s): %s", (int)pid, tg->t.comm, err);
		log_action("%s", tg->why);
	} else if (tg->r.exited) {
		tg->rc = 1;
		snprintf(tg->why, sizeof(tg->why), "process %d (%s) exited during the run", (int)pid, tg->t.comm);
		log_action("pid %d: exited during the run after %llu pages moved; skipped", (int)pid,
			   (unsigned long long)tg->r.moved);
	} else {
		log_action("pid %d: %s %llu pages (minimum %llu, planned %llu), %llu could not move, %.2f s%s",
			   (int)pid, a->dry_run ? "would move" : "moved",
			   (unsigned long long)(a->dry_run ? tg->r.planned : tg->r.moved),
			   (unsigned long long)tg->r.minimum, (unsigned long long)tg->r.planned,
			   (unsigned long long)smpol_rebalance_not_moved(&tg->r),
			   tg->r.seconds, tg->r.interrupted ? ", interrupted" : "");
		record_rebound(a, now, tg);
	}
out:
	/* A task that exited while being looked at is skipped, not a failure. */
	if (tg->rc < 0 && smpol_task_exited_within(&tg->t, 0)) {
		tg->rc = 1;
		snprintf(tg->why, sizeof(tg->why), "process %d (%s) exited during the run", (int)pid, tg->t.comm);
	}
	smpol_task_unpin(&tg->t);
}

/* A job holding the lease gets the new plans' weights, under its existing journal. */
static int update_lease(const struct args *a, const struct rebalance_target *tgs, int n, char *msg, size_t msglen)
{
	struct smpol_lease_state st;
	struct smpol_wi_table want;
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN];
	int rc;

	*msg = '\0';
	if (!a->job)
		return 0;
	rc = smpol_lease_inspect(&a->c.host, &st, err, sizeof(err));
	if (rc < 0 || !st.held || st.owner.job_id != a->jid.job || !st.holder_alive) {
		snprintf(msg, msglen, "job %u does not hold the weights lease: sysfs weights unchanged", a->jid.job);
		return 0;
	}
	memset(&want, 0, sizeof(want));
	smpol_bitmap_clear(&which);
	for (int i = 0; i < n; i++) {
		if (tgs[i].rc != 0)
			continue;
		for (int j = 0; j < tgs[i].plan.nnodes; j++) {
			smpol_bitmap_set(&which, tgs[i].plan.nodes[j]);
			want.weight[tgs[i].plan.nodes[j]] = (uint8_t)tgs[i].plan.weights[j];
		}
	}
	if (smpol_bitmap_empty(&which)) {
		snprintf(msg, msglen, "no task was rebalanced: the lease's weights are unchanged");
		return 0;
	}
	if (a->dry_run) {
		snprintf(msg, msglen, "job %u holds the weights lease: its sysfs weights would be rewritten", a->jid.job);
		return 0;
	}
	rc = smpol_lease_acquire(&a->c.host, &st.owner, &want, &which, err, sizeof(err));
	if (rc < 0) {
		snprintf(msg, msglen, "updating the job's weights lease failed: %s", err);
		log_action("%s", msg);
		return rc;
	}
	snprintf(msg, msglen, "job %u holds the weights lease: its sysfs weights were rewritten to the new plan", a->jid.job);
	log_action("%s", msg);
	return 0;
}

int cmd_rebalance(int argc, char **argv)
{
	struct args *a = malloc(sizeof(*a));
	struct node_now now = { 0 };
	struct job_pid *jp = NULL;
	struct rebalance_target *tgs = NULL;
	struct sigaction sa;
	enum smpol_backend backend;
	char err[SMPOL_ERRLEN], why[512] = "", lease[SMPOL_ERRLEN + 160] = "";
	int n = 0, njp = 0, status = 0;

	if (!a) {
		cli_error("rebalance", "out of memory");
		return 1;
	}
	parse_args(argc, argv, a);
	openlog("mpolctl", LOG_PID, LOG_DAEMON);
	if (smpol_backend_choose(a->backend, a->pmbind_nr, &backend, why, sizeof(why), err, sizeof(err)) < 0) {
		cli_error("rebalance", "%s", err);
		free(a);
		return 1;
	}
	/* an upstream syscall's number (457 is statmount) is a mistake to fix, not a detail
	 * of a run that then moves pages another way; a free number this kernel lacks
	 * (a fleet's option on a node of another kernel) falls back as auto says */
	if (a->pmbind_nr && a->pmbind_nr < SMPOL_PMBIND_FIRST_FREE_NR) {
		cli_error("rebalance", "--process-mbind-nr %ld is refused (%s): leave it out to move pages with %s",
			  a->pmbind_nr, why, smpol_backend_name(backend));
		free(a);
		return 1;
	}
	if (a->job) {
		if (job_pids_list(a->job, &jp, &njp, err, sizeof(err)) < 0) {
			cli_error("rebalance", "cannot list the processes of job %s: %s", a->job, err);
			free(a);
			return 1;
		}
		if (njp == 0) {
			cli_error("rebalance", "job %s has no processes on this node", a->job);
			free(jp);
			free(a);
			return 1;
		}
	}
	/* The kept placements and the journal are root's (the state directory is 0700). */
	if (getuid() != 0)
		now.no_kept = "only root reads the steps' kept placements";
	if (smpol_topology_read(&a->c.host, &now.topo, err, sizeof(err)) < 0 ||
	    (!now.no_kept && (smpol_step_state_list(&a->c.host, &now.kept, &now.nkept, NULL, err, sizeof(err)) < 0 ||
			      smpol_lease_inspect(&a->c.host, &now.lease, err, sizeof(err)) < 0))) {
		cli_error("rebalance", "%s", err);
		smpol_topology_free(&now.topo);
		free(jp);
		free(a);
		return 1;
	}
	smpol_wi_read(&a->c.host, &now.table, now.table_error, sizeof(now.table_error));
	{
		struct cli_site site;
		struct smpol_bw_origin origin;

		/* the numbers the plugin would plan with (a step's own are in its kept placement) */
		cli_site_read(&a->c, &site);
		if (cli_site_bandwidth(&site, &now.topo, &now.bw, &origin) < 0)
			log_action("no bandwidth table for processes without kept placement: out of memory; "
				   "sysfs HMAT is used");
		cli_site_free(&site);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	log_action("%s with backend %s (%s)", a->dry_run ? "dry run" : "start", smpol_backend_name(backend), why);
	tgs = calloc((size_t)(a->job ? njp : a->npids), sizeof(*tgs));
	for (int i = 0; tgs && i < (a->job ? njp : a->npids) && !stop_requested; i++) {
		pid_t pid = a->job ? jp[i].pid : a->pids[i];

		if (a->job && jp[i].job != a->jid.job)
			continue;
		rebalance_one(a, &now, backend, pid, a->job ? &jp[i] : NULL, &tgs[n]);
		if (tgs[n].rc < 0 || tgs[n].r.interrupted)
			status = 1;
		n++;
	}
	if (!tgs) {
		cli_error("rebalance", "out of memory");
		status = 1;
	} else {
		if (update_lease(a, tgs, n, lease, sizeof(lease)) < 0)
			status = 1;
		if (stop_requested)
			status = 1;
		if (a->c.json) {
			if (rebalance_print_json(a->dry_run, a->job, backend, why, tgs, n, lease))
				status = 1;
		} else {
			rebalance_print_text(a->dry_run, why, tgs, n, lease);
		}
	}
	smpol_topology_free(&now.topo);
	smpol_bw_free(&now.bw);
	smpol_step_states_free(now.kept, now.nkept);
	for (int i = 0; i < n; i++)
		smpol_plan_free(&tgs[i].plan);
	free(tgs);
	free(jp);
	smpol_spec_free(&a->spec_parsed);
	free(a);
	closelog();
	return status;
}
