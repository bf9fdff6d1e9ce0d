/* check_hmat.c - what the firmware's HMAT says of each memory node, and whether it
 * makes sense (see checks.h). */
#include <errno.h>
#include <stdio.h>

#include "checks.h"

#define CALIBRATE "measure it: mpolctl calibrate (or write override lines in the bandwidth table)"

static void check_presence(const struct smpol_node *n, int nmem, struct smpol_findings *f)
{
	bool a0 = n->access[0].valid, a1 = n->access[1].valid;

	if (a0 || a1) {
		smpol_findings_add(f, a1 ? SMPOL_SEV_OK : SMPOL_SEV_INFO, a1 ? "hmat-present" : "hmat-access0-only", n->id,
				   a1 ? "" : "nothing to do: plans use access0 where access1 is missing",
				   "node %d: HMAT %s", n->id, a0 && a1 ? "access0 and access1" : a1 ? "access1 only" :
				   "access0 only (its best initiator may be no CPU)");
		return;
	}
	if (nmem < 2) {
		smpol_findings_add(f, SMPOL_SEV_INFO, "hmat-missing", n->id, "nothing to do: one memory node has nothing "
				   "to be weighed against", "node %d: no HMAT numbers", n->id);
		return;
	}
	if (n->has_cpu)
		smpol_findings_add(f, SMPOL_SEV_WARNING, "hmat-missing", n->id, "ask the vendor for a BIOS with HMAT, or "
				   CALIBRATE, "node %d: no HMAT numbers (no access0 or access1 bandwidth or latency)", n->id);
	else
		smpol_findings_add(f, SMPOL_SEV_WARNING, "memory-only-no-hmat", n->id, "a CXL expander gets numbers from "
				   "CDAT with a recent cxl driver; otherwise " CALIBRATE,
				   "memory-only node %d has no HMAT numbers: plans weigh it as the slowest node known",
				   n->id);
}

/* Both directions given, and in a plausible ratio. */
static void check_directions(const struct smpol_node *n, const struct smpol_access *a, struct smpol_findings *f)
{
	if (!a)
		return;
	if (!a->read_bw != !a->write_bw || (!a->read_bw && (a->read_lat || a->write_lat))) {
		smpol_findings_add(f, SMPOL_SEV_WARNING, "hmat-bandwidth-zero", n->id, CALIBRATE,
				   "node %d: HMAT read bandwidth %u, write %u MB/s (0 = missing or zero): plans use "
				   "what is given", n->id, a->read_bw, a->write_bw);
		return;
	}
	if (!a->read_bw)
		return;
	if (a->write_bw > SMPOL_CHECK_WRITE_OVER_READ * a->read_bw || a->read_bw > SMPOL_CHECK_RW_MAX * a->write_bw)
		smpol_findings_add(f, SMPOL_SEV_WARNING, "hmat-rw-ratio", n->id, "check the firmware's numbers (read and "
				   "write swapped?), or " CALIBRATE,
				   "node %d: HMAT read %u and write %u MB/s are an implausible ratio (writes faster than "
				   "reads by over %.0f%%, or slower than a %.0fth of them)", n->id, a->read_bw, a->write_bw,
				   100 * (SMPOL_CHECK_WRITE_OVER_READ - 1), SMPOL_CHECK_RW_MAX);
}

/* access0 is the best of every initiator, access1 of CPU initiators only: access0 can
 * never be worse, and with the same initiators the numbers are the same. */
static void check_classes(const struct smpol_node *n, struct smpol_findings *f)
{
	const struct smpol_access *a0 = &n->access[0], *a1 = &n->access[1];
	uint32_t b0 = smpol_bw_min(a0->read_bw, a0->write_bw), b1 = smpol_bw_min(a1->read_bw, a1->write_bw);

	if (!a0->valid || !a1->valid)
		return;
	if ((b0 && b1 && b0 < b1) ||
	    (smpol_cpus_equal(&a0->initiators, &a1->initiators) &&
	     (a0->read_bw != a1->read_bw || a0->write_bw != a1->write_bw)))
		smpol_findings_add(f, SMPOL_SEV_WARNING, "hmat-access-mismatch", n->id, "the firmware's HMAT contradicts "
				   "itself: " CALIBRATE,
				   "node %d: access0 (any initiator) gives %u MB/s and access1 (CPU initiators) %u MB/s: "
				   "access0 can be no worse, and with the same initiators no different", n->id, b0, b1);
}

static void check_memory_only(const struct smpol_topology *topo, const struct smpol_node *n, struct smpol_findings *f)
{
	int init = smpol_node_initiator(topo, n);
	const struct smpol_node *dram = init >= 0 ? smpol_topology_node(topo, init) : NULL;
	uint32_t bw = smpol_node_bandwidth(n), dram_bw = dram ? smpol_node_bandwidth(dram) : 0;

	if (init < 0) {
		smpol_findings_add(f, SMPOL_SEV_WARNING, "no-initiator", n->id, "without HMAT initiators or distances the "
				   "node belongs to no socket: check the firmware's SRAT/SLIT/HMAT",
				   "node %d has memory but no initiator (no HMAT initiator, no distances): socket plans "
				   "never use it", n->id);
		return;
	}
	if (!bw || !dram_bw || bw <= dram_bw)
		return;
	if (bw >= SMPOL_CHECK_HBM_FACTOR * dram_bw)
		smpol_findings_add(f, SMPOL_SEV_INFO, "faster-than-dram", n->id, "nothing to do if it is HBM; if it is "
				   "CXL memory the firmware is wrong: " CALIBRATE,
				   "memory-only node %d claims %u MB/s, %.1f times its initiator node %d's DRAM (%u): "
				   "HBM-like", n->id, bw, (double)bw / dram_bw, init, dram_bw);
	else
		smpol_findings_add(f, SMPOL_SEV_WARNING, "faster-than-dram", n->id, "CXL memory is not faster than "
				   "DRAM; if it is HBM this is right, else " CALIBRATE,
				   "memory-only node %d claims %u MB/s, more than its initiator node %d's DRAM (%u)",
				   n->id, bw, init, dram_bw);
}

static void check_acpi(const struct smpol_bw_origin *o, struct smpol_findings *f)
{
	if (!o)
		return;
	if (!o->acpi_rc)
		smpol_findings_add(f, SMPOL_SEV_OK, "acpi-hmat", -1, "", "raw ACPI HMAT: %s", o->acpi_why);
	else if (o->acpi_rc == -ENOENT)
		smpol_findings_add(f, SMPOL_SEV_INFO, "acpi-hmat", -1, "nothing to do: plans use sysfs HMAT, which "
				   "gives each node's best initiator only", "raw ACPI HMAT: %s", o->acpi_why);
	else if (o->acpi_rc == -EACCES)
		smpol_findings_add(f, SMPOL_SEV_SKIPPED, "acpi-hmat", -1, "run mpolctl check as root to check it",
				   "raw ACPI HMAT not read: %s", o->acpi_why);
	else
		smpol_findings_add(f, SMPOL_SEV_WARNING, "acpi-hmat-refused", -1, "plans fall back to sysfs HMAT "
				   "(remote sockets weighed as local): report it to the vendor, or " CALIBRATE,
				   "raw ACPI HMAT not used: %s", o->acpi_why);
}

void smpol_check_hmat(const struct smpol_topology *topo, const struct smpol_bw_origin *origin,
		      struct smpol_findings *f)
{
	int nmem = 0;

	for (int i = 0; i < topo->nnodes; i++)
		nmem += topo->nodes[i].has_memory;
	for (int i = 0; i < topo->nnodes; i++) {
		const struct smpol_node *n = &topo->nodes[i];

		if (!n->has_memory)
			continue;
		check_presence(n, nmem, f);
		check_directions(n, smpol_node_access(n), f);
		check_classes(n, f);
		if (!n->has_cpu)
			check_memory_only(topo, n, f);
	}
	check_acpi(origin, f);
}
