/* record_json.h - small json-c helpers the placement record's files share (record.c
 * builds and merges, record_fold.c folds). Not for other users: they read the record
 * through record.h. Every helper takes damaged input (wrong types, 1e999, negative
 * counts) without producing invalid JSON. */
#ifndef SMPOL_RECORD_JSON_H
#define SMPOL_RECORD_JSON_H

#include <stdbool.h>

#include <json-c/json.h>

/* How the record is written: compact, '/' as it is. */
#define SMPOL_REC_JSON_FLAGS (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* A ratio with four decimals, written as such ("0.75", not 0.75000000000000000). */
json_object *smpol_rec_ratio(double x);

/* obj[key] of any type, or NULL (obj may be NULL or not an object). */
json_object *smpol_rec_get(json_object *obj, const char *key);

/* obj[key] as an object, created (replacing a value of another type) when needed. */
json_object *smpol_rec_child(json_object *obj, const char *key);

/* A small count (nodes, tasks, notes); a damaged one (negative, past INT_MAX) reads 0. */
int smpol_rec_count(json_object *obj, const char *key);

/* a + b for two counts, saturating at INT_MAX. */
int smpol_rec_add_counts(int a, int b);

/* obj[key] as a number, dflt when missing. */
double smpol_rec_double(json_object *obj, const char *key, double dflt);

/* The sum of the finite, non-negative values of a {NUMA node: count} object. */
double smpol_rec_total(json_object *counts);

/*
 * smpol_rec_add_pages - sum[k] += scale * src[k] for every NUMA node k of src; with
 * keep_max, sum[k] = max(sum[k], src[k]) instead. integral: whole pages, else ratios.
 * Damaged counts are left out.
 */
void smpol_rec_add_pages(json_object *sum, json_object *src, double scale, bool integral, bool keep_max);

/* Whether a summary's "hosts" names node. */
bool smpol_rec_names(json_object *summary, const char *node);

#endif
