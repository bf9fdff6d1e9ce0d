/* bandwidth.h - the bandwidth each initiator gets from each memory node, and where
 * each number came from.
 *
 * Plans weigh a task's candidate nodes by the bandwidth they offer the task's
 * initiator. Five sources can say what that is; for every (initiator, target) pair the
 * first that has a number wins:
 *   override    the admin's lines in the bandwidth table file (bw_file.h)
 *   measured    `mpolctl calibrate`'s lines in that file
 *   acpi-hmat   the firmware's raw HMAT (acpi_hmat.h): every pair it describes
 *   sysfs-hmat  sysfs access class 1 (else 0): each target's best initiator only, so
 *               every initiator is given that figure (a remote socket's DRAM looks
 *               local: the reason for the sources above)
 *   none        no number: the plan weighs the node as the slowest known, or gives
 *               equal shares when none is known
 * Numbers are MB/s, read and write apart; a plan uses min(read, write) as the kernel
 * does (one known direction stands for both).
 *
 * The resolved table is what slurmstepd decides with and what its kept placement keeps
 * (step_state.h), so `mpolctl rebalance` re-decides with the same numbers.
 */
#ifndef SMPOL_BANDWIDTH_H
#define SMPOL_BANDWIDTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Ascending precedence. */
enum smpol_bw_source {
	SMPOL_BW_NONE,
	SMPOL_BW_SYSFS,
	SMPOL_BW_ACPI,
	SMPOL_BW_MEASURED,
	SMPOL_BW_OVERRIDE,
};
#define SMPOL_BW_NSOURCES 5

struct smpol_bw_entry {
	int initiator;                 /* CPU node */
	int target;                    /* memory node */
	uint32_t read;                 /* MB/s, 0 = unknown */
	uint32_t write;
	enum smpol_bw_source source;
};

struct smpol_bw_table {
	struct smpol_bw_entry *entries;   /* malloc'ed, one per pair, no NONE entries */
	int nentries;
};

/* "override", "measured", "acpi-hmat", "sysfs-hmat", "none". */
const char *smpol_bw_source_name(enum smpol_bw_source s);

/* The source with this name; -EINVAL for anything else. */
int smpol_bw_source_parse(const char *name, enum smpol_bw_source *out);

/* min(read, write), or the one that is known; 0 when neither is. */
uint32_t smpol_bw_min(uint32_t read, uint32_t write);

/* The pair's entry, or NULL when no source knows it. */
const struct smpol_bw_entry *smpol_bw_lookup(const struct smpol_bw_table *t, int initiator, int target);

/*
 * smpol_bw_put - add or replace the pair's entry when `source` ranks at least as high
 * as what is there (so sources may be put in any order). An entry with neither
 * number is ignored. 0 or -ENOMEM.
 */
int smpol_bw_put(struct smpol_bw_table *t, const struct smpol_bw_entry *e);

/* A deep copy. 0 or -ENOMEM. */
int smpol_bw_copy(const struct smpol_bw_table *src, struct smpol_bw_table *dst);

void smpol_bw_free(struct smpol_bw_table *t);

#endif
