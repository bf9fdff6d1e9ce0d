/* mpol-launch - start a program with the memory policy the plugin would give it.
 *
 *   mpol-launch [--cpus LIST] [--spec SPEC] [--algorithm optimal|kernel]
 *               [--lease STATEDIR] -- PROG [ARGS]
 *
 * The same libsmpol calls as the plugin: slurmstepd's part (topology of "/", kernel
 * probe, smpol_plan_all once, and with --lease the sysfs weights lease), then the
 * task's part (slurm_spank_task_init: its CPU affinity, smpol_task_apply). --cpus
 * stands in for task/affinity, --algorithm for the plugstack argument algorithm=.
 * As in slurmstepd, only weighted mode on a kernel with sysfs weights takes the lease.
 * Prints one "launch:" line with what was applied and exports
 * SLURM_MEM_INTERLEAVE_{MODE,NODES,WEIGHTS} as the plugin does, then execs PROG
 * (with the lease: runs it as a child and releases the lease when it exits).
 * Errors print "mpol-launch: <libsmpol's sentence>" and exit 1; bad arguments exit 2.
 */
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply.h"
#include "bitmap.h"
#include "error.h"
#include "kernel.h"
#include "lease.h"
#include "plan.h"
#include "site_config.h"
#include "spec.h"
#include "topology.h"
#include "wi.h"

struct launch {
	struct smpol_spec spec;
	struct smpol_plan_opts opts;
	const char *statedir;          /* NULL: no lease */
	char *const *argv;
};

static void usage(FILE *out)
{
	fprintf(out, "usage: mpol-launch [--cpus LIST] [--spec SPEC] [--algorithm optimal|kernel]\n"
		     "                   [--lease STATEDIR] -- PROG [ARGS]\n");
}

static int parse_args(int argc, char **argv, struct launch *l)
{
	static const struct option longopts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "spec", required_argument, NULL, 's' },
		{ "algorithm", required_argument, NULL, 'a' },
		{ "lease", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spec = "weighted";
	struct smpol_site_config cfg;
	char err[SMPOL_ERRLEN];
	int c;

	smpol_config_default(&cfg);
	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': {
			struct smpol_bitmap cpus;
			cpu_set_t set;
			if (smpol_bitmap_parse_list(optarg, CPU_SETSIZE, &cpus, err, sizeof(err)) != 0) {
				fprintf(stderr, "mpol-launch: --cpus: %s\n", err);
				return 2;
			}
			CPU_ZERO(&set);
			for (int i = smpol_bitmap_next(&cpus, 0); i >= 0; i = smpol_bitmap_next(&cpus, i + 1))
				CPU_SET(i, &set);
			if (sched_setaffinity(0, sizeof(set), &set) != 0) {
				fprintf(stderr, "mpol-launch: cannot bind to CPUs %s: %s\n", optarg, strerror(errno));
				return 1;
			}
			break;
		}
		case 's':
			spec = optarg;
			break;
		case 'a':
			if (!strcmp(optarg, "optimal")) {
				cfg.algorithm = SMPOL_ALGO_OPTIMAL;
			} else if (!strcmp(optarg, "kernel")) {
				cfg.algorithm = SMPOL_ALGO_KERNEL;
			} else {
				fprintf(stderr, "mpol-launch: bad --algorithm '%s': use optimal or kernel\n", optarg);
				return 2;
			}
			break;
		case 'l':
			l->statedir = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (smpol_spec_parse(spec, &l->spec, err, sizeof(err)) != 0) {
		fprintf(stderr, "mpol-launch: --spec: %s\n", err);
		return 2;
	}
	smpol_plan_opts_from_spec(&l->spec, &cfg, 0, &l->opts);
	l->argv = argv + optind;
	return 0;
}

/* slurmstepd's lease: one table holding every plan's weights. */
static int take_lease(const struct launch *l, const struct smpol_plan *plans, int nplans,
		      struct smpol_lease_owner *owner, char *err, size_t errlen)
{
	struct smpol_wi_table weights;
	struct smpol_bitmap which;
	int rc;

	rc = smpol_wi_from_plans(plans, nplans, &weights, &which, err, errlen);
	if (rc < 0)
		return rc;
	memset(owner, 0, sizeof(*owner));
	owner->job_id = 1;
	owner->uid = getuid();
	owner->pid = getpid();
	rc = smpol_lease_owner_self(owner, err, errlen);
	if (rc == 0)
		rc = smpol_lease_acquire(l->statedir, "/", owner, &weights, &which, err, errlen);
	return rc;
}

/* The task's part: its affinity picks the plan, then the policy is set and exported. */
static int apply_task(const struct launch *l, const struct smpol_topology *topo,
		      const struct smpol_plan *plans, int nplans, const struct smpol_kernel_caps *caps,
		      char *err, size_t errlen)
{
	const struct smpol_plan *chosen = NULL;
	struct smpol_apply_result res;
	struct smpol_bitmap cpus;
	char nodes[256] = "", weights[256] = "";
	int rc;

	rc = smpol_task_cpus(0, &cpus, err, errlen);
	if (rc < 0)
		return rc;
	memset(&res, 0, sizeof(res));
	rc = smpol_task_apply(topo, plans, nplans, &cpus, l->spec.mode, l->spec.strict, caps, &chosen,
			     &res, err, errlen);
	if (rc != 0)
		return rc;
	if (chosen) {
		smpol_plan_format_nodes(chosen, nodes, sizeof(nodes));
		/* The weights the pages follow: plain interleave gives every node one page. */
		if (res.path == SMPOL_PATH_WEIGHTED)
			smpol_plan_format_weights(chosen, weights, sizeof(weights));
		else
			for (size_t i = 0, off = 0; i < (size_t)chosen->nnodes && off + 3 < sizeof(weights); i++)
				off += (size_t)snprintf(weights + off, sizeof(weights) - off, i ? ":1" : "1");
	}
	const char *mode = smpol_applied_mode_name(l->spec.mode, res.path);
	setenv("SLURM_MEM_INTERLEAVE_MODE", mode, 1);
	setenv("SLURM_MEM_INTERLEAVE_NODES", nodes, 1);
	setenv("SLURM_MEM_INTERLEAVE_WEIGHTS", weights, 1);
	printf("launch: initiator=%d path=%s mode=%s nodes=%s weights=%s fell_back=%d%s%s\n",
	       chosen ? chosen->initiator : -1, smpol_kernel_path_name(res.path), mode, nodes, weights,
	       res.fell_back, res.fell_back ? " reason=" : "", res.fell_back ? res.reason : "");
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct launch l = { 0 };
	struct smpol_topology topo;
	struct smpol_kernel_caps caps;
	struct smpol_plan *plans = NULL;
	struct smpol_lease_owner owner;
	char err[SMPOL_ERRLEN];
	int nplans = 0, rc, status;
	pid_t child;

	rc = parse_args(argc, argv, &l);
	if (rc != 0)
		return rc;
	if (smpol_topology_read("/", &topo, err, sizeof(err)) != 0 ||
	    smpol_kernel_probe("/", &caps, err, sizeof(err)) != 0 ||
	    smpol_plan_all(&topo, &l.opts, &plans, &nplans, err, sizeof(err)) != 0) {
		fprintf(stderr, "mpol-launch: %s\n", err);
		return 1;
	}
	/* As slurmstepd: only weighted mode on a kernel with sysfs weights writes them. */
	bool lease = l.statedir && l.spec.mode == SMPOL_MODE_WEIGHTED && caps.weighted_interleave;
	if (l.statedir && !lease)
		fprintf(stderr, "mpol-launch: no weights lease: %s\n", caps.weighted_interleave ?
		       "only weighted mode writes weights" : "this kernel has no sysfs weights");
	if (lease && take_lease(&l, plans, nplans, &owner, err, sizeof(err)) != 0) {
		fprintf(stderr, "mpol-launch: weights lease: %s\n", err);
		return 1;
	}
	child = lease ? fork() : 0;
	if (child < 0) {
		fprintf(stderr, "mpol-launch: fork failed: %s\n", strerror(errno));
		rc = 1;
	} else if (child == 0) {
		if (apply_task(&l, &topo, plans, nplans, &caps, err, sizeof(err)) != 0) {
			fprintf(stderr, "mpol-launch: %s\n", err);
			_exit(1);
		}
		execvp(l.argv[0], l.argv);
		fprintf(stderr, "mpol-launch: cannot run %s: %s\n", l.argv[0], strerror(errno));
		_exit(127);
	} else {
		rc = waitpid(child, &status, 0) == child && WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	bool auto_failed = false;
	if (lease && smpol_lease_release(l.statedir, "/", &owner, &auto_failed, err, sizeof(err)) != 0) {
		fprintf(stderr, "mpol-launch: weights lease release: %s\n", err);
		rc = 1;
	} else if (auto_failed) {
		fprintf(stderr, "mpol-launch: weights lease release: %s\n", err);
	}
	free(plans);
	smpol_topology_free(&topo);
	return rc;
}
