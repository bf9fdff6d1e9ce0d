/* mpol-launch - start a program with the memory policy the plugin would give it.
 *
 *   mpol-launch [--cpus LIST] [--spec SPEC] [--algorithm optimal|kernel]
 *               [--lease STATEDIR] [--bandwidth FILE|hmat] -- PROG [ARGS]
 *
 * The same libsmpol calls as the plugin: slurmstepd's part (topology of "/", the
 * weights table, the placement decision with the sysfs weights lease under --lease:
 * smpol_place_with_lease), then the task's part (slurm_spank_task_init: its CPU affinity,
 * smpol_placement_pick, smpol_apply_plan). --cpus stands in for task/affinity,
 * --algorithm for the plugstack argument algorithm=, --lease STATEDIR for a site with
 * sysfs=always on a node the job owns (without it: sysfs=never, so a weighted step
 * runs on the node's weights, as on a shared node). --bandwidth resolves the bandwidth
 * sources as the plugin does (bw_sources.h: the raw ACPI HMAT, then the table FILE;
 * hmat = no table); without it plans weigh nodes by sysfs HMAT alone.
 * The task's CPUs are also what it spans (one task on a node the job owns, as the
 * plugin sees a one-task step): with the lease, a task spanning CPU nodes gets each
 * socket's weights scaled to its CPUs (placement.h).
 * Prints one "launch:" line with what was applied and exports
 * SLURM_MEM_INTERLEAVE_{MODE,NODES,WEIGHTS,CPU_NODES} as the plugin does, then execs PROG
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
#include "bw_sources.h"
#include "error.h"
#include "lease_place.h"
#include "placement.h"
#include "plan.h"
#include "site_config.h"
#include "spec.h"
#include "topology.h"
#include "wi.h"

struct launch {
	struct smpol_spec spec;
	struct smpol_site_config site;
	bool lease;                    /* --lease given */
	const char *bandwidth;         /* --bandwidth FILE|hmat, NULL = sysfs HMAT only */
	char *const *argv;
};

static void usage(FILE *out)
{
	fprintf(out, "usage: mpol-launch [--cpus LIST] [--spec SPEC] [--algorithm optimal|kernel]\n"
		     "                   [--lease STATEDIR] [--bandwidth FILE|hmat] -- PROG [ARGS]\n");
}

static int parse_args(int argc, char **argv, struct launch *l)
{
	static const struct option longopts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "spec", required_argument, NULL, 's' },
		{ "algorithm", required_argument, NULL, 'a' },
		{ "lease", required_argument, NULL, 'l' },
		{ "bandwidth", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spec = "weighted";
	struct smpol_site_config *cfg = &l->site;
	char err[SMPOL_ERRLEN];
	int c;

	if (smpol_config_default(cfg) != 0) {
		fprintf(stderr, "mpol-launch: out of memory\n");
		return 1;
	}
	cfg->decide.sysfs = SMPOL_SYSFS_NEVER;
	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': {
			struct smpol_cpus cpus = { 0 };
			cpu_set_t set;
			if (smpol_cpus_parse_list(optarg, CPU_SETSIZE, &cpus, err, sizeof(err)) != 0) {
				fprintf(stderr, "mpol-launch: --cpus: %s\n", err);
				return 2;
			}
			CPU_ZERO(&set);
			for (int i = smpol_cpus_next(&cpus, 0); i >= 0; i = smpol_cpus_next(&cpus, i + 1))
				CPU_SET(i, &set);
			smpol_cpus_free(&cpus);
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
				cfg->decide.algorithm = SMPOL_ALGO_OPTIMAL;
			} else if (!strcmp(optarg, "kernel")) {
				cfg->decide.algorithm = SMPOL_ALGO_KERNEL;
			} else {
				fprintf(stderr, "mpol-launch: bad --algorithm '%s': use optimal or kernel\n", optarg);
				return 2;
			}
			break;
		case 'l':
			if (smpol_host_set_statedir(&cfg->host, optarg, err, sizeof(err)) != 0) {
				fprintf(stderr, "mpol-launch: --lease: %s\n", err);
				return 2;
			}
			cfg->decide.sysfs = SMPOL_SYSFS_ALWAYS;
			l->lease = true;
			break;
		case 'b':
			l->bandwidth = optarg;
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
	l->argv = argv + optind;
	return 0;
}

/* The task's part: its affinity picks the plan, then the policy is set and exported. */
static int apply_task(const struct launch *l, const struct smpol_topology *topo,
		      const struct smpol_placement *pl, char *err, size_t errlen)
{
	static struct smpol_plan picked;
	const struct smpol_plan *chosen = NULL;
	struct smpol_apply_result res;
	struct smpol_cpus cpus = { 0 };
	char nodes[256] = "", weights[256] = "", served[256] = "";
	int rc;

	memset(&res, 0, sizeof(res));
	if (pl->active) {
		rc = smpol_task_cpus(0, &cpus, err, errlen);
		if (rc == 0)
			rc = smpol_placement_pick(pl, topo, &cpus, &picked, err, errlen);
		smpol_cpus_free(&cpus);
		if (rc == 0)
			rc = smpol_apply_plan(&picked, pl->path, l->spec.strict, &res, err, errlen);
		if (rc != 0)
			return rc;
		chosen = &picked;
		smpol_plan_format_nodes(chosen, nodes, sizeof(nodes));
		smpol_plan_format_served(chosen, false, served, sizeof(served));
		/* The weights the pages follow: plain interleave gives every node one page. */
		if (res.path == SMPOL_PATH_WEIGHTED && pl->weights_known)
			smpol_plan_format_weights(chosen, weights, sizeof(weights));
		else if (res.path == SMPOL_PATH_INTERLEAVE)
			for (size_t i = 0, off = 0; i < (size_t)chosen->nnodes && off + 3 < sizeof(weights); i++)
				off += (size_t)snprintf(weights + off, sizeof(weights) - off, i ? ":1" : "1");
	}
	const char *mode = smpol_applied_mode_name(l->spec.mode, res.path);
	setenv("SLURM_MEM_INTERLEAVE_MODE", mode, 1);
	setenv("SLURM_MEM_INTERLEAVE_NODES", nodes, 1);
	setenv("SLURM_MEM_INTERLEAVE_WEIGHTS", weights, 1);
	setenv("SLURM_MEM_INTERLEAVE_CPU_NODES", served, 1);
	printf("launch: initiator=%d cpu_nodes=%s path=%s mode=%s nodes=%s weights=%s bw=%s fell_back=%d%s%s%s%s\n",
	       chosen ? chosen->initiator : -1, served, smpol_kernel_path_name(res.path), mode, nodes, weights,
	       chosen ? smpol_bw_source_name(chosen->bw_source) : "-", res.fell_back, res.fell_back ? " reason=" : "", res.fell_back ? res.reason : "",
	       pl->note ? " note=" : "", pl->note ? pl->note : "");
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct launch l = { 0 };
	struct smpol_topology topo;
	struct smpol_wi_table table;
	struct smpol_placement pl;
	struct smpol_place_in in;
	struct smpol_lease_owner owner = { .job_id = 1, .uid = getuid() };
	struct smpol_lease_try lease;
	struct smpol_bw_table bw = { 0 };
	struct smpol_bw_origin origin;
	struct smpol_cpus span = { 0 };   /* held until the launched program replaces this one */
	char err[SMPOL_ERRLEN], table_err[SMPOL_ERRLEN] = "", warning[SMPOL_ERRLEN + 64];
	int rc, status;
	bool held;
	pid_t child;

	rc = parse_args(argc, argv, &l);
	if (rc != 0)
		return rc;
	if (smpol_topology_read(&l.site.host, &topo, err, sizeof(err)) != 0) {
		fprintf(stderr, "mpol-launch: %s\n", err);
		return 1;
	}
	smpol_wi_read(&l.site.host, &table, table_err, sizeof(table_err));
	if (l.bandwidth) {
		bool file = strcmp(l.bandwidth, "hmat") != 0;

		if (smpol_bw_resolve(&topo, file ? l.bandwidth : NULL, file, &bw, &origin) != 0) {
			fprintf(stderr, "mpol-launch: out of memory\n");
			return 1;
		}
		smpol_bw_origin_warning(&origin, warning, sizeof(warning));
		if (warning[0])
			fprintf(stderr, "mpol-launch: %s\n", warning);
	}
	/* the one task of a node the job owns: its CPUs are what it spans (as step.c) */
	if (smpol_task_cpus(0, &span, err, sizeof(err)) != 0) {
		fprintf(stderr, "mpol-launch: %s\n", err);
		return 1;
	}
	in = (struct smpol_place_in){
		.spec = l.spec, .site = &l.site.decide, .topo = &topo,
		.table_error = table_err[0] ? table_err : NULL, .job_owns_node = true,
		.lease = SMPOL_LEASE_UNTRIED, .bandwidth = l.bandwidth ? &bw : NULL, .span_cpus = &span,
	};
	/* slurmstepd's part, as step.c calls it */
	if (smpol_place_with_lease(&in, &table, &owner, &pl, &lease) != 0) {
		fprintf(stderr, "mpol-launch: out of memory\n");
		return 1;
	}
	if (lease.refused[0])
		fprintf(stderr, "mpol-launch: weights not written: %s\n", lease.refused);
	held = lease.held;
	if (pl.failure) {
		fprintf(stderr, "mpol-launch: %s\n", pl.failure);
		return 1;
	}
	if (l.lease && !held)
		fprintf(stderr, "mpol-launch: no weights lease: %s\n",
			pl.note ? pl.note : "the node's weights already are this step's, or the mode writes none");
	child = held ? fork() : 0;
	if (child < 0) {
		fprintf(stderr, "mpol-launch: fork failed: %s\n", strerror(errno));
		rc = 1;
	} else if (child == 0) {
		if (apply_task(&l, &topo, &pl, err, sizeof(err)) != 0) {
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
	if (held && smpol_lease_release(&l.site.host, &owner, &auto_failed, err, sizeof(err)) != 0) {
		fprintf(stderr, "mpol-launch: weights lease release: %s\n", err);
		rc = 1;
	} else if (auto_failed) {
		fprintf(stderr, "mpol-launch: weights lease release: %s\n", err);
	}
	smpol_placement_free(&pl);
	smpol_bw_free(&bw);
	smpol_topology_free(&topo);
	smpol_spec_free(&l.spec);
	smpol_config_free(&l.site);
	return rc;
}
