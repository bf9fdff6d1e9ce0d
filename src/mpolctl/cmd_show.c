/* cmd_show.c - `mpolctl show`: the node's memory topology and the kernel's interleave state. */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "commands.h"
#include "site.h"
#include "topology.h"
#include "units.h"
#include "wi.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mpolctl show [--fsroot DIR] [--bandwidth FILE|none] [--max-source SOURCE]\n"
		"                    [--plugstack FILE] [--json]\n"
		"\n"
		"Show every online NUMA node (kind and why, CPUs, memory, memory tier, HMAT\n"
		"bandwidth and latency, initiators, current interleave weight), the bandwidth\n"
		"plans use for every initiator and node with its source (override, measured,\n"
		"acpi-hmat, sysfs-hmat, none), what the kernel offers for weighted interleave, and\n"
		"any warnings about unreadable sysfs files.\n"
		"\n"
		"  --fsroot DIR  read sysfs under DIR instead of / (default: $MPOL_FSROOT)\n"
		"  --bandwidth FILE  the bandwidth table (none: no table); default: the plugstack\n"
		"                line's bandwidth=, else " SMPOL_BW_FILE_DEFAULT "\n"
		"  --max-source S  use no bandwidth source ranked above S (sysfs-hmat, acpi-hmat,\n"
		"                measured; default override: all)\n"
		"  --plugstack FILE  the plugstack.conf holding mem_interleave.so's line\n"
		"  --json        print one JSON object instead of the table\n"
		"  -h, --help    show this help\n");
}

/* The weights table as read, and why not when it could not be; the bandwidth table. */
struct kernel_state {
	struct smpol_wi_table table;
	char error[SMPOL_ERRLEN];      /* "" when read */
	struct smpol_bw_table bw;
	struct smpol_bw_origin origin;
};

/* What a plan on the node's own initiator weighs it by, and the source. */
static uint32_t local_bandwidth(const struct smpol_topology *topo, const struct kernel_state *k,
				const struct smpol_node *n, enum smpol_bw_source *source)
{
	const struct smpol_bw_entry *e = smpol_bw_lookup(&k->bw, smpol_node_initiator(topo, n), n->id);

	*source = e ? e->source : SMPOL_BW_NONE;
	return e ? smpol_bw_min(e->read, e->write) : 0;
}

/* The ladder rung, in the words of wi.h. */
static const char *layout_name(const struct smpol_wi_table *t)
{
	if (!t->present)
		return "none (before 6.9): plain interleave only";
	if (!smpol_wi_weights_for_possible(t))
		return "6.16+: weights for memory nodes, auto mode";
	return "6.9-6.15: weights for every possible node, no auto mode";
}

/* Node n's weight file, or -1 when it has none or the table is unknown. */
static int node_weight(const struct kernel_state *k, int n)
{
	return !k->error[0] && smpol_bitmap_test(&k->table.has_file, n) ? k->table.weight[n] : -1;
}

static void format_initiators(const struct smpol_access *a, char *buf, size_t len)
{
	if (!a || smpol_cpus_empty(&a->initiators) || smpol_cpus_format_list(&a->initiators, buf, len))
		snprintf(buf, len, "-");
}

static void format_u32(uint32_t v, char *buf, size_t len)
{
	if (v)
		snprintf(buf, len, "%u", v);
	else
		snprintf(buf, len, "-");
}

static void print_node(const struct smpol_topology *topo, const struct smpol_node *n, const struct kernel_state *k)
{
	const struct smpol_access *a = smpol_node_access(n);
	char cpus[64], total[24] = "-", free_[24] = "-", tier[12] = "-", weight[12] = "-";
	char rbw[16], wbw[16], rlat[16], wlat[16], inits[64], used[16];
	enum smpol_bw_source source = SMPOL_BW_NONE;

	if (smpol_cpus_empty(&n->cpus) || smpol_cpus_format_list(&n->cpus, cpus, sizeof(cpus)))
		snprintf(cpus, sizeof(cpus), "-");
	if (n->mem_total_kb)
		smpol_format_size(n->mem_total_kb, total, sizeof(total));
	if (n->mem_total_kb || n->mem_free_kb)
		smpol_format_size(n->mem_free_kb, free_, sizeof(free_));
	if (n->tier >= 0)
		snprintf(tier, sizeof(tier), "%d", n->tier);
	if (node_weight(k, n->id) >= 0)
		snprintf(weight, sizeof(weight), "%d", node_weight(k, n->id));
	format_u32(a ? a->read_bw : 0, rbw, sizeof(rbw));
	format_u32(a ? a->write_bw : 0, wbw, sizeof(wbw));
	format_u32(a ? a->read_lat : 0, rlat, sizeof(rlat));
	format_u32(a ? a->write_lat : 0, wlat, sizeof(wlat));
	format_initiators(a, inits, sizeof(inits));
	format_u32(n->has_memory ? local_bandwidth(topo, k, n, &source) : 0, used, sizeof(used));
	printf("%-4d %-7s %-9s %10s %10s %4s %8s %8s %6s %6s %-10s %6s %8s %-10s\n", n->id,
	       smpol_node_kind_name(n->kind), cpus, total, free_, tier, rbw, wbw, rlat, wlat,
	       inits, weight, used, n->has_memory ? smpol_bw_source_name(source) : "-");
}

/* Initiators down, memory nodes across: what plans weigh each pair by. */
static void print_bandwidth(const struct smpol_topology *topo, const struct kernel_state *k)
{
	char head[16];

	printf("\nbandwidth plans use (MB/s, min(read, write)), from CPU node to memory node:\n  %-6s", "FROM");
	for (int t = 0; t < topo->nnodes; t++) {
		if (!topo->nodes[t].has_memory)
			continue;
		snprintf(head, sizeof(head), "node%d", topo->nodes[t].id);
		printf(" %-18s", head);
	}
	printf("\n");
	for (int i = 0; i < topo->nnodes; i++) {
		if (!topo->nodes[i].has_cpu)
			continue;
		snprintf(head, sizeof(head), "node%d", topo->nodes[i].id);
		printf("  %-6s", head);
		for (int t = 0; t < topo->nnodes; t++) {
			const struct smpol_bw_entry *e = smpol_bw_lookup(&k->bw, topo->nodes[i].id, topo->nodes[t].id);
			char cell[32] = "-";

			if (!topo->nodes[t].has_memory)
				continue;
			if (e)
				snprintf(cell, sizeof(cell), "%u %s", smpol_bw_min(e->read, e->write),
					 smpol_bw_source_name(e->source));
			printf(" %-18s", cell);
		}
		printf("\n");
	}
	printf("  ");
	cli_print_bw_origin(&k->origin);
}

static bool access_differs(const struct smpol_node *n)
{
	const struct smpol_access *a0 = &n->access[0], *a1 = &n->access[1];

	return a0->valid && a1->valid &&
	       (a0->read_bw != a1->read_bw || a0->write_bw != a1->write_bw ||
		a0->read_lat != a1->read_lat || a0->write_lat != a1->write_lat ||
		!smpol_cpus_equal(&a0->initiators, &a1->initiators));
}

static void print_text(const struct smpol_topology *topo, const struct kernel_state *k)
{
	char online[256] = "", possible[256] = "";
	int i;

	smpol_bitmap_format_list(&topo->online, online, sizeof(online));
	smpol_bitmap_format_list(&topo->possible, possible, sizeof(possible));
	printf("nodes online %s, possible %s (sysfs under %s)\n\n", online, possible, topo->host->fsroot);
	printf("%-4s %-7s %-9s %10s %10s %4s %8s %8s %6s %6s %-10s %6s %8s %-10s\n", "NODE", "KIND", "CPUS",
	       "MEMTOTAL", "MEMFREE", "TIER", "RD_MB/s", "WR_MB/s", "RD_ns", "WR_ns", "INITIATORS",
	       "WEIGHT", "PLAN_BW", "SOURCE");
	for (i = 0; i < topo->nnodes; i++)
		print_node(topo, &topo->nodes[i], k);
	printf("\nsizes in binary units (1 GiB = 2^30 bytes); bandwidth in decimal MB/s (10^6 bytes per\n"
	       "second, as HMAT gives it); latency in ns. TIER: the kernel's memory tier\n"
	       "(memory_tierN in /sys/devices/virtual/memory_tiering): a lower id is a faster tier, and\n"
	       "the kernel demotes pages from it to a higher one.\n");
	printf("\nkind:\n");
	for (i = 0; i < topo->nnodes; i++) {
		char why[128];

		smpol_node_kind_reason(topo, &topo->nodes[i], why, sizeof(why));
		printf("  node%d %s: %s\n", topo->nodes[i].id, smpol_node_kind_name(topo->nodes[i].kind), why);
	}
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
	print_bandwidth(topo, k);

	printf("\nkernel:\n  weighted interleave: %s\n  layout: %s\n",
	       k->table.present ? "yes" : "no", layout_name(&k->table));
	if (k->error[0])
		printf("  weights table: unreadable: %s\n", k->error);
	else if (k->table.present)
		printf("  weight files: %d\n", smpol_bitmap_count(&k->table.has_file));
	if (k->table.auto_name[0])
		printf("  auto file: %s = %s%s\n", k->table.auto_name,
		       k->table.auto_enabled == 1 ? "true" : k->table.auto_enabled == 0 ? "false" : "unreadable",
		       k->table.auto_enabled == 0 ? " (weights were set by hand or by mpolctl apply)" :
		       k->table.auto_enabled == 1 ? " (the kernel sets weights from HMAT)" : "");
	else if (k->table.present)
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

static json_object *json_list(const struct smpol_cpus *b)
{
	json_object *arr = json_object_new_array();

	for (int id = smpol_cpus_next(b, 0); id >= 0; id = smpol_cpus_next(b, id + 1))
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

static json_object *json_node(const struct smpol_topology *topo, const struct smpol_node *n,
			       const struct kernel_state *ks)
{
	json_object *o = json_object_new_object(), *acc = json_object_new_array(), *dist = NULL;
	char cpus[1024] = "", why[128];
	int init = smpol_node_initiator(topo, n), k;

	smpol_cpus_format_list(&n->cpus, cpus, sizeof(cpus));
	json_object_object_add(o, "id", json_object_new_int(n->id));
	json_object_object_add(o, "kind", json_object_new_string(smpol_node_kind_name(n->kind)));
	smpol_node_kind_reason(topo, n, why, sizeof(why));
	json_object_object_add(o, "kind_reason", json_object_new_string(why));
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
	if (n->has_memory) {
		enum smpol_bw_source source;
		uint32_t bw = local_bandwidth(topo, ks, n, &source);

		json_object_object_add(o, "plan_bandwidth", json_u32(bw));
		json_object_object_add(o, "plan_bandwidth_source", json_object_new_string(smpol_bw_source_name(source)));
	}
	json_object_object_add(o, "initiator", init >= 0 ? json_object_new_int(init) : NULL);
	if (n->distance) {
		dist = json_object_new_array();
		for (k = 0; k < topo->nnodes; k++)
			json_object_array_add(dist, json_object_new_int(n->distance[k]));
	}
	json_object_object_add(o, "distance", dist);
	json_object_object_add(o, "weight", node_weight(ks, n->id) >= 0 ? json_object_new_int(node_weight(ks, n->id)) : NULL);
	return o;
}

static json_object *json_kernel(const struct kernel_state *k)
{
	json_object *o = json_object_new_object();
	const struct smpol_wi_table *t = &k->table;

	json_object_object_add(o, "weighted_interleave", json_object_new_boolean(t->present));
	json_object_object_add(o, "layout", json_object_new_string(layout_name(t)));
	json_object_object_add(o, "weights_for_possible", json_object_new_boolean(smpol_wi_weights_for_possible(t)));
	json_object_object_add(o, "weight_files", json_object_new_int(smpol_bitmap_count(&t->has_file)));
	json_object_object_add(o, "weights_error", k->error[0] ? json_object_new_string(k->error) : NULL);
	json_object_object_add(o, "auto_file", t->auto_name[0] ? json_object_new_string(t->auto_name) : NULL);
	json_object_object_add(o, "auto_enabled",
			       t->auto_enabled >= 0 ? json_object_new_boolean(t->auto_enabled) : NULL);
	return o;
}

static json_object *json_bandwidth(const struct kernel_state *k)
{
	json_object *o = json_object_new_object(), *pairs = json_object_new_array();

	for (int i = 0; i < k->bw.nentries; i++) {
		const struct smpol_bw_entry *e = &k->bw.entries[i];
		json_object *p = json_object_new_object();

		json_object_object_add(p, "initiator", json_object_new_int(e->initiator));
		json_object_object_add(p, "target", json_object_new_int(e->target));
		json_object_object_add(p, "read", json_u32(e->read));
		json_object_object_add(p, "write", json_u32(e->write));
		json_object_object_add(p, "bandwidth", json_u32(smpol_bw_min(e->read, e->write)));
		json_object_object_add(p, "source", json_object_new_string(smpol_bw_source_name(e->source)));
		json_object_array_add(pairs, p);
	}
	json_object_object_add(o, "sources", cli_json_bw_origin(&k->origin));
	json_object_object_add(o, "pairs", pairs);
	return o;
}

static int print_json(const struct smpol_topology *topo, const struct kernel_state *k)
{
	json_object *o = json_object_new_object(), *nodes = json_object_new_array();
	json_object *warnings = json_object_new_array();
	char list[256] = "";
	int i;

	json_object_object_add(o, "fsroot", json_object_new_string(topo->host->fsroot));
	smpol_bitmap_format_list(&topo->online, list, sizeof(list));
	json_object_object_add(o, "online", json_object_new_string(list));
	smpol_bitmap_format_list(&topo->possible, list, sizeof(list));
	json_object_object_add(o, "possible", json_object_new_string(list));
	for (i = 0; i < topo->nnodes; i++)
		json_object_array_add(nodes, json_node(topo, &topo->nodes[i], k));
	json_object_object_add(o, "nodes", nodes);
	json_object_object_add(o, "kernel", json_kernel(k));
	json_object_object_add(o, "bandwidth", json_bandwidth(k));
	for (i = 0; i < topo->nwarnings; i++)
		json_object_array_add(warnings, json_object_new_string(topo->warnings[i]));
	json_object_object_add(o, "warnings", warnings);
	return cli_print_json(o);
}

int cmd_show(int argc, char **argv)
{
	static const struct option options[] = { CLI_COMMON_OPTIONS, CLI_SITE_OPTIONS, { NULL, 0, NULL, 0 } };
	struct cli_common c;
	struct cli_site site;
	struct kernel_state k;
	struct smpol_topology topo;
	char err[SMPOL_ERRLEN];
	int opt, rc;

	cli_common_init(&c);
	while ((opt = cli_getopt(&c, "show", argc, argv, ":h", options)) != -1)
		cli_common_option(&c, "show", opt, argc, argv, usage);
	cli_no_operands(&c, "show", argc, argv);

	if (smpol_topology_read(&c.host, &topo, err, sizeof(err))) {
		cli_error("show", "%s", err);
		return 1;
	}
	k.error[0] = '\0';
	smpol_wi_read(&c.host, &k.table, k.error, sizeof(k.error));
	cli_site_read(&c, &site);
	if (!cli_site_usable(&c, &site, "show")) {
		smpol_topology_free(&topo);
		return 1;
	}
	if (cli_site_bandwidth(&site, &topo, &k.bw, &k.origin) < 0) {
		fprintf(stderr, "mpolctl show: out of memory\n");
		smpol_topology_free(&topo);
		return 1;
	}
	if (c.json) {
		rc = print_json(&topo, &k);
	} else {
		print_text(&topo, &k);
		rc = fflush(stdout) ? 1 : 0;
	}
	smpol_bw_free(&k.bw);
	smpol_topology_free(&topo);
	cli_site_free(&site);
	return rc;
}
