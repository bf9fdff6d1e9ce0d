/* cmd_watch.c - `mpolctl watch`: after memory or node hotplug, and when tasks move to
 * another socket's CPUs, rebalance the jobs that asked for interleaving (runs as the
 * mpolctl-watch service).
 *
 * One burst of uevents (a DIMM is many memory blocks) leads to one round: optionally
 * `mpolctl apply --system` so the new node has its system weight, then one
 * `mpolctl rebalance --job J` per job on this node; rebalance itself skips tasks that
 * did not ask for --mem-interleave. Between bursts, every --scan seconds, the tasks of
 * steps that keep a placement are checked for a move to another socket
 * (watch_migration.c), and those that moved get one `mpolctl rebalance --pid ...`.
 * Each round runs as child processes, so a failing job never stops the watcher.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "error.h"
#include "hotplug.h"
#include "job_pids.h"
#include "run_cmd.h"
#include "site_config.h"
#include "step_state.h"
#include "watch.h"

enum { OPT_SETTLE = 0x200, OPT_SCAN, OPT_ONCE, OPT_DRY_RUN, OPT_APPLY_SYSTEM, OPT_RATE, OPT_BACKEND, OPT_PMBIND_NR,
        OPT_GROW_CPUSET };

#define CHILD_OUTPUT_MAX (1 << 20)
/* a rebalance moves at most --rate MB/s; one that takes longer than this is stuck */
#define CHILD_TIMEOUT_S 3600
#define MAX_ARGS 24

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mpolctl watch [--settle SECONDS] [--scan SECONDS] [--once] [--dry-run] [--apply-system]\n"
		"                     [--grow-cpuset] [--rate MB/s] [--backend B] [--process-mbind-nr N]\n"
		"                     [--statedir DIR] [--fsroot DIR]\n"
		"\n"
		"Listen for memory and NUMA node hotplug (kernel uevents). After a burst of events\n"
		"has settled, rebalance every job on this node that asked for --mem-interleave\n"
		"(`mpolctl rebalance --job J` for each), once per burst. Every --scan seconds,\n"
		"look at the tasks of running steps (their kept placements) and rebalance\n"
		"those whose CPUs now belong to another socket than their memory follows (an\n"
		"MPI runtime or an admin re-pinned them); a move within a socket, a task that\n"
		"set its own policy and a process that did not ask are left alone. Runs as\n"
		"the mpolctl-watch service; every action is logged to syslog and stderr.\n"
		"\n"
		"  --settle SECONDS      quiet time that ends a burst (default 5, 0-3600)\n"
		"  --scan SECONDS        period of the migration scan (default 10, 1-86400;\n"
		"                        0: no scan)\n"
		"  --once                exit after the first round that acted (a burst, or a\n"
		"                        scan that found moved tasks)\n"
		"  --dry-run             pass --dry-run to rebalance and apply: move and write nothing\n"
		"  --apply-system        first run `mpolctl apply --system`, so hot-added nodes get\n"
		"                        their system weight (refused while a job holds the lease)\n"
		"  --grow-cpuset, --rate, --backend, --process-mbind-nr, --statedir, --fsroot\n"
		"                        passed to rebalance (see mpolctl rebalance --help);\n"
		"                        --statedir and --fsroot to apply --system too\n"
		"  -h, --help            show this help\n");
}

struct watch_args {
	struct cli_common c;
	unsigned settle, scan;
	bool once, dry_run, apply_system, grow_cpuset;
	const char *rate, *backend, *pmbind_nr;
};

static void parse_args(int argc, char **argv, struct watch_args *a)
{
	static const struct option options[] = {
		{ "settle", required_argument, NULL, OPT_SETTLE },
		{ "scan", required_argument, NULL, OPT_SCAN },
		{ "once", no_argument, NULL, OPT_ONCE },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		{ "apply-system", no_argument, NULL, OPT_APPLY_SYSTEM },
		{ "rate", required_argument, NULL, OPT_RATE },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "process-mbind-nr", required_argument, NULL, OPT_PMBIND_NR },
		CLI_STATEDIR_OPTION,
		{ "grow-cpuset", no_argument, NULL, OPT_GROW_CPUSET },
		CLI_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	memset(a, 0, sizeof(*a));
	cli_common_init(&a->c);
	a->settle = 5;
	a->scan = 10;
	while ((opt = cli_getopt(&a->c, "watch", argc, argv, ":h", options)) != -1) {
		switch (opt) {
		case OPT_SETTLE:
			a->settle = (unsigned)cli_number("watch", "--settle", optarg, 0, 0, 3600);
			break;
		case OPT_SCAN:
			a->scan = (unsigned)cli_number("watch", "--scan", optarg, 0, 0, 86400);
			break;
		case OPT_ONCE:
			a->once = true;
			break;
		case OPT_DRY_RUN:
			a->dry_run = true;
			break;
		case OPT_APPLY_SYSTEM:
			a->apply_system = true;
			break;
		case OPT_RATE:
			a->rate = optarg;
			break;
		case OPT_BACKEND:
			a->backend = optarg;
			break;
		case OPT_PMBIND_NR:
			a->pmbind_nr = optarg;
			break;
		case OPT_GROW_CPUSET:
			a->grow_cpuset = true;
			break;
		default:
			cli_common_option(&a->c, "watch", opt, argc, argv, usage);
		}
	}
	cli_no_operands(&a->c, "watch", argc, argv);
	if (a->c.json)
		cli_usage_error("watch", "--json is not available: watch logs one line per action");
}

/* Run this same mpolctl binary with argv; log what it said. */
static void run_self(char **argv)
{
	char err[SMPOL_ERRLEN], *out = NULL, cmd[512] = "";
	int rc;

	for (int i = 1; argv[i]; i++) {
		strncat(cmd, " ", sizeof(cmd) - strlen(cmd) - 1);
		strncat(cmd, argv[i], sizeof(cmd) - strlen(cmd) - 1);
	}
	watch_log(LOG_INFO, "running mpolctl%s", cmd);
	rc = smpol_run_capture(argv, -1, CHILD_OUTPUT_MAX, CHILD_TIMEOUT_S, &out, err, sizeof(err));
	if (out && *out)
		for (char *save = NULL, *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			watch_log(LOG_INFO, "  %s", line);
	if (rc < 0)
		watch_log(LOG_WARNING, "mpolctl%s failed: %s", cmd, err);
	free(out);
}

static int add_opt(char **argv, int n, const char *name, const char *value)
{
	if (!value)
		return n;
	argv[n++] = (char *)name;
	argv[n++] = (char *)value;
	return n;
}

/* Run `mpolctl rebalance TARGET VALUE` with the options watch passes on. */
static void run_rebalance(const struct watch_args *a, const char *target, const char *value)
{
	char *argv[MAX_ARGS] = { "/proc/self/exe", "rebalance", (char *)target, (char *)value };
	int n = 4;

	if (a->dry_run)
		argv[n++] = "--dry-run";
	if (a->grow_cpuset)
		argv[n++] = "--grow-cpuset";
	n = add_opt(argv, n, "--rate", a->rate);
	n = add_opt(argv, n, "--backend", a->backend);
	n = add_opt(argv, n, "--process-mbind-nr", a->pmbind_nr);
	n = add_opt(argv, n, "--statedir", a->c.host.statedir);
	add_opt(argv, n, "--fsroot", a->c.host.fsroot);
	run_self(argv);
}

/* Add job to jobs[] unless it is there; n counts them. */
static void add_job(uint32_t *jobs, int *n, uint32_t job)
{
	for (int i = 0; i < *n; i++)
		if (jobs[i] == job)
			return;
	jobs[(*n)++] = job;
}

/*
 * The jobs with processes on this node: those whose steps keep a placement (every
 * step that asked for interleaving, readable without Slurm), and those scontrol
 * listpids names (a step that asked but could not keep its placement). listpids of
 * every job fails as a whole when one step's socket is stale (a killed slurmstepd):
 * then the kept placements still serve.
 */
static int jobs_on_node(const struct watch_args *a, uint32_t **jobs, int *njobs)
{
	struct smpol_step_state *states = NULL;
	struct job_pid *pids = NULL;
	char err[SMPOL_ERRLEN];
	int nstates = 0, npids = 0;

	*njobs = 0;
	if (smpol_step_state_list(&a->c.host, &states, &nstates, NULL, err, sizeof(err)) < 0)
		watch_log(LOG_WARNING, "cannot read the kept placements: %s", err);
	if (job_pids_list(NULL, &pids, &npids, err, sizeof(err)) < 0)
		watch_log(LOG_WARNING, "cannot list the jobs on this node through scontrol: %s%s", err,
			  nstates ? "; the steps' kept placements name the jobs" : "");
	*jobs = calloc((size_t)(nstates + npids) + 1, sizeof(**jobs));
	for (int i = 0; *jobs && i < nstates; i++)
		if (states[i].holder_alive)
			add_job(*jobs, njobs, states[i].job_id);
	for (int i = 0; *jobs && i < npids; i++)
		add_job(*jobs, njobs, pids[i].job);
	smpol_step_states_free(states, nstates);
	free(pids);
	return *jobs ? 0 : -ENOMEM;
}

static void handle_burst(const struct watch_args *a, const struct smpol_hotplug_burst *b)
{
	char nodes[256] = "", jobid[16];
	uint32_t *jobs = NULL;
	int njobs = 0;

	smpol_bitmap_format_list(&b->nodes, nodes, sizeof(nodes));
	watch_log(LOG_NOTICE, "memory hotplug burst: %d events, %d memory blocks online, nodes added: %s",
		   b->events, b->memory_blocks, *nodes ? nodes : "none");
	if (a->apply_system) {
		char *argv[MAX_ARGS] = { "/proc/self/exe", "apply", "--system" };
		int n = 3;

		if (a->dry_run)
			argv[n++] = "--dry-run";
		n = add_opt(argv, n, "--statedir", a->c.host.statedir);
		add_opt(argv, n, "--fsroot", a->c.host.fsroot);
		run_self(argv);
	}
	if (jobs_on_node(a, &jobs, &njobs) < 0) {
		watch_log(LOG_WARNING, "out of memory listing the jobs on this node");
		return;
	}
	for (int i = 0; i < njobs && !stop_requested; i++) {
		snprintf(jobid, sizeof(jobid), "%u", jobs[i]);
		run_rebalance(a, "--job", jobid);
	}
	if (!njobs)
		watch_log(LOG_INFO, "no job runs on this node: nothing to rebalance");
	free(jobs);
}

/* One migration scan; true when it found tasks to move (and had them rebalanced). */
static bool scan_migrations(const struct watch_args *a)
{
	char list[4096] = "";
	pid_t *moved;
	int n;
	size_t off = 0;

	if (watch_scan_migrations(&a->c.host, &moved, &n) < 0 || n == 0) {
		free(moved);
		return false;
	}
	for (int i = 0; i < n && off + 16 < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, i ? ",%d" : "%d", (int)moved[i]);
	free(moved);
	run_rebalance(a, "--pid", list);
	return true;
}

int cmd_watch(int argc, char **argv)
{
	struct watch_args a;
	struct smpol_hotplug_burst burst;
	struct sigaction sa;
	char err[SMPOL_ERRLEN];
	int fd, rc;

	parse_args(argc, argv, &a);
	openlog("mpolctl", LOG_PID, LOG_DAEMON);
	if (smpol_hotplug_open(&fd, err, sizeof(err)) < 0) {
		cli_error("watch", "%s", err);
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (a.scan)
		watch_log(LOG_INFO, "listening for memory and node hotplug (settle %u s); scanning for moved tasks "
			  "every %u s%s", a.settle, a.scan, a.dry_run ? "; dry run" : "");
	else
		watch_log(LOG_INFO, "listening for memory and node hotplug (settle %u s); no migration scan%s",
			  a.settle, a.dry_run ? "; dry run" : "");
	for (;;) {
		bool acted;

		rc = smpol_hotplug_wait(fd, a.settle * 1000, a.scan ? (int)a.scan * 1000 : -1, true, &stop_requested,
					&burst, err, sizeof(err));
		if (rc < 0) {
			watch_log(LOG_ERR, "%s", err);
			close(fd);
			return 1;
		}
		if (rc == 1)
			break;
		if (rc == 2) {
			acted = scan_migrations(&a);
		} else {
			handle_burst(&a, &burst);
			acted = true;
		}
		if (a.once && acted)
			break;
	}
	watch_log(LOG_INFO, "stopped");
	close(fd);
	return 0;
}
