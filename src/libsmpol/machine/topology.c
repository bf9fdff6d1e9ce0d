/* topology.c - read a node's memory topology from sysfs under a root.
 *
 * Why not hwloc: it reads access1 before access0 and read/write bandwidth apart too,
 * but not the access0 numbers of a node that has access1, nor the weighted_interleave
 * table, nor the raw ACPI pairs, and slurmstepd should not load a library for a few
 * small files. hwloc checks this reader instead (doc/design-notes.md).
 *
 * Nothing here fails for a bad value: a missing, empty or garbage file leaves the
 * value unknown and adds a warning naming the file.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sysfs.h"
#include "topology.h"

#define NODE_DIR "/sys/devices/system/node"
#define TIER_DIR "/sys/devices/virtual/memory_tiering"

/* Longest text file we read: a distance line for 1024 nodes, a cpulist. */
#define TEXT_MAX 8192

static int add_warning(struct smpol_topology *topo, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int add_warning(struct smpol_topology *topo, const char *fmt, ...)
{
	char **grown, *text;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	grown = realloc(topo->warnings, (topo->nwarnings + 1) * sizeof(*grown));
	if (!grown) {
		free(text);
		return -ENOMEM;
	}
	topo->warnings = grown;
	topo->warnings[topo->nwarnings++] = text;
	return 0;
}

/* buf (PATH_MAX) = fsroot + NODE_DIR/nodeID/name */
static int node_file(const struct smpol_topology *topo, char *buf, int id, const char *name)
{
	return smpol_fs_path(topo->host->fsroot, buf, PATH_MAX, NODE_DIR "/node%d/%s", id, name);
}

/* Read a node-list file ("0-3"). *found is false when the file is absent. */
static int read_nodelist(struct smpol_topology *topo, const char *path, struct smpol_bitmap *out,
			 bool *found)
{
	char text[TEXT_MAX], why[SMPOL_ERRLEN];
	int rc;

	smpol_bitmap_clear(out);
	*found = false;
	rc = smpol_read_text(path, text, sizeof(text));
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return add_warning(topo, "cannot read %s: %s", path, smpol_read_error(rc));
	if (smpol_bitmap_parse_list(text, SMPOL_MAX_NODES, out, why, sizeof(why)))
		return add_warning(topo, "ignoring %s: %s", path, why);
	*found = true;
	return 0;
}

/* Quote what a file holds instead of a number, so the admin sees the problem. */
static int warn_bad_number(struct smpol_topology *topo, const char *path)
{
	char text[32], q[SMPOL_QUOTE_LEN];

	if (smpol_read_text(path, text, sizeof(text)))
		snprintf(text, sizeof(text), "(unreadable)");
	if (!text[0])
		return add_warning(topo, "ignoring %s: the file is empty", path);
	return add_warning(topo, "ignoring %s: %s is not a number in range", path, smpol_quote(text, q, sizeof(q)));
}

/*
 * One number from path into *v, *got telling whether there is one. A missing file is
 * quiet (the kernel omits what it does not know); anything unreadable is a warning.
 */
static int read_number(struct smpol_topology *topo, const char *path, uint64_t *v, bool *got)
{
	int rc = smpol_read_u64(path, v);

	*got = rc == 0;
	if (rc == 0 || rc == -ENOENT)
		return 0;
	if (rc == -EINVAL || rc == -ERANGE)
		return warn_bad_number(topo, path);
	return add_warning(topo, "cannot read %s: %s", path, smpol_read_error(rc));
}

/* One HMAT number (bandwidth MB/s or latency ns); 0 means unknown. */
static int read_perf(struct smpol_topology *topo, const char *dir, const char *name, uint32_t *out)
{
	char path[PATH_MAX];
	uint64_t v;
	bool got;
	int rc;

	*out = 0;
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return 0;
	rc = read_number(topo, path, &v, &got);
	if (rc || !got)
		return rc;
	if (v == 0)
		return add_warning(topo, "ignoring %s: it reads 0 (unknown)", path);
	if (v > UINT32_MAX)
		return add_warning(topo, "ignoring %s: %llu is out of range", path,
				   (unsigned long long)v);
	*out = (uint32_t)v;
	return 0;
}

/* nodeN/accessK/initiators: four numbers and one nodeM entry per initiator.
 * The entries are symlinks that can form cycles: list names, never follow them. */
static int read_access(struct smpol_topology *topo, int node, int k, struct smpol_access *acc)
{
	char dir[PATH_MAX], name[32];
	struct dirent *de;
	DIR *d;
	int rc, id;
	char tail;

	memset(acc, 0, sizeof(*acc));
	snprintf(name, sizeof(name), "access%d/initiators", k);
	if (node_file(topo, dir, node, name))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;   /* no HMAT data for this class */
	rc = 0;
	while (!rc && (de = readdir(d)))
		if (sscanf(de->d_name, "node%d%c", &id, &tail) == 1 && id >= 0 && id < SMPOL_MAX_NODES)
			rc = smpol_cpus_set(&acc->initiators, id);
	closedir(d);
	if (rc)
		return rc;
	if ((rc = read_perf(topo, dir, "read_bandwidth", &acc->read_bw)) ||
	    (rc = read_perf(topo, dir, "write_bandwidth", &acc->write_bw)) ||
	    (rc = read_perf(topo, dir, "read_latency", &acc->read_lat)) ||
	    (rc = read_perf(topo, dir, "write_latency", &acc->write_lat)))
		return rc;
	acc->valid = acc->read_bw || acc->write_bw || acc->read_lat || acc->write_lat;
	return 0;
}

/* "Node 0 MemTotal:  1502928 kB" lines; a missing line leaves the value 0. */
static int read_meminfo(struct smpol_topology *topo, struct smpol_node *n)
{
	char path[PATH_MAX], text[TEXT_MAX], *line, *save = NULL;
	bool total = false, free_ = false;
	int rc;

	if (node_file(topo, path, n->id, "meminfo"))
		return 0;
	rc = smpol_read_text(path, text, sizeof(text));
	if (rc == -EFBIG)
		rc = 0;   /* the two lines we want come first; the rest is cut off */
	if (rc)
		return add_warning(topo, "cannot read %s: %s", path, smpol_read_error(rc));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long kb;
		char key[32], unit[4];
		int id;

		if (sscanf(line, "Node %d %31[^:]: %llu %3s", &id, key, &kb, unit) != 4 ||
		    strcmp(unit, "kB") || id != n->id)
			continue;
		if (!strcmp(key, "MemTotal")) {
			n->mem_total_kb = kb;
			total = true;
		} else if (!strcmp(key, "MemFree")) {
			n->mem_free_kb = kb;
			free_ = true;
		}
	}
	if (!total || !free_)
		return add_warning(topo, "%s has no usable Node %d %s line", path, n->id,
				   total ? "MemFree" : "MemTotal");
	return 0;
}

static int read_cpulist(struct smpol_topology *topo, struct smpol_node *n)
{
	char path[PATH_MAX], text[TEXT_MAX], why[SMPOL_ERRLEN];
	int rc;

	if (node_file(topo, path, n->id, "cpulist"))
		return 0;
	rc = smpol_read_text(path, text, sizeof(text));
	if (rc)
		return add_warning(topo, "cannot read %s: %s", path, smpol_read_error(rc));
	rc = smpol_cpus_parse_list(text, topo->cpu_ids, &n->cpus, why, sizeof(why));
	if (rc == -EINVAL)
		return add_warning(topo, "ignoring %s: %s", path, why);
	return rc;
}

/* The machine's CPU ids: below the highest possible one + 1; a missing or odd file
 * leaves the kernel's largest limit (and a warning when it is odd). */
static int read_cpu_ids(struct smpol_topology *topo)
{
	char path[PATH_MAX], text[TEXT_MAX], why[SMPOL_ERRLEN];
	struct smpol_cpus possible = { 0 };
	int rc, last = -1;

	topo->cpu_ids = SMPOL_MAX_CPUS;
	if (smpol_fs_path(topo->host->fsroot, path, sizeof(path), "/sys/devices/system/cpu/possible"))
		return 0;
	rc = smpol_read_text(path, text, sizeof(text));
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return add_warning(topo, "cannot read %s: %s", path, smpol_read_error(rc));
	rc = smpol_cpus_parse_list(text, SMPOL_MAX_CPUS, &possible, why, sizeof(why));
	for (int id = smpol_cpus_next(&possible, 0); id >= 0; id = smpol_cpus_next(&possible, id + 1))
		last = id;
	smpol_cpus_free(&possible);
	if (rc == -EINVAL || (!rc && last < 0))
		return add_warning(topo, "ignoring %s: %s", path, rc ? why : "it lists no CPU");
	if (!rc)
		topo->cpu_ids = last + 1;
	return rc;
}

/* One distance per online node, in the order of topo->nodes. */
static int read_distance(struct smpol_topology *topo, struct smpol_node *n)
{
	char path[PATH_MAX], text[TEXT_MAX], q[SMPOL_QUOTE_LEN], *p, *end;
	int *dist, i;

	if (node_file(topo, path, n->id, "distance"))
		return 0;
	if (smpol_read_text(path, text, sizeof(text)))
		return add_warning(topo, "cannot read %s: distances unknown", path);
	dist = calloc((size_t)topo->nnodes, sizeof(*dist));
	if (!dist)
		return -ENOMEM;
	p = text;
	for (i = 0; i < topo->nnodes; i++) {
		long v = strtol(p, &end, 10);

		if (end == p || v <= 0 || v > 255)
			break;
		dist[i] = (int)v;
		p = end;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (i < topo->nnodes || *p) {
		free(dist);
		return add_warning(topo, "ignoring %s: expected %d distances (one per online node) but read %s",
				   path, topo->nnodes, smpol_quote(text, q, sizeof(q)));
	}
	n->distance = dist;
	return 0;
}

static int read_node(struct smpol_topology *topo, struct smpol_node *n,
		     const struct smpol_bitmap *has_cpu, const struct smpol_bitmap *has_memory)
{
	char path[PATH_MAX];
	struct stat st;
	int rc, k;

	n->tier = -1;
	n->has_cpu = smpol_bitmap_test(has_cpu, n->id);
	n->has_memory = smpol_bitmap_test(has_memory, n->id);
	if (node_file(topo, path, n->id, ""))
		return add_warning(topo, "node %d: path under the root is too long", n->id);
	/* hot-remove between reading `online` and here: keep the node, say so */
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return add_warning(topo, "node %d is listed online but %s is missing (hot-removed?); its details are unknown",
				   n->id, path);
	if ((rc = read_cpulist(topo, n)) || (rc = read_meminfo(topo, n)) ||
	    (rc = read_distance(topo, n)))
		return rc;
	for (k = 0; k < SMPOL_ACCESS_CLASSES; k++)
		if ((rc = read_access(topo, n->id, k, &n->access[k])))
			return rc;
	return 0;
}

static struct smpol_node *node_by_id(struct smpol_topology *topo, int id)
{
	return (struct smpol_node *)smpol_topology_node(topo, id);
}

/* memory_tierN/nodelist; the number is the tier's abstract distance / chunk: larger = slower. */
static int read_tiers(struct smpol_topology *topo)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (smpol_fs_path(topo->host->fsroot, dir, sizeof(dir), TIER_DIR))
		return 0;
	d = opendir(dir);
	if (!d)
		return 0;   /* kernel without memory tiering */
	while (!rc && (de = readdir(d))) {
		struct smpol_bitmap nodes;
		bool found;
		int tier, id;
		char tail;

		if (sscanf(de->d_name, "memory_tier%d%c", &tier, &tail) != 1 || tier < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/nodelist", dir, de->d_name);
		rc = read_nodelist(topo, path, &nodes, &found);
		for (id = smpol_bitmap_next(&nodes, 0); !rc && id >= 0; id = smpol_bitmap_next(&nodes, id + 1)) {
			struct smpol_node *n = node_by_id(topo, id);

			if (n)
				n->tier = tier;
		}
	}
	closedir(d);
	return rc;
}

static uint32_t access_latency(const struct smpol_access *a)
{
	if (!a)
		return 0;
	if (a->read_lat && a->write_lat)
		return a->read_lat > a->write_lat ? a->read_lat : a->write_lat;
	return a->read_lat ? a->read_lat : a->write_lat;
}

/* The node's kind, and why into buf (len 0: not said). */
static enum smpol_node_kind guess_kind(const struct smpol_topology *topo, const struct smpol_node *n, char *buf,
				       size_t len)
{
	const struct smpol_node *init;
	uint32_t bw, init_bw, lat, init_lat;
	int iid;

	if (n->has_cpu) {
		snprintf(buf, len, "has CPUs");
		return SMPOL_KIND_DRAM;
	}
	if (!n->has_memory) {
		snprintf(buf, len, "no CPUs and no memory");
		return SMPOL_KIND_UNKNOWN;
	}
	iid = smpol_node_initiator(topo, n);
	init = iid >= 0 ? smpol_topology_node(topo, iid) : NULL;
	if (!init) {
		snprintf(buf, len, "memory-only, no initiator found");
		return SMPOL_KIND_UNKNOWN;
	}
	bw = smpol_node_bandwidth(n);
	init_bw = smpol_node_bandwidth(init);
	lat = access_latency(smpol_node_access(n));
	init_lat = access_latency(smpol_node_access(init));
	/* bandwidth first: HBM is faster than DRAM but often no closer */
	if (bw && init_bw && bw > init_bw) {
		snprintf(buf, len, "memory-only, %u MB/s > node%d's %u MB/s", bw, iid, init_bw);
		return SMPOL_KIND_HBM;
	} else if (bw && init_bw && bw < init_bw) {
		snprintf(buf, len, "memory-only, %u MB/s < node%d's %u MB/s", bw, iid, init_bw);
		return SMPOL_KIND_CXL;
	} else if (lat && init_lat && lat > init_lat) {
		snprintf(buf, len, "memory-only, %u ns > node%d's %u ns", lat, iid, init_lat);
		return SMPOL_KIND_CXL;
	} else if (n->tier >= 0 && init->tier >= 0 && n->tier > init->tier) {
		snprintf(buf, len, "memory-only, slower tier %d than node%d's %d", n->tier, iid, init->tier);
		return SMPOL_KIND_CXL;
	} else {
		snprintf(buf, len, "memory-only, nothing tells it apart from node%d", iid);
	}
	return SMPOL_KIND_UNKNOWN;
}

void smpol_node_kind_reason(const struct smpol_topology *topo, const struct smpol_node *n, char *buf, size_t len)
{
	guess_kind(topo, n, buf, len);
}

/* One warning for every memory node without HMAT bandwidth, not one per file;
 * none when a single node has memory: there is nothing to weigh. */
static int warn_no_bandwidth(struct smpol_topology *topo)
{
	struct smpol_bitmap missing;
	char list[512];
	int i, nmem = 0;

	smpol_bitmap_clear(&missing);
	for (i = 0; i < topo->nnodes; i++) {
		nmem += topo->nodes[i].has_memory;
		if (topo->nodes[i].has_memory && !smpol_node_bandwidth(&topo->nodes[i]))
			smpol_bitmap_set(&missing, topo->nodes[i].id);
	}
	if (nmem < 2 || smpol_bitmap_empty(&missing))
		return 0;
	smpol_bitmap_format_list(&missing, list, sizeof(list));
	return add_warning(topo, "no usable HMAT bandwidth for node(s) %s: plans cannot weigh them by bandwidth",
			   list);
}

int smpol_topology_read(const struct smpol_host *h, struct smpol_topology *topo, char *err, size_t errlen)
{
	struct smpol_bitmap has_cpu, has_memory;
	char path[PATH_MAX], text[TEXT_MAX], why[SMPOL_ERRLEN];
	bool found, cpu_known, mem_known;
	int rc, i, id;

	const char *fsroot = h->fsroot;

	memset(topo, 0, sizeof(*topo));
	topo->host = h;

	if (smpol_fs_path(fsroot, path, sizeof(path), NODE_DIR "/online"))
		return smpol_fail(err, errlen, ENAMETOOLONG, "the filesystem root '%s' is too long", fsroot);
	rc = smpol_read_text(path, text, sizeof(text));
	if (rc)
		return smpol_fail(err, errlen, -rc, "cannot read the online node list %s: %s%s", path,
				 smpol_read_error(rc), rc == -ENOENT ? " (is this a NUMA kernel, and is --fsroot right?)" : "");
	if (smpol_bitmap_parse_list(text, SMPOL_MAX_NODES, &topo->online, why, sizeof(why)))
		return smpol_fail(err, errlen, EINVAL, "cannot use the online node list %s: %s", path, why);
	if (smpol_bitmap_empty(&topo->online))
		return smpol_fail(err, errlen, EINVAL, "the online node list %s is empty", path);

	if ((rc = read_cpu_ids(topo)) < 0)
		goto fail;
	rc = -ENOMEM;
	topo->nnodes = smpol_bitmap_count(&topo->online);
	topo->nodes = calloc((size_t)topo->nnodes, sizeof(*topo->nodes));
	if (!topo->nodes)
		goto fail;
	for (i = 0, id = smpol_bitmap_next(&topo->online, 0); id >= 0; id = smpol_bitmap_next(&topo->online, id + 1))
		topo->nodes[i++].id = id;

	smpol_fs_path(fsroot, path, sizeof(path), NODE_DIR "/possible");
	if ((rc = read_nodelist(topo, path, &topo->possible, &found)))
		goto fail;
	if (!found)
		topo->possible = topo->online;
	/* without has_cpu/has_memory, fall back to what each node's files say */
	smpol_fs_path(fsroot, path, sizeof(path), NODE_DIR "/has_cpu");
	if ((rc = read_nodelist(topo, path, &has_cpu, &found)))
		goto fail;
	cpu_known = found;
	smpol_fs_path(fsroot, path, sizeof(path), NODE_DIR "/has_memory");
	if ((rc = read_nodelist(topo, path, &has_memory, &found)))
		goto fail;
	mem_known = found;

	for (i = 0; i < topo->nnodes; i++) {
		struct smpol_node *n = &topo->nodes[i];

		if ((rc = read_node(topo, n, &has_cpu, &has_memory)))
			goto fail;
		if (!cpu_known)
			n->has_cpu = !smpol_cpus_empty(&n->cpus);
		if (!mem_known)
			n->has_memory = n->mem_total_kb > 0;
	}
	if (!cpu_known || !mem_known) {
		smpol_fs_path(fsroot, path, sizeof(path), NODE_DIR "/has_%s", !cpu_known ? "cpu" : "memory");
		if ((rc = add_warning(topo, "%s is missing: guessed from each node's cpulist and meminfo", path)))
			goto fail;
	}
	if ((rc = read_tiers(topo)) || (rc = warn_no_bandwidth(topo)))
		goto fail;
	for (i = 0; i < topo->nnodes; i++)
		topo->nodes[i].kind = guess_kind(topo, &topo->nodes[i], NULL, 0);
	return 0;
fail:
	smpol_topology_free(topo);
	return smpol_fail(err, errlen, -rc, "out of memory while reading the topology under %s", fsroot);
}

void smpol_node_free(struct smpol_node *n)
{
	free(n->distance);
	n->distance = NULL;
	smpol_cpus_free(&n->cpus);
	for (int k = 0; k < SMPOL_ACCESS_CLASSES; k++)
		smpol_cpus_free(&n->access[k].initiators);
}

void smpol_topology_free(struct smpol_topology *topo)
{
	int i;

	for (i = 0; topo->nodes && i < topo->nnodes; i++)
		smpol_node_free(&topo->nodes[i]);
	free(topo->nodes);
	for (i = 0; i < topo->nwarnings; i++)
		free(topo->warnings[i]);
	free(topo->warnings);
	topo->nodes = NULL;
	topo->warnings = NULL;
	topo->nnodes = 0;
	topo->nwarnings = 0;
}

int smpol_topology_copy(const struct smpol_topology *src, struct smpol_topology *dst)
{
	*dst = *src;
	dst->warnings = NULL;
	dst->nwarnings = 0;   /* said once, by the reader */
	dst->nodes = calloc((size_t)src->nnodes, sizeof(*dst->nodes));
	if (!dst->nodes)
		goto fail;
	for (int i = 0; i < src->nnodes; i++) {
		dst->nodes[i] = src->nodes[i];
		dst->nodes[i].distance = NULL;
		dst->nodes[i].cpus = (struct smpol_cpus){ 0 };
		for (int k = 0; k < SMPOL_ACCESS_CLASSES; k++)
			dst->nodes[i].access[k].initiators = (struct smpol_cpus){ 0 };
		if (smpol_cpus_copy(&dst->nodes[i].cpus, &src->nodes[i].cpus) < 0)
			goto fail;
		for (int k = 0; k < SMPOL_ACCESS_CLASSES; k++)
			if (smpol_cpus_copy(&dst->nodes[i].access[k].initiators, &src->nodes[i].access[k].initiators) < 0)
				goto fail;
		if (!src->nodes[i].distance)
			continue;
		dst->nodes[i].distance = malloc((size_t)src->nnodes * sizeof(int));
		if (!dst->nodes[i].distance)
			goto fail;
		memcpy(dst->nodes[i].distance, src->nodes[i].distance, (size_t)src->nnodes * sizeof(int));
	}
	return 0;
fail:
	smpol_topology_free(dst);
	return -ENOMEM;
}

const struct smpol_node *smpol_topology_node(const struct smpol_topology *topo, int id)
{
	for (int i = 0; i < topo->nnodes; i++)
		if (topo->nodes[i].id == id)
			return &topo->nodes[i];
	return NULL;
}

/* min(read, write) as the kernel does; one known direction is better than none */
static uint32_t access_bandwidth(const struct smpol_access *a)
{
	if (!a->valid)
		return 0;
	if (a->read_bw && a->write_bw)
		return a->read_bw < a->write_bw ? a->read_bw : a->write_bw;
	return a->read_bw ? a->read_bw : a->write_bw;
}

const struct smpol_access *smpol_node_access(const struct smpol_node *n)
{
	if (n->access[1].valid)
		return &n->access[1];
	return n->access[0].valid ? &n->access[0] : NULL;
}

uint32_t smpol_node_bandwidth(const struct smpol_node *node)
{
	uint32_t bw = access_bandwidth(&node->access[1]);

	return bw ? bw : access_bandwidth(&node->access[0]);
}

int smpol_node_initiator(const struct smpol_topology *topo, const struct smpol_node *node)
{
	int k, id, i, best = -1, best_dist = 0;

	if (node->has_cpu)
		return node->id;
	for (k = 1; k >= 0; k--)
		for (id = smpol_cpus_next(&node->access[k].initiators, 0); id >= 0;
		     id = smpol_cpus_next(&node->access[k].initiators, id + 1)) {
			const struct smpol_node *init = smpol_topology_node(topo, id);

			if (init && init->has_cpu)
				return id;
		}
	if (!node->distance)
		return -1;
	for (i = 0; i < topo->nnodes; i++)
		if (topo->nodes[i].has_cpu && (best < 0 || node->distance[i] < best_dist)) {
			best = topo->nodes[i].id;
			best_dist = node->distance[i];
		}
	return best;
}

const char *smpol_node_kind_name(enum smpol_node_kind kind)
{
	switch (kind) {
	case SMPOL_KIND_DRAM:
		return "DRAM";
	case SMPOL_KIND_CXL:
		return "CXL";
	case SMPOL_KIND_HBM:
		return "HBM";
	case SMPOL_KIND_UNKNOWN:
		break;
	}
	return "unknown";
}
