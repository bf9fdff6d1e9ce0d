/* step_ids.h - a set of a job's steps as the placement record lists them: numbered
 * steps as ranges, Slurm's array syntax ("0-131,140,200-298:2"), then named ones
 * ("batch", "extern", "interactive"): "0-131,140,batch". A folded record names
 * thousands of steps in a few bytes this way (record.h). */
#ifndef SMPOL_STEP_IDS_H
#define SMPOL_STEP_IDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A set never holds more steps than this (Slurm's MaxStepCount is 40,000 by default):
 * a damaged "0-4294967295" is refused, not expanded. */
#define SMPOL_STEP_IDS_MAX (1u << 20)
/* Named steps a set holds at most, and their longest name. */
#define SMPOL_STEP_NAMES_MAX 8
#define SMPOL_STEP_NAME_LEN 16

struct smpol_step_ids {
	uint32_t *ids;          /* numbered steps, ascending, each once; malloc'ed */
	size_t n, cap;
	char names[SMPOL_STEP_NAMES_MAX][SMPOL_STEP_NAME_LEN];  /* named steps, sorted */
	int nnames;
};

/* An empty set; smpol_step_ids_free() it. */
void smpol_step_ids_init(struct smpol_step_ids *s);
void smpol_step_ids_free(struct smpol_step_ids *s);

/*
 * smpol_step_ids_add - add one step as the record names it: a decimal number without
 * leading zeros ("0", "17") or a lower-case name ("batch"). -EINVAL for any other key
 * (it cannot be listed), -E2BIG past the limits above, -ENOMEM; with a sentence.
 */
int smpol_step_ids_add(struct smpol_step_ids *s, const char *step, char *err, size_t errlen);

/* smpol_step_ids_parse - add every step of text ("0-131,140,200-298:2,batch") to s.
 * -EINVAL when text is not such a list, -E2BIG, -ENOMEM; with a sentence. */
int smpol_step_ids_parse(const char *text, struct smpol_step_ids *s, char *err, size_t errlen);

/* smpol_step_ids_merge - add every step of from to into. 0 or -E2BIG/-ENOMEM. */
int smpol_step_ids_merge(struct smpol_step_ids *into, const struct smpol_step_ids *from, char *err, size_t errlen);

bool smpol_step_ids_has(const struct smpol_step_ids *s, const char *step);
/* Take step out of s (nothing when it is not there). */
void smpol_step_ids_remove(struct smpol_step_ids *s, const char *step);
size_t smpol_step_ids_count(const struct smpol_step_ids *s);

/* A short listing smpol_step_ids_parse reads back as s, malloc'ed (NULL when out of
 * memory): from the oldest step not listed yet, the steps that follow at the next
 * step's stride when three or more do, else the smallest stride to one of the next
 * few steps that four or more follow, so that interleaved patterns stay short
 * ("0-9998:3,1-9999:3"). */
char *smpol_step_ids_format(const struct smpol_step_ids *s);

/* Whether step is a key smpol_step_ids_add takes (a number or a name). */
bool smpol_step_key_listable(const char *step);

/* Order of steps in a job: numbered ones by number, then named ones by name (a batch
 * script outlives its steps). Keys that cannot be listed come last. */
int smpol_step_key_cmp(const char *a, const char *b);

#endif
