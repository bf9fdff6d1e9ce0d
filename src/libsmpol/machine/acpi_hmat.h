/* acpi_hmat.h - the firmware's raw Heterogeneous Memory Attribute Table.
 *
 * /sys/firmware/acpi/tables/HMAT (root-readable) holds what sysfs's access classes
 * only summarize: its System Locality Latency and Bandwidth Information structures
 * (ACPI 6.3+ section 5.2.27.4, type 1) give a bandwidth for every (initiator, target)
 * pair of proximity domains the firmware describes, not only each target's best
 * initiator. A structure is: type u16 = 1, reserved u16, length u32, flags u8 (bits
 * 3:0 the memory hierarchy, 0 = memory), data type u8 (3 access, 4 read, 5 write
 * bandwidth; 0-2 latencies), reserved u16, initiator count m u32, target count n u32,
 * reserved u32, entry base unit u64, then m initiator and n target proximity domains
 * (u32 each) and m x n u16 entries, initiator-major. All little-endian.
 *
 * Values are normalized as Linux's drivers/acpi/numa/hmat.c does, so they equal what
 * the kernel put in sysfs: an entry of 0 or 0xffff is unknown, entry x base above
 * 2^32-1 is unknown; revision 2 bandwidth is entry x base in MB/s; revision 1 divides
 * by 10 (rounding up, under 10 is unknown). Only the memory hierarchy is read (the
 * cache levels describe memory-side caches).
 *
 * The parser takes untrusted bytes: a wrong signature, length, checksum or revision, a
 * structure running past the table or a list longer than its structure is refused
 * with a sentence; it never reads outside the buffer.
 */
#ifndef SMPOL_ACPI_HMAT_H
#define SMPOL_ACPI_HMAT_H

#include <stddef.h>
#include <stdint.h>

/* One (initiator, target) pair of proximity domains; 0 = not given. */
struct smpol_hmat_pair {
	uint32_t initiator_pxm;
	uint32_t target_pxm;
	uint32_t read_bw;          /* MB/s */
	uint32_t write_bw;         /* MB/s */
};

struct smpol_hmat {
	uint8_t revision;
	struct smpol_hmat_pair *pairs;   /* malloc'ed; pairs with at least one number */
	int npairs;
};

/*
 * smpol_hmat_parse - the bandwidth pairs of a whole HMAT (header included; checked
 * with smpol_acpi_table_check).
 * 0, or -EBADMSG / -EPROTONOSUPPORT (revision other than 1 or 2) with a sentence,
 * -ENOMEM. Free with smpol_hmat_free.
 */
int smpol_hmat_parse(const uint8_t *buf, size_t len, struct smpol_hmat *out, char *err, size_t errlen);

void smpol_hmat_free(struct smpol_hmat *h);

/* The pair, or NULL. */
const struct smpol_hmat_pair *smpol_hmat_find(const struct smpol_hmat *h, uint32_t initiator_pxm,
					      uint32_t target_pxm);

#endif
