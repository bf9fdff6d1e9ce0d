/* acpi_table.h - what every raw ACPI table parser here shares: the standard header
 * (signature, length, revision, checksum) and little-endian reads.
 *
 * The header is 36 bytes: signature (4), length u32, revision u8, checksum u8 (the
 * whole table's bytes sum to 0 mod 256), OEM id (6), OEM table id (8), OEM revision,
 * creator id and creator revision (u32 each).
 */
#ifndef SMPOL_ACPI_TABLE_H
#define SMPOL_ACPI_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define SMPOL_ACPI_HEADER_LEN 36

/*
 * smpol_acpi_table_check - a table of len bytes with this signature: at least min_len
 * bytes, a length field equal to len (larger: the table was cut short; smaller:
 * trailing bytes), and a byte sum of 0. 0 or -EBADMSG with a sentence naming the
 * table.
 */
int smpol_acpi_table_check(const uint8_t *buf, size_t len, const char *signature, size_t min_len,
			   char *err, size_t errlen);

/* The header's revision byte (the caller checked the header). */
uint8_t smpol_acpi_table_revision(const uint8_t *buf);

/* Little-endian reads at an offset the caller has bounds-checked. */
uint16_t smpol_le16(const uint8_t *p);
uint32_t smpol_le32(const uint8_t *p);
uint64_t smpol_le64(const uint8_t *p);

/*
 * smpol_acpi_table_read - read a whole table file (/sys/firmware/acpi/tables/NAME under
 * the fsroot) into a malloc'ed buffer. 0; -ENOENT without a sentence when the firmware
 * has no such table; -EACCES (the tables are root-only) or another -errno with a
 * sentence; -EFBIG above 1 MiB.
 */
int smpol_acpi_table_read(const char *fsroot, const char *name, uint8_t **buf, size_t *len,
			  char *err, size_t errlen);

#endif
