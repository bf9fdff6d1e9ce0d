/* cmd_apply.c - `mpolctl apply --system`: the node's weights become the hardware's
 * optimum per socket (the same for every job), or go back to the kernel (--auto). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "commands.h"
#include "lease.h"
#include "plan.h"
#include "site.h"
#include "site_config.h"
#include "topology.h"
#include "wi.h"

enum { OPT_SYSTEM = 0x200, OPT_AUTO, OPT_DRY_RUN };

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mpolctl apply --system [--auto] [--dry-run] [--statedir DIR] [--fsroot DIR]\n"
		"                     [--bandwidth FILE|none] [--plugstack FILE] [--json]\n"
		"\n"
		"Write the node's system weights into\n"
		"/sys/kernel/mm/mempolicy/weighted_interleave: for every socket, the optimal\n"
		"weights over its memory nodes, from HMAT bandwidth (the sockets' node sets are\n"
		"disjoint, so one table holds them all). Jobs that share the node interleave with\n"
		"these weights. Run it at boot and after memory hotplug (as root).\n"
		"\n"
		"  --system        required: set the system-wide table\n"
		"  --auto          hand the table back to the kernel (auto=true, Linux 6.16+); fails\n"
		"                  clearly when the kernel has no bandwidth data (ENODEV)\n"
		"  --dry-run       show what would be written, write nothing (refused where the\n"
		"                  real run is: an unsafe --statedir, a step holding the weights)\n"
		"  --statedir DIR  the weights lease directory (default " SMPOL_DEFAULT_STATEDIR "):\n"
		"                  refused while a running job step holds the weights\n"
		"  --fsroot DIR    act on sysfs under DIR instead of / (default: $MPOL_FSROOT)\n"
		"  --bandwidth FILE  the bandwidth table the plans weigh nodes by, as the plugin\n"
		"                  (default: the plugstack line's bandwidth=; none: HMAT only)\n"
		"  --plugstack FILE  the plugstack.conf holding mem_interleave.so's line\n"
		"  --json          print one JSON object\n"
		"  -h, --help      show this help\n");
}

/* Each socket's plan in one line ("node0: nodes 0,2 weights 7:2; node1: nodes 1
 * weights 1"), for the note that the table is per socket. */
static void describe_plans(const struct smpol_plan *plans, int nplans, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < nplans && used < len; i++) {
		char nodes[128] = "", weights[128] = "";

		smpol_plan_format_nodes(&plans[i], nodes, sizeof(nodes));
		smpol_plan_format_weights(&plans[i], weights, sizeof(weights));
		used += (size_t)snprintf(buf + used, len - used, "%snode%d: nodes %s weights %s", i ? "; " : "",
					 plans[i].initiator, nodes, weights);
	}
}

/* The union of every socket's plan, weighed by the bandwidth the plugin would use;
 * plans of different sockets never share a node. plans_text: describe_plans. */
static int system_table(const struct cli_common *c, const struct smpol_topology *topo, struct smpol_wi_table *want,
			struct smpol_bitmap *which, char *plans_text, size_t len)
{
	struct smpol_plan_opts opts;
	struct smpol_plan *plans;
	struct smpol_bw_table bw;
	struct smpol_bw_origin origin;
	struct cli_site site;
	char err[SMPOL_ERRLEN];
	int nplans, rc;
	bool usable;

	cli_site_read(c, &site);
	usable = cli_site_usable(c, &site, "apply");
	rc = usable ? cli_site_bandwidth(&site, topo, &bw, &origin) : 0;
	cli_site_free(&site);   /* only its table is read */
	if (!usable)
		return 1;
	if (rc < 0) {
		fprintf(stderr, "mpolctl apply: out of memory\n");
		return 1;
	}
	smpol_bw_origin_warning(&origin, err, sizeof(err));
	if (err[0])
		fprintf(stderr, "mpolctl apply: warning: %s\n", err);
	smpol_plan_opts_default(&opts);
	opts.bandwidth = &bw;
	rc = smpol_plan_all(topo, &opts, &plans, &nplans, err, sizeof(err));
	smpol_bw_free(&bw);
	if (rc < 0) {
		cli_error("apply", "%s", err);
		return 1;
	}
	rc = smpol_wi_from_plans(plans, nplans, want, which, err, sizeof(err));
	describe_plans(plans, nplans, plans_text, len);
	smpol_plans_free(plans, nplans);
	if (rc < 0) {
		cli_error("apply", "%s", err);
		return 1;
	}
	return 0;
}

/* Why node1 gets 1 beside node0's 7: the table is every socket's own plan, and a job
 * that interleaves across sockets (scope=all) reads the same numbers. */
#define PER_SOCKET_NOTE "the table holds each socket's own plan (%s); a job with scope=all " \
	"interleaves over the nodes of every socket with these same weights, not with a plan of its own"

static void print_change(const struct smpol_wi_table *now, const struct smpol_wi_table *want,
			 const struct smpol_bitmap *which, const char *plans_text, bool dry_run, bool json)
{
	struct json_object *obj, *nodes;
	char note[1024];

	snprintf(note, sizeof(note), PER_SOCKET_NOTE, plans_text);
	if (!json) {
		printf("%s the system weights:\n", dry_run ? "would write" : "wrote");
		for (int n = smpol_bitmap_next(which, 0); n >= 0; n = smpol_bitmap_next(which, n + 1))
			printf("  node%-4d %3u -> %u\n", n, now->weight[n], want->weight[n]);
		printf("note: %s\n", note);
		if (now->auto_enabled == 1)
			printf("auto mode %s off (writing any node turns it off)\n", dry_run ? "would turn" : "turned");
		return;
	}
	obj = json_object_new_object();
	nodes = json_object_new_array();
	for (int n = smpol_bitmap_next(which, 0); n >= 0; n = smpol_bitmap_next(which, n + 1)) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "node", json_object_new_int(n));
		json_object_object_add(e, "before", json_object_new_int(now->weight[n]));
		json_object_object_add(e, "after", json_object_new_int(want->weight[n]));
		json_object_array_add(nodes, e);
	}
	json_object_object_add(obj, "dry_run", json_object_new_boolean(dry_run));
	json_object_object_add(obj, "auto_before", json_object_new_int(now->auto_enabled));
	json_object_object_add(obj, "weights", nodes);
	json_object_object_add(obj, "note", json_object_new_string(note));
	cli_print_json(obj);
}

/* What the real run checks first, without changing anything: the state directory (it
 * must be root's alone) and the lease (a live step's journal would undo the write). A
 * dry run that says "would write" where the real run refuses tells the admin nothing. */
static int dry_run_refusal(const struct smpol_host *h)
{
	struct smpol_lease_state st;
	char err[SMPOL_ERRLEN];

	int rc = smpol_lease_inspect(h, &st, err, sizeof(err));

	if ((rc == -EACCES || rc == -EPERM) && geteuid() != 0) {
		fprintf(stderr, "mpolctl apply: note: %s: the real run (as root) checks it\n", err);
		return 0;
	}
	if (rc < 0) {
		cli_error("apply", "%s (the real run refuses it too)", err);
		return 1;
	}
	if (st.holder_alive) {
		cli_error("apply", "job %u step %u (pid %d) holds the weights and restores its journal at step end: "
			  "the real run is refused until it has ended", st.owner.job_id, st.owner.step_id,
			  (int)st.owner.pid);
		return 1;
	}
	return 0;
}

static int apply_auto(const struct cli_common *c, const struct smpol_wi_table *now,
		      bool dry_run)
{
	char err[SMPOL_ERRLEN];

	if (!now->auto_name[0]) {
		cli_error("apply", "this kernel has no auto mode for weighted interleave "
			  "(needs Linux 6.16); the weights stay as they are");
		return 1;
	}
	if (!dry_run && smpol_lease_set_system(&c->host, NULL, NULL, err, sizeof(err)) < 0) {
		cli_error("apply", "%s", err);
		return 1;
	}
	if (c->json) {
		struct json_object *obj = json_object_new_object();

		json_object_object_add(obj, "dry_run", json_object_new_boolean(dry_run));
		json_object_object_add(obj, "auto", json_object_new_boolean(true));
		return cli_print_json(obj);
	}
	printf("%s auto mode on: the kernel computes the weights from HMAT bandwidth\n",
	       dry_run ? "would turn" : "turned");
	return 0;
}

int cmd_apply(int argc, char **argv)
{
	static const struct option options[] = {
		{ "system", no_argument, NULL, OPT_SYSTEM },
		{ "auto", no_argument, NULL, OPT_AUTO },
		{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
		CLI_STATEDIR_OPTION,
		CLI_COMMON_OPTIONS,
		CLI_SITE_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_common c;
	bool system = false, want_auto = false, dry_run = false;
	struct smpol_topology topo;
	struct smpol_wi_table now, want;
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN], plans_text[512] = "";
	int opt, rc;

	cli_common_init(&c);
	while ((opt = cli_getopt(&c, "apply", argc, argv, ":h", options)) != -1) {
		switch (opt) {
		case OPT_SYSTEM: system = true; break;
		case OPT_AUTO: want_auto = true; break;
		case OPT_DRY_RUN: dry_run = true; break;
		default: cli_common_option(&c, "apply", opt, argc, argv, usage);
		}
	}
	cli_no_operands(&c, "apply", argc, argv);
	if (!system)
		cli_usage_error("apply", "say --system: the weights are global to the node");
	if (smpol_wi_read(&c.host, &now, err, sizeof(err)) < 0) {
		cli_error("apply", "%s", err);
		return 1;
	}
	if (!now.present) {
		cli_error("apply", "this kernel has no weighted interleave (needs Linux 6.9); "
			  "tasks use plain interleave and there are no weights to set");
		return 1;
	}
	if (dry_run && dry_run_refusal(&c.host))
		return 1;
	if (want_auto)
		return apply_auto(&c, &now, dry_run);
	if (smpol_topology_read(&c.host, &topo, err, sizeof(err)) < 0) {
		cli_error("apply", "%s", err);
		return 1;
	}
	rc = system_table(&c, &topo, &want, &which, plans_text, sizeof(plans_text));
	smpol_topology_free(&topo);
	if (rc)
		return rc;
	if (!dry_run && smpol_lease_set_system(&c.host, &want, &which, err, sizeof(err)) < 0) {
		cli_error("apply", "%s", err);
		return 1;
	}
	print_change(&now, &want, &which, plans_text, dry_run, c.json);
	return 0;
}
