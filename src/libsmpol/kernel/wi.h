/* wi.h - the kernel's global weighted-interleave table in sysfs, and what it tells
 * of the kernel.
 *
 * /sys/kernel/mm/mempolicy/weighted_interleave/nodeN (1-255) and, on 6.16+, an auto
 * file (named auto or __auto_type). Writing any nodeN turns auto off, so a restore
 * writes the nodes first and auto last. The one reader of that directory: a step
 * reads it once and every decision uses that value.
 *   present, no auto file     6.9-6.15: a file for every possible node, 0 = default (1)
 *   present, auto file        6.16+: files for memory nodes only
 *   absent                    before 6.9: no weighted interleave
 */
#ifndef SMPOL_WI_H
#define SMPOL_WI_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "bitmap.h"
#include "host.h"
#include "wi_table.h"

/* The weighted-interleave sysfs directory, relative to the host's fsroot. */
#define SMPOL_WI_DIR "/sys/kernel/mm/mempolicy/weighted_interleave"

/* Read the whole table. No directory is no error (present false: a kernel before 6.9).
 * Malformed values are an error naming the file (-EINVAL). */
int smpol_wi_read(const struct smpol_host *h, struct smpol_wi_table *t, char *err, size_t errlen);

/* The 6.9-6.15 layout: a file for every possible node and no auto switch. */
bool smpol_wi_weights_for_possible(const struct smpol_wi_table *t);

/* True for the names the auto file has had: "auto" (6.16) and "__auto_type" (some 6.18/6.19). */
bool smpol_is_auto_name(const char *name);

/* Write weight[n] for every n in `which` (each must have a file). */
int smpol_wi_write(const struct smpol_host *h, const struct smpol_wi_table *t,
		  const struct smpol_bitmap *which, char *err, size_t errlen);

/*
 * Put back a saved table: every node that still has a file, then auto when it was
 * enabled. Writing auto=true can fail with ENODEV on a kernel without bandwidth
 * data: that is reported in err and *auto_failed set, but the node weights stay
 * restored and the return is 0.
 */
int smpol_wi_restore(const struct smpol_host *h, const struct smpol_wi_table *saved, bool *auto_failed,
		    char *err, size_t errlen);

/*
 * Hand the weights back to the kernel: write auto=true. -ENODEV when the kernel has no
 * bandwidth data to compute them from, -EOPNOTSUPP when it has no auto file (before
 * 6.16); err says so either way.
 */
int smpol_wi_set_auto(const struct smpol_host *h, char *err, size_t errlen);

/* Serialize to / from the journal's one-line text form ("auto=1 0:7 1:7 2:2"). */
int smpol_wi_format(const struct smpol_wi_table *t, char *buf, size_t len);
int smpol_wi_parse(const char *text, struct smpol_wi_table *t, char *err, size_t errlen);

#endif
