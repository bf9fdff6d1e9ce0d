/* check_hwloc.c - hwloc as an independent reader of the same sysfs (see checks.h).
 *
 * hwloc is optional: it is run as a command (lstopo-no-graphics from Debian's hwloc
 * or hwloc-nox), never linked, so neither mpolctl nor the plugin depends on it and one
 * static mpolctl serves every hwloc release. Since 2.4 hwloc reads access1 before
 * access0, since 2.8 read and write bandwidth apart: for every memory node its
 * ReadBandwidth and WriteBandwidth attributes, from its initiators' CPUs, must be what
 * the topology reader made of the same files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "fs_tree.h"
#include "run_cmd.h"
#include "sysfs.h"

#define HWLOC_PROGRAM "lstopo-no-graphics"
#define OUTPUT_MAX (4 * 1024 * 1024)
/* lstopo reads a node in well under a second; a blocked file read must not hang check */
#define HWLOC_TIMEOUT_S 20

/* One node's attribute as hwloc printed it. */
struct hw_value {
	uint32_t value;                /* 0 = not given */
	struct smpol_cpus from;        /* union of the initiators' cpusets */
	int count;                     /* lines seen */
};

struct hw_attrs {
	struct hw_value read[SMPOL_MAX_NODES], write[SMPOL_MAX_NODES];
};

/* "0x00000003" or "0xffffffff,0x0000000f" into a CPU set. */
static int parse_cpuset(const char *text, struct smpol_cpus *out)
{
	char plain[1024];
	size_t used = 0;

	for (const char *p = text; *p && used + 1 < sizeof(plain); p++) {
		if (p[0] == '0' && p[1] == 'x') {
			p++;
			continue;
		}
		plain[used++] = *p;
	}
	plain[used] = '\0';
	return smpol_cpus_parse_mask(plain, SMPOL_MAX_CPUS, out, NULL, 0);
}

/* "  NUMANode P#2 = 64000 from cpuset 0x00000003 (Package P#0)" */
static void parse_value(const char *line, struct hw_value *attr)
{
	unsigned long long v;
	char mask[1024] = "";
	struct smpol_cpus from = { 0 };
	int node;

	if (sscanf(line, " NUMANode P#%d = %llu from cpuset %1023s", &node, &v, mask) < 2 || node < 0 ||
	    node >= SMPOL_MAX_NODES || v > UINT32_MAX)
		return;
	attr[node].value = (uint32_t)v;
	attr[node].count++;
	if (mask[0] && !parse_cpuset(mask, &from))
		smpol_cpus_or(&attr[node].from, &from);   /* out of memory: compared as unknown */
	smpol_cpus_free(&from);
}

static void parse(char *text, struct hw_attrs *a)
{
	struct hw_value *section = NULL;
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "Memory attribute", 16))
			section = strstr(line, "`ReadBandwidth'") ? a->read : strstr(line, "`WriteBandwidth'") ? a->write : NULL;
		else if (section)
			parse_value(line, section);
	}
}

/* lstopo under the topology's root. -ENOENT when hwloc is not installed; -SMPOL_ENOTREG
 * when another machine's tree holds a file hwloc would block on. */
static int run_hwloc(const struct smpol_topology *topo, char **out, char *err, size_t errlen)
{
	char *argv[] = { HWLOC_PROGRAM, "--memattrs", "-p", NULL };
	bool other_root = strcmp(topo->host->fsroot, "/") != 0;
	char found[SMPOL_ERRLEN - 64];
	int rc;

	if (other_root) {
		rc = smpol_tree_find_special(topo->host->fsroot, found, sizeof(found));
		if (rc > 0)
			return smpol_fail(err, errlen, SMPOL_ENOTREG, "not run: the tree holds %s, which would block it "
					  "or feed it without end", found);
		if (rc < 0)
			return smpol_fail(err, errlen, -rc, "not run: the tree under %s was not looked over: %s",
					  topo->host->fsroot, found);
	}
	/* mpolctl runs no other thread: the environment is its own to change briefly */
	if (other_root) {
		setenv("HWLOC_FSROOT", topo->host->fsroot, 1);
		setenv("HWLOC_COMPONENTS", "-x86", 1);   /* CPUID would describe this host instead */
	}
	rc = smpol_run_capture(argv, -1, OUTPUT_MAX, HWLOC_TIMEOUT_S, out, err, errlen);
	if (other_root) {
		unsetenv("HWLOC_FSROOT");
		unsetenv("HWLOC_COMPONENTS");
	}
	return rc;
}

/* The CPUs of an access class's initiators. */
static void initiator_cpus(const struct smpol_topology *topo, const struct smpol_access *a, struct smpol_cpus *out)
{
	for (int id = smpol_cpus_next(&a->initiators, 0); id >= 0; id = smpol_cpus_next(&a->initiators, id + 1)) {
		const struct smpol_node *n = smpol_topology_node(topo, id);

		if (n)
			smpol_cpus_or(out, &n->cpus);   /* out of memory: compared as fewer CPUs */
	}
}

static bool agrees(uint32_t ours, const struct smpol_cpus *cpus, const struct hw_value *hw)
{
	if (!ours)
		return !hw->count;
	return hw->count && hw->value == ours && smpol_cpus_equal(&hw->from, cpus);
}

void smpol_check_hwloc(const struct smpol_topology *topo, struct smpol_findings *f)
{
	struct hw_attrs *a = calloc(1, sizeof(*a));
	char err[SMPOL_ERRLEN], *out = NULL;
	int rc, differ = 0;

	if (!a) {
		f->oom = 1;
		return;
	}
	rc = run_hwloc(topo, &out, err, sizeof(err));
	if (rc == -ENOENT) {
		smpol_findings_add(f, SMPOL_SEV_INFO, "hwloc", -1, "install hwloc to have HMAT read a second way",
				   "hwloc (" HWLOC_PROGRAM ") is not installed: not compared");
		goto out;
	}
	if (rc) {
		smpol_findings_add(f, SMPOL_SEV_INFO, "hwloc", -1, "", "hwloc could not be compared: %s", err);
		goto out;
	}
	parse(out, a);
	for (int i = 0; i < topo->nnodes; i++) {
		const struct smpol_node *n = &topo->nodes[i];
		const struct smpol_access *acc = smpol_node_access(n);
		struct smpol_cpus cpus = { 0 };
		char list[64] = "";
		bool same;

		if (!n->has_memory)
			continue;
		if (acc)
			initiator_cpus(topo, acc, &cpus);
		same = agrees(acc ? acc->read_bw : 0, &cpus, &a->read[n->id]) &&
		       agrees(acc ? acc->write_bw : 0, &cpus, &a->write[n->id]);
		smpol_cpus_format_list(&cpus, list, sizeof(list));
		smpol_cpus_free(&cpus);
		if (same)
			continue;
		differ++;
		smpol_findings_add(f, SMPOL_SEV_WARNING, "hwloc-disagrees", n->id, "one of the two misreads sysfs: "
				   "compare with the files under the node's access1 (then access0) directory",
				   "node %d: HMAT read %u write %u MB/s from CPUs %s here, hwloc says read %u write %u",
				   n->id, acc ? acc->read_bw : 0, acc ? acc->write_bw : 0, list[0] ? list : "-",
				   a->read[n->id].value, a->write[n->id].value);
	}
	if (!differ)
		smpol_findings_add(f, SMPOL_SEV_OK, "hwloc", -1, "", "hwloc reads the same HMAT bandwidth for every "
				   "memory node");
out:
	free(out);
	for (int i = 0; i < SMPOL_MAX_NODES; i++) {
		smpol_cpus_free(&a->read[i].from);
		smpol_cpus_free(&a->write[i].from);
	}
	free(a);
}
