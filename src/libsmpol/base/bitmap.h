/* bitmap.h - sets of node ids and of CPU ids, and the kernel's list syntax.
 *
 * A node set (struct smpol_bitmap) is a value of SMPOL_MAX_NODES bits, 128 bytes, as
 * the kernel's nodemask_t: structs carrying one (a request, a plan, a table) copy with
 * `=`, and the malloc interposer uses them without allocating. A CPU set (struct
 * smpol_cpus) is grown on the heap to its highest id, as machines number thousands
 * of CPUs: its holder frees it and copies it with smpol_cpus_copy, never `=`. A few
 * node ids a struct keeps for long (a node's HMAT initiators) are held in one too.
 * Lists use the kernel's cpulist syntax: "0-3,8,10-11".
 */
#ifndef SMPOL_BITMAP_H
#define SMPOL_BITMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The one node limit: the kernel's MAX_NUMNODES at its largest (NODES_SHIFT=10, the
 * x86_64 and arm64 maximum, Debian's setting); no kernel numbers a node beyond it. */
#define SMPOL_MAX_NODES 1024
/* CPU ids: the kernel's NR_CPUS at its largest (CONFIG_NR_CPUS=8192, Debian's). */
#define SMPOL_MAX_CPUS 8192

struct smpol_bitmap {
	uint64_t bits[SMPOL_MAX_NODES / 64];
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
 * Ids must be < limit (at most SMPOL_MAX_NODES): the machine's possible nodes where it is
 * known. Returns 0, or -EINVAL with a sentence naming the bad part (out unchanged).
 */
int smpol_bitmap_parse_list(const char *text, int limit, struct smpol_bitmap *out, char *err, size_t errlen);

/*
 * smpol_bitmap_parse_mask - parse the kernel's hex mask format ("00000000,0000000f").
 */
int smpol_bitmap_parse_mask(const char *text, int limit, struct smpol_bitmap *out, char *err, size_t errlen);

/* The kernel's node mask (set_mempolicy, mbind, migrate_pages): SMPOL_MAX_NODES bits. */
#define SMPOL_MASK_LONGS (SMPOL_MAX_NODES / (8 * sizeof(unsigned long)))

/* mask[0..SMPOL_MASK_LONGS) = the ids of b. */
void smpol_bitmap_to_mask(const struct smpol_bitmap *b, unsigned long *mask);

/* smpol_bitmap_format_list - write the list syntax ("0-3,8"; "" for the empty set). -ENOSPC if buf is short. */
int smpol_bitmap_format_list(const struct smpol_bitmap *b, char *buf, size_t len);

/* A set of CPU ids < SMPOL_MAX_CPUS; a zeroed one is the empty set and holds nothing. */
struct smpol_cpus {
	uint64_t *bits;     /* malloc'ed, nwords of them (up to the highest id ever set) */
	int nwords;
};

void smpol_cpus_free(struct smpol_cpus *c);
/* dst = src (what dst held is freed). 0 or -ENOMEM (dst unchanged). */
int smpol_cpus_copy(struct smpol_cpus *dst, const struct smpol_cpus *src);
void smpol_cpus_clear(struct smpol_cpus *c);
/* 0, or -ENOMEM (c unchanged); ids outside 0..SMPOL_MAX_CPUS-1 are ignored. */
int smpol_cpus_set(struct smpol_cpus *c, int id);
bool smpol_cpus_test(const struct smpol_cpus *c, int id);
int smpol_cpus_count(const struct smpol_cpus *c);
bool smpol_cpus_empty(const struct smpol_cpus *c);
bool smpol_cpus_equal(const struct smpol_cpus *a, const struct smpol_cpus *b);
/* |a & b|: the CPUs in both. */
int smpol_cpus_count_and(const struct smpol_cpus *a, const struct smpol_cpus *b);
/* a |= b. 0 or -ENOMEM (a unchanged). */
int smpol_cpus_or(struct smpol_cpus *a, const struct smpol_cpus *b);
/* Lowest id >= from that is set, or -1 (as smpol_bitmap_next). */
int smpol_cpus_next(const struct smpol_cpus *c, int from);

/* As smpol_bitmap_parse_list and _parse_mask (ids < limit, at most SMPOL_MAX_CPUS: the
 * machine's possible CPUs where known); what out held is freed on success. -ENOMEM. */
int smpol_cpus_parse_list(const char *text, int limit, struct smpol_cpus *out, char *err, size_t errlen);
int smpol_cpus_parse_mask(const char *text, int limit, struct smpol_cpus *out, char *err, size_t errlen);
int smpol_cpus_format_list(const struct smpol_cpus *c, char *buf, size_t len);

#endif
