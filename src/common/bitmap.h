/* bitmap.h - fixed-size sets of node or CPU ids, and the kernel's list syntax.
 *
 * One type serves NUMA node sets (ids < MPOL_MAX_NODES) and CPU sets (ids <
 * MPOL_MAX_CPUS). Lists use the kernel's cpulist syntax: "0-3,8,10-11".
 */
#ifndef MPOL_BITMAP_H
#define MPOL_BITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MPOL_MAX_NODES 1024 /* Debian kernels: NODES_SHIFT=10 */
#define MPOL_MAX_CPUS 8192
#define MPOL_BITMAP_WORDS (MPOL_MAX_CPUS / 64)

struct mpol_bitmap {
	uint64_t bits[MPOL_BITMAP_WORDS];
};

void bitmap_clear(struct mpol_bitmap *b);
void bitmap_set(struct mpol_bitmap *b, int id);
void bitmap_unset(struct mpol_bitmap *b, int id);
bool bitmap_test(const struct mpol_bitmap *b, int id);
int bitmap_count(const struct mpol_bitmap *b);
bool bitmap_empty(const struct mpol_bitmap *b);
bool bitmap_equal(const struct mpol_bitmap *a, const struct mpol_bitmap *b);
/* a &= b; returns the count of what is left */
int bitmap_and(struct mpol_bitmap *a, const struct mpol_bitmap *b);
void bitmap_or(struct mpol_bitmap *a, const struct mpol_bitmap *b);
/* Lowest id >= from that is set, or -1. Iterate: for (i = bitmap_next(b, 0); i >= 0; i = bitmap_next(b, i + 1)) */
int bitmap_next(const struct mpol_bitmap *b, int from);

/*
 * bitmap_parse_list - parse "0-3,8" (whitespace around it allowed, empty = empty set).
 * Ids must be < limit. Returns 0, or -EINVAL with a sentence naming the bad part.
 */
int bitmap_parse_list(const char *text, int limit, struct mpol_bitmap *out, char *err, size_t errlen);

/*
 * bitmap_parse_mask - parse the kernel's hex mask format ("00000000,0000000f").
 */
int bitmap_parse_mask(const char *text, int limit, struct mpol_bitmap *out, char *err, size_t errlen);

/* bitmap_format_list - write the list syntax ("0-3,8"; "" for the empty set). -ENOSPC if buf is short. */
int bitmap_format_list(const struct mpol_bitmap *b, char *buf, size_t len);

#endif
