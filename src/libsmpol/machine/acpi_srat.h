/* acpi_srat.h - which NUMA node each ACPI proximity domain became.
 *
 * HMAT names proximity domains (PXMs), not Linux node ids. Linux numbers nodes in the
 * order it first meets a PXM while reading the System Resource Affinity Table
 * (drivers/acpi/numa/srat.c, acpi_numa_init and acpi_map_pxm_to_node): one pass over
 * the processor-like entries in table order (local APIC type 0, x2APIC type 2, GICC
 * type 3, generic initiator type 5), then one over the memory entries (type 1); a
 * disabled entry maps nothing, and each new PXM takes the lowest unused node id. SRAT
 * revision 1 keeps only the low 8 bits of a PXM. This parser replays that order; the
 * caller verifies the result against sysfs (every memory block of node N lies in a
 * memory range of a PXM mapped to N), since a kernel may also number nodes from other
 * sources (numa=off, CXL windows, NUMA emulation).
 *
 * SRAT after its header: reserved u32, reserved u64, then entries (type u8, length
 * u8): type 0 (16 bytes): PXM bits 7:0 at 2, flags u32 at 4 (bit 0 enabled), PXM
 * bits 31:8 at 9; type 1 (40): PXM u32 at 2, base u64 at 8, length u64 at 16, flags
 * u32 at 28 (bit 0 enabled, bit 1 hot-pluggable); type 2 (24): PXM u32 at 4, flags at
 * 12; type 3 (18): PXM u32 at 2, flags at 10; type 5 (32): PXM u32 at 4, flags at 24.
 */
#ifndef SMPOL_ACPI_SRAT_H
#define SMPOL_ACPI_SRAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct smpol_srat_range {
	uint64_t base;
	uint64_t length;
	uint32_t pxm;
	bool hotpluggable;
};

struct smpol_srat_domain {
	uint32_t pxm;
	int node;
};

struct smpol_srat {
	struct smpol_srat_domain *domains;   /* in the order Linux numbered them */
	int ndomains;
	struct smpol_srat_range *ranges;     /* enabled memory ranges */
	int nranges;
};

/* Parse a whole SRAT. 0, or -EBADMSG with a sentence, -ENOMEM. Free with smpol_srat_free. */
int smpol_srat_parse(const uint8_t *buf, size_t len, struct smpol_srat *out, char *err, size_t errlen);

void smpol_srat_free(struct smpol_srat *s);

/* The node a PXM became, or -1. */
int smpol_srat_node(const struct smpol_srat *s, uint32_t pxm);

/* The PXM whose memory range holds this physical address, or -1 (as int64). */
int64_t smpol_srat_pxm_of_address(const struct smpol_srat *s, uint64_t addr);

#endif
