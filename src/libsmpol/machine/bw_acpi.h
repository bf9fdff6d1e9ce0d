/* bw_acpi.h - every (initiator, target) bandwidth the firmware's raw HMAT gives, in
 * Linux node ids.
 *
 * Reads /sys/firmware/acpi/tables/HMAT and SRAT under the topology's fsroot (root
 * only), maps proximity domains to nodes as Linux numbered them (acpi_srat.h), and
 * trusts that mapping only when sysfs confirms it:
 *   - every memory block of every node with memory (nodeN/memoryM, block M covering
 *     M x block_size_bytes) lies in an SRAT memory range of a domain mapped to N;
 *   - where sysfs access class 1 lists initiator I for target T, the raw table's (I, T)
 *     read and write bandwidth equal sysfs's (the kernel derived them from the same
 *     table).
 * Nodes with CPUs but no memory cannot be checked by memory blocks; they are mapped
 * by the SRAT order alone. Pairs naming a node that is not online (a hot-plug node
 * still empty) are skipped.
 */
#ifndef SMPOL_BW_ACPI_H
#define SMPOL_BW_ACPI_H

#include <stddef.h>

#include "bandwidth.h"
#include "topology.h"

/*
 * smpol_bw_from_acpi - put the raw HMAT's pairs into t (source acpi-hmat): initiators
 * are online CPU nodes, targets online memory nodes. 0 when used (why says how many
 * pairs); otherwise nothing is put and why says why: -ENOENT (the firmware has no
 * HMAT or SRAT), -EACCES (not root), -EBADMSG (a table is malformed), -ESTALE (sysfs
 * contradicts the mapping or the numbers), -ENOMEM.
 */
int smpol_bw_from_acpi(const struct smpol_topology *topo, struct smpol_bw_table *t, char *why, size_t whylen);

#endif
