/* cmd_show.c - `mpolctl show`: the node's memory topology and the kernel's interleave state. */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "commands.h"
#include "kernel.h"
#include "topology.h"
#include "units.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mpolctl show [--fsroot DIR] [--json]\n"
		"\n"
		"Show every online NUMA node (kind and why, CPUs, memory, memory tier, HMAT\n"
		"bandwidth and latency, initiators, current interleave weight), what the kernel\n"
		"offers for weighted interleave, and any warnings about unreadable sysfs files.\n"
		"\n"
		"  --fsroot DIR  read sysfs under DIR instead of / (default: $MPOL_FSROOT)\n"
		"  --json        print one JSON object instead of the table\n"
		"  -h, --help    show this help\n");
}

/* The ladder rung, in the words of kernel.h. */
static const char *layout_name(const struct smpol_kernel_caps *caps)
{
	if (!caps->weighted_interleave)
		return "none (before 6.9): plain interleave only";
	if (caps->auto_mode)
		return "6.16+: weights for memory nodes, auto mode";
	return "6.9-6.15: weights for every possible node, no auto mode";
}

static void format_initiators(const struct smpol_access *a, char *buf, size_t len)
{
	if (!a || smpol_bitmap_empty(&a->initiators) || smpol_bitmap_format_list(&a->initiators, buf, len))
		snprintf(buf, len, "-");
}

static void format_u32(uint32_t v, char *buf, size_t len)
{
	if (v)
		snprintf(buf, len, "%u", v);
	else
		snprintf(buf, len, "-");
}

static void print_node(const struct smpol_node *n)
{
	const struct smpol_access *a = smpol_node_access(n);
	char cpus[64], total[16] = "-", free_[16] = "-", tier[12] = "-", weight[12] = "-";
	char rbw[16], wbw[16], rlat[16], wlat[16], inits[64];

	if (smpol_bitmap_empty(&n->cpus) || smpol_bitmap_format_list(&n->cpus, cpus, sizeof(cpus)))
		snprintf(cpus, sizeof(cpus), "-");
	if (n->mem_total_kb)
		smpol_format_size(n->mem_total_kb, total, sizeof(total));
	if (n->mem_total_kb || n->mem_free_kb)
		smpol_format_size(n->mem_free_kb, free_, sizeof(free_));
	if (n->tier >= 0)
		snprintf(tier, sizeof(tier), "%d", n->tier);
	if (n->wi_weight >= 0)
		snprintf(weight, sizeof(weight), "%d", n->wi_weight);
	format_u32(a ? a->read_bw : 0, rbw, sizeof(rbw));
	format_u32(a ? a->write_bw : 0, wbw, sizeof(wbw));
	format_u32(a ? a->read_lat : 0, rlat, sizeof(rlat));
	format_u32(a ? a->write_lat : 0, wlat, sizeof(wlat));
	format_initiators(a, inits, sizeof(inits));
	printf("%-4d %-7s %-9s %8s %8s %4s %8s %8s %6s %6s %-10s %6s\n", n->id,
	       smpol_node_kind_name(n->kind), cpus, total, free_, tier, rbw, wbw, rlat, wlat,
	       inits, weight);
}

static bool access_differs(const struct smpol_node *n)
{
	const struct smpol_access *a0 = &n->access[0], *a1 = &n->access[1];

	return a0->valid && a1->valid &&
	       (a0->read_bw != a1->read_bw || a0->write_bw != a1->write_bw ||
		a0->read_lat != a1->read_lat || a0->write_lat != a1->write_lat ||
		!smpol_bitmap_equal(&a0->initiators, &a1->initiators));
}

static void print_text(const struct smpol_topology *topo, const struct smpol_kernel_caps *caps)
{
	char online[256] = "", possible[256] = "";
	int i;

	smpol_bitmap_format_list(&topo->online, online, sizeof(online));
	smpol_bitmap_format_list(&topo->possible, possible, sizeof(possible));
	printf("nodes online %s, possible %s (sysfs under %s)\n\n", online, possible, topo->fsroot);
	printf("%-4s %-7s %-9s %8s %8s %4s %8s %8s %6s %6s %-10s %6s\n", "NODE", "KIND", "CPUS",
	       "MEMTOTAL", "MEMFREE", "TIER", "RD_MB/s", "WR_MB/s", "RD_ns", "WR_ns", "INITIATORS",
	       "WEIGHT");
	for (i = 0; i < topo->nnodes; i++)
		print_node(&topo->nodes[i]);
	printf("\nkind:\n");
	for (i = 0; i < topo->nnodes; i++)
		printf("  node%d %s: %s\n", topo->nodes[i].id,
		       smpol_node_kind_name(topo->nodes[i].kind), topo->nodes[i].kind_reason);
	for (i = 0; i < topo->nnodes; i++) {
		const struct smpol_node *n = &topo->nodes[i];
		char inits[64];

		if (!access_differs(n))
			continue;
		format_initiators(&n->access[0], inits, sizeof(inits));
		printf("  node%d access0 (any initiator) differs: read %u/write %u MB/s, %u/%u ns, initiators %s\n",
		       n->id, n->access[0].read_bw, n->access[0].write_bw, n->access[0].read_lat,
		       n->access[0].write_lat, inits);
	}

	printf("\nkernel:\n  weighted interleave: %s\n  layout: %s\n",
	       caps->weighted_interleave ? "yes" : "no", layout_name(caps));
	if (topo->wi.present)
		printf("  weight files: %d\n", topo->wi.nfiles);
	if (topo->wi.auto_name[0])
		printf("  auto file: %s = %s%s\n", topo->wi.auto_name,
		       topo->wi.auto_enabled == 1 ? "true" : topo->wi.auto_enabled == 0 ? "false" : "unreadable",
		       topo->wi.auto_enabled == 0 ? " (weights were set by hand or by mpolctl apply)" :
		       topo->wi.auto_enabled == 1 ? " (the kernel sets weights from HMAT)" : "");
	else if (topo->wi.present)
		printf("  auto file: none\n");

	if (topo->nwarnings)
		printf("\nwarnings:\n");
	for (i = 0; i < topo->nwarnings; i++)
		printf("  %s\n", topo->warnings[i]);
}

/* json-c takes int64; a u32 0 means unknown and becomes null. */
static json_object *json_u32(uint32_t v)
{
	return v ? json_object_new_int64(v) : NULL;
}

static json_object *json_list(const struct smpol_bitmap *b)
{
	json_object *arr = json_object_new_array();

	for (int id = smpol_bitmap_next(b, 0); id >= 0; id = smpol_bitmap_next(b, id + 1))
		json_object_array_add(arr, json_object_new_int(id));
	return arr;
}

static json_object *json_access(const struct smpol_access *a, int k)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "class", json_object_new_int(k));
	json_object_object_add(o, "read_bandwidth", json_u32(a->read_bw));
	json_object_object_add(o, "write_bandwidth", json_u32(a->write_bw));
	json_object_object_add(o, "read_latency", json_u32(a->read_lat));
	json_object_object_add(o, "write_latency", json_u32(a->write_lat));
	json_object_object_add(o, "initiators", json_list(&a->initiators));
	return o;
}

static json_object *json_node(const struct smpol_topology *topo, const struct smpol_node *n)
{
	json_object *o = json_object_new_object(), *acc = json_object_new_array(), *dist = NULL;
	char cpus[1024] = "";
	int init = smpol_node_initiator(topo, n), k;

	smpol_bitmap_format_list(&n->cpus, cpus, sizeof(cpus));
	json_object_object_add(o, "id", json_object_new_int(n->id));
	json_object_object_add(o, "kind", json_object_new_string(smpol_node_kind_name(n->kind)));
	json_object_object_add(o, "kind_reason", json_object_new_string(n->kind_reason));
	json_object_object_add(o, "has_cpu", json_object_new_boolean(n->has_cpu));
	json_object_object_add(o, "has_memory", json_object_new_boolean(n->has_memory));
	json_object_object_add(o, "cpus", json_object_new_string(cpus));
	json_object_object_add(o, "mem_total_kb", json_object_new_int64((int64_t)n->mem_total_kb));
	json_object_object_add(o, "mem_free_kb", json_object_new_int64((int64_t)n->mem_free_kb));
	json_object_object_add(o, "tier", n->tier >= 0 ? json_object_new_int(n->tier) : NULL);
	for (k = 0; k < SMPOL_ACCESS_CLASSES; k++)
		if (n->access[k].valid)
			json_object_array_add(acc, json_access(&n->access[k], k));
	json_object_object_add(o, "access", acc);
	json_object_object_add(o, "bandwidth", json_u32(smpol_node_bandwidth(n)));
	json_object_object_add(o, "initiator", init >= 0 ? json_object_new_int(init) : NULL);
	if (n->distance) {
		dist = json_object_new_array();
		for (k = 0; k < topo->nnodes; k++)
			json_object_array_add(dist, json_object_new_int(n->distance[k]));
	}
	json_object_object_add(o, "distance", dist);
	json_object_object_add(o, "weight", n->wi_weight >= 0 ? json_object_new_int(n->wi_weight) : NULL);
	return o;
}

static json_object *json_kernel(const struct smpol_topology *topo, const struct smpol_kernel_caps *caps)
{
	json_object *o = json_object_new_object();
	const struct smpol_wi_sysfs *wi = &topo->wi;

	json_object_object_add(o, "weighted_interleave", json_object_new_boolean(caps->weighted_interleave));
	json_object_object_add(o, "layout", json_object_new_string(layout_name(caps)));
	json_object_object_add(o, "weights_for_possible", json_object_new_boolean(caps->weights_for_possible));
	json_object_object_add(o, "weight_files", json_object_new_int(wi->nfiles));
	json_object_object_add(o, "auto_file", wi->auto_name[0] ? json_object_new_string(wi->auto_name) : NULL);
	json_object_object_add(o, "auto_enabled",
			       wi->auto_enabled >= 0 ? json_object_new_boolean(wi->auto_enabled) : NULL);
	return o;
}

static int print_json(const struct smpol_topology *topo, const struct smpol_kernel_caps *caps)
{
	json_object *o = json_object_new_object(), *nodes = json_object_new_array();
	json_object *warnings = json_object_new_array();
	char list[256] = "";
	int i;

	json_object_object_add(o, "fsroot", json_object_new_string(topo->fsroot));
	smpol_bitmap_format_list(&topo->online, list, sizeof(list));
	json_object_object_add(o, "online", json_object_new_string(list));
	smpol_bitmap_format_list(&topo->possible, list, sizeof(list));
	json_object_object_add(o, "possible", json_object_new_string(list));
	for (i = 0; i < topo->nnodes; i++)
		json_object_array_add(nodes, json_node(topo, &topo->nodes[i]));
	json_object_object_add(o, "nodes", nodes);
	json_object_object_add(o, "kernel", json_kernel(topo, caps));
	for (i = 0; i < topo->nwarnings; i++)
		json_object_array_add(warnings, json_object_new_string(topo->warnings[i]));
	json_object_object_add(o, "warnings", warnings);
	return cli_print_json(o);
}

int cmd_show(int argc, char **argv)
{
	static const struct option options[] = { CLI_COMMON_OPTIONS, { NULL, 0, NULL, 0 } };
	struct cli_common c = CLI_COMMON_INIT;
	struct smpol_kernel_caps caps;
	struct smpol_topology topo;
	char err[SMPOL_ERRLEN];
	int opt, rc;

	while ((opt = getopt_long(argc, argv, ":h", options, NULL)) != -1)
		cli_common_option(&c, "show", opt, argc, argv, usage);
	cli_no_operands(&c, "show", argc, argv);

	if (smpol_kernel_probe(c.fsroot, &caps, err, sizeof(err)) ||
	    smpol_topology_read(c.fsroot, &topo, err, sizeof(err))) {
		fprintf(stderr, "mpolctl show: %s\n", err);
		return 1;
	}
	if (c.json) {
		rc = print_json(&topo, &caps);
	} else {
		print_text(&topo, &caps);
		rc = fflush(stdout) ? 1 : 0;
	}
	smpol_topology_free(&topo);
	return rc;
}
