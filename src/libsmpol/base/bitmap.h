/* bitmap.h - fixed-size sets of node or CPU ids, and the kernel's list syntax.
 *
 * One type serves NUMA node sets (ids < SMPOL_MAX_NODES) and CPU sets (ids <
 * SMPOL_MAX_CPUS). Lists use the kernel's cpulist syntax: "0-3,8,10-11".
 */
#ifndef SMPOL_BITMAP_H
#define SMPOL_BITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SMPOL_MAX_NODES 1024 /* Debian kernels: NODES_SHIFT=10 */
#define SMPOL_MAX_CPUS 8192
#define SMPOL_BITMAP_WORDS (SMPOL_MAX_CPUS / 64)

struct smpol_bitmap {
	uint64_t bits[SMPOL_BITMAP_WORDS];
};

void smpol_bitmap_clear(struct smpol_bitmap *b);
void smpol_bitmap_set(struct smpol_bitmap *b, int id);
void smpol_bitmap_unset(struct smpol_bitmap *b, int id);
bool smpol_bitmap_test(const struct smpol_bitmap *b, int id);
int smpol_bitmap_count(const struct smpol_bitmap *b);
bool smpol_bitmap_empty(const struct smpol_bitmap *b);
bool smpol_bitmap_equal(const struct smpol_bitmap *a, const struct smpol_bitmap *b);
/* a &= b; returns the count of what is left */
int smpol_bitmap_and(struct smpol_bitmap *a, const struct smpol_bitmap *b);
void smpol_bitmap_or(struct smpol_bitmap *a, const struct smpol_bitmap *b);
/* Lowest id >= from that is set, or -1. Iterate: for (i = smpol_bitmap_next(b, 0); i >= 0; i = smpol_bitmap_next(b, i + 1)) */
int smpol_bitmap_next(const struct smpol_bitmap *b, int from);

/*
 * smpol_bitmap_parse_list - parse "0-3,8" (whitespace around it allowed, empty = empty set).
 * Ids must be < limit. Returns 0, or -EINVAL with a sentence naming the bad part.
 */
int smpol_bitmap_parse_list(const char *text, int limit, struct smpol_bitmap *out, char *err, size_t errlen);

/*
 * smpol_bitmap_parse_mask - parse the kernel's hex mask format ("00000000,0000000f").
 */
int smpol_bitmap_parse_mask(const char *text, int limit, struct smpol_bitmap *out, char *err, size_t errlen);

/* The kernel's node mask (set_mempolicy, mbind, migrate_pages): SMPOL_MAX_NODES bits. */
#define SMPOL_MASK_LONGS (SMPOL_MAX_NODES / (8 * sizeof(unsigned long)))

/* mask[0..SMPOL_MASK_LONGS) = the ids of b below SMPOL_MAX_NODES. */
void smpol_bitmap_to_mask(const struct smpol_bitmap *b, unsigned long *mask);

/* smpol_bitmap_format_list - write the list syntax ("0-3,8"; "" for the empty set). -ENOSPC if buf is short. */
int smpol_bitmap_format_list(const struct smpol_bitmap *b, char *buf, size_t len);

#endif
