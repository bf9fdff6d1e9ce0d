/* bw_acpi.c - the raw HMAT's pairs in node ids, the mapping checked against sysfs
 * (see bw_acpi.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acpi_hmat.h"
#include "acpi_srat.h"
#include "acpi_table.h"
#include "bw_acpi.h"
#include "error.h"
#include "sysfs.h"

/* block_size_bytes: hex digits without 0x ("8000000"). */
static int block_size(const char *fsroot, uint64_t *size)
{
	char path[PATH_MAX], text[64], *end;

	if (smpol_fs_path(fsroot, path, sizeof(path), "/sys/devices/system/memory/block_size_bytes") ||
	    smpol_read_text(path, text, sizeof(text)) || !text[0])
		return -ENOENT;
	errno = 0;
	*size = strtoull(text, &end, 16);
	return *end || errno || !*size ? -EINVAL : 0;
}

/* Is every memory block sysfs lists under node n in a range of a PXM mapped to n?
 * *blocks counts the blocks seen. 0, or -ESTALE with why. */
static int check_node_blocks(const char *fsroot, const struct smpol_srat *srat, int n, uint64_t size,
			     int *blocks, char *why, size_t whylen)
{
	char dir[PATH_MAX], where[64];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (smpol_fs_path(fsroot, dir, sizeof(dir), "/sys/devices/system/node/node%d", n) || !(d = opendir(dir)))
		return 0;
	while (!rc && (de = readdir(d))) {
		unsigned long long block;
		int64_t pxm;
		char tail;

		if (sscanf(de->d_name, "memory%llu%c", &block, &tail) != 1 || block > UINT64_MAX / size)
			continue;
		(*blocks)++;
		pxm = smpol_srat_pxm_of_address(srat, block * size);
		if (pxm >= 0 && smpol_srat_node(srat, (uint32_t)pxm) == n)
			continue;
		if (pxm < 0)
			snprintf(where, sizeof(where), "in no SRAT memory range");
		else
			snprintf(where, sizeof(where), "node %d", smpol_srat_node(srat, (uint32_t)pxm));
		rc = smpol_fail(why, whylen, ESTALE, "sysfs puts memory block %llu (address 0x%llx) in node %d, but by "
				"the SRAT it is %s: the proximity domains are not numbered as this reader replays Linux, "
				"so the raw HMAT is not used", block, block * (unsigned long long)size, n, where);
	}
	closedir(d);
	return rc;
}

static int check_blocks(const struct smpol_topology *topo, const struct smpol_srat *srat, char *why, size_t whylen)
{
	uint64_t size;
	int blocks = 0, rc;

	if (block_size(topo->host->fsroot, &size))
		return smpol_fail(why, whylen, ESTALE, "no usable /sys/devices/system/memory/block_size_bytes: the "
				  "SRAT's proximity domains cannot be checked against the nodes, so the raw HMAT is not used");
	for (int i = 0; i < topo->nnodes; i++) {
		if (!topo->nodes[i].has_memory)
			continue;
		rc = check_node_blocks(topo->host->fsroot, srat, topo->nodes[i].id, size, &blocks, why, whylen);
		if (rc)
			return rc;
	}
	if (!blocks)
		return smpol_fail(why, whylen, ESTALE, "sysfs lists no memory blocks under the nodes: the SRAT's "
				  "proximity domains cannot be checked against them, so the raw HMAT is not used");
	return 0;
}

/* Where sysfs access class 1 names the best CPU initiators of a target, the raw
 * numbers of those pairs must be sysfs's. */
static int check_sysfs(const struct smpol_topology *topo, const struct smpol_bw_table *raw, char *why, size_t whylen)
{
	for (int i = 0; i < topo->nnodes; i++) {
		const struct smpol_node *t = &topo->nodes[i];
		const struct smpol_access *a = &t->access[1];

		if (!a->valid)
			continue;
		for (int init = smpol_cpus_next(&a->initiators, 0); init >= 0;
		     init = smpol_cpus_next(&a->initiators, init + 1)) {
			const struct smpol_bw_entry *e = smpol_bw_lookup(raw, init, t->id);

			if (!e || ((!a->read_bw || a->read_bw == e->read) && (!a->write_bw || a->write_bw == e->write)))
				continue;
			return smpol_fail(why, whylen, ESTALE, "the raw HMAT gives node %d to node %d read %u write %u MB/s "
					  "but sysfs (access1) says %u and %u: the raw HMAT is not used", init, t->id,
					  e->read, e->write, a->read_bw, a->write_bw);
		}
	}
	return 0;
}

/* The HMAT's pairs between online CPU nodes and memory nodes, in node ids. */
static int map_pairs(const struct smpol_topology *topo, const struct smpol_hmat *hmat, const struct smpol_srat *srat,
		     struct smpol_bw_table *raw)
{
	for (int i = 0; i < hmat->npairs; i++) {
		const struct smpol_hmat_pair *p = &hmat->pairs[i];
		int in = smpol_srat_node(srat, p->initiator_pxm), tn = smpol_srat_node(srat, p->target_pxm);
		const struct smpol_node *init = in >= 0 ? smpol_topology_node(topo, in) : NULL;
		const struct smpol_node *target = tn >= 0 ? smpol_topology_node(topo, tn) : NULL;
		struct smpol_bw_entry e = { in, tn, p->read_bw, p->write_bw, SMPOL_BW_ACPI };

		if (init && init->has_cpu && target && target->has_memory && smpol_bw_put(raw, &e))
			return -ENOMEM;
	}
	return 0;
}

/* Read and parse one table; -ENOENT quietly, other errors with why. */
static int read_table(const char *fsroot, const char *name, uint8_t **buf, size_t *len, char *why, size_t whylen)
{
	int rc = smpol_acpi_table_read(fsroot, name, buf, len, why, whylen);

	if (rc == -ENOENT)
		smpol_fail(why, whylen, ENOENT, "the firmware has no %s table", name);
	return rc;
}

int smpol_bw_from_acpi(const struct smpol_topology *topo, struct smpol_bw_table *t, char *why, size_t whylen)
{
	struct smpol_hmat hmat = { 0 };
	struct smpol_srat srat = { 0 };
	struct smpol_bw_table raw = { 0 };
	uint8_t *hbuf = NULL, *sbuf = NULL;
	size_t hlen, slen;
	int rc;

	rc = read_table(topo->host->fsroot, "HMAT", &hbuf, &hlen, why, whylen);
	if (!rc)
		rc = read_table(topo->host->fsroot, "SRAT", &sbuf, &slen, why, whylen);
	if (!rc)
		rc = smpol_hmat_parse(hbuf, hlen, &hmat, why, whylen);
	if (!rc)
		rc = smpol_srat_parse(sbuf, slen, &srat, why, whylen);
	if (!rc)
		rc = check_blocks(topo, &srat, why, whylen);
	if (!rc && map_pairs(topo, &hmat, &srat, &raw))
		rc = smpol_fail(why, whylen, ENOMEM, "out of memory");
	if (!rc)
		rc = check_sysfs(topo, &raw, why, whylen);
	for (int i = 0; !rc && i < raw.nentries; i++)
		if (smpol_bw_put(t, &raw.entries[i]))
			rc = smpol_fail(why, whylen, ENOMEM, "out of memory");
	if (!rc)
		snprintf(why, whylen, "%d pairs from the raw HMAT (revision %u)", raw.nentries, hmat.revision);
	smpol_bw_free(&raw);
	smpol_hmat_free(&hmat);
	smpol_srat_free(&srat);
	free(hbuf);
	free(sbuf);
	return rc;
}
