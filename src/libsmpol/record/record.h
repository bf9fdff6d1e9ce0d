/* record.h - the placement record kept in a job's AdminComment (json-c).
 *
 * Our record is one JSON object under the key "mempolicy":
 *   {"v":1,"unit_kib":4,"steps":{STEP:{NODE:ENTRY,...},...}}
 * STEP is "0", "1", ... or "batch"/"extern"/"interactive"; NODE a Slurm node name.
 * ENTRY (smpol_record_entry_build) holds the modes, kernel path, plans, target shares,
 * pages per NUMA node (last sample and peak, in 4 KiB pages) and the drift; doc/
 * mem_interleave.8 (RECORD) has the full schema.
 *
 * Where it lives in the AdminComment, so that other text is never lost (a comment
 * that starts with jobstats' "JS1:" is not written into at all: -EEXIST):
 *   - empty comment: the comment becomes {"mempolicy":{...}};
 *   - a JSON object (without a foreign "mempolicy" key): our key is added or replaced,
 *     every other key is kept (json-c rewrites the object in compact form);
 *   - anything else (plain text, a JSON array, malformed JSON, an object whose
 *     "mempolicy" is not ours, which includes a record of another version such as a
 *     future "v":2): the text is kept byte for byte and the record follows
 *     the marker SMPOL_RECORD_MARK (" mempolicy=" then the object); an existing marked
 *     record is replaced in place, so text after it survives too.
 *
 * When our object would exceed the budget, a step's per-node entries are folded into
 * one summary entry under the key "*" (node count and names, pages summed per NUMA
 * node, largest drift, notes counted): a job on many nodes stays within Slurm's limits.
 * Should even that not fit, summaries lose their node names one at a time, the oldest
 * step first and the step being written last: its other writers confirm their
 * entries by those names (record_store.h).
 */
#ifndef SMPOL_RECORD_H
#define SMPOL_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "plan.h"
#include "sampling.h"

#define SMPOL_RECORD_KEY "mempolicy"
#define SMPOL_RECORD_VERSION 1
/* Marks the record in a comment that is not a JSON object: "text mempolicy={...}". */
#define SMPOL_RECORD_MARK "mempolicy="
/* Princeton's jobstats keeps "JS1:" + base64(gzip(JSON)) in AdminComment: a comment
 * starting so is never written into (see smpol_record_merge). */
#define SMPOL_JOBSTATS_MARK "JS1:"
/* Bytes our object may take before steps are summarized. */
#define SMPOL_RECORD_BUDGET 16384
/* The key of a step's summary entry (no Slurm node is named "*"). */
#define SMPOL_RECORD_SUMMARY "*"

/* The record's keys, one definition each: written and summarized by record.c, read
 * by mpolctl report (doc/mem_interleave.8 RECORD has what each holds). */
#define SMPOL_REC_VERSION "v"
#define SMPOL_REC_UNIT_KIB "unit_kib"
#define SMPOL_REC_STEPS "steps"
/* a node's entry */
#define SMPOL_REC_REQ "req"
#define SMPOL_REC_MODE "mode"
#define SMPOL_REC_PATH "path"
#define SMPOL_REC_SYSFS "sysfs"
#define SMPOL_REC_PLANS "plans"
#define SMPOL_REC_INIT "init"           /* in a plan: its CPU node (of several: the one with most CPUs) */
#define SMPOL_REC_SERVES "cpus"         /* in a plan for CPUs spanning CPU nodes: {NODE:CPUs} */
#define SMPOL_REC_NODES "nodes"         /* in a plan: its memory nodes */
#define SMPOL_REC_WEIGHTS "w"
#define SMPOL_REC_SHARE "share"
#define SMPOL_REC_BW "bw"             /* in a plan: where its bandwidths came from */
#define SMPOL_REC_POLICY "policy"
#define SMPOL_REC_TASKS "tasks"
#define SMPOL_REC_SAMPLES "samples"
#define SMPOL_REC_TIME "t"
#define SMPOL_REC_LAST "last"
#define SMPOL_REC_PEAK "peak"
#define SMPOL_REC_TARGET "target"
#define SMPOL_REC_DRIFT "drift"
#define SMPOL_REC_KIND "kind"
#define SMPOL_REC_NOTE "note"
#define SMPOL_REC_REGIONS "regions"     /* region-aware: large mappings by how placed */
#define SMPOL_REC_ALLOCATION "alloc"    /* in regions: by the interposer */
#define SMPOL_REC_SAMPLER "sampler"     /* in regions: by the sampler */
#define SMPOL_REC_PENDING "pending"     /* in regions: not on the plan at the last sample */
/* a step's summary "*" (besides tasks, mode, path, last, peak, note) */
#define SMPOL_REC_COUNT "n"
#define SMPOL_REC_HOSTS "hosts"
#define SMPOL_REC_EXPECTED "exp"
#define SMPOL_REC_DRIFT_MAX "drift_max"
#define SMPOL_REC_NOTES "notes"

/* What one node saw of one step; arrays are indexed by NUMA node id, 0..max_node. */
struct smpol_record_node {
	const char *requested;          /* mode asked for: "weighted" */
	const char *applied;            /* mode the tasks got: "weighted", "interleave", "none" */
	const char *path;               /* kernel path: smpol_kernel_path_name() */
	bool sysfs_written;             /* the step held the weights lease */
	const struct smpol_plan *plans;  /* one per initiator */
	int nplans;
	const char *policy;             /* policy seen on the tasks' memory, NULL = none seen */
	int ntasks;
	int nsamples;                   /* 0: no task lived long enough to be sampled */
	int64_t last_time;              /* Unix time of the last sample */
	int max_node;                   /* highest NUMA node in the arrays, -1 = none */
	const uint64_t *last;           /* anonymous pages per node at the last sample */
	const uint64_t *peak;           /* largest count per node over all samples */
	const double *target;           /* target per node: shares or expected pages (written
	                                 * as shares summing to 1); NULL = unknown */
	const char *const *kind;        /* "dram", "cxl", "hbm" per node, NULL = unknown */
	const char *note;               /* fallback or error sentence, NULL = none */
	const struct smpol_region_ways *regions;  /* region-aware: at the last sample, NULL = none */
};

/*
 * smpol_record_entry_build - the ENTRY object for one node. *entry is a new object in
 * canonical form (built, written and read back), so that it compares equal to the
 * copy later read from Slurm; json_object_put() it.
 */
int smpol_record_entry_build(const struct smpol_record_node *in, json_object **entry,
			    char *err, size_t errlen);

/*
 * smpol_record_merge - the AdminComment with ENTRY stored under step/node, keeping
 * everything else in comment (NULL = empty). *merged is malloc'ed. Steps are folded
 * into summaries when our object would exceed budget bytes; -E2BIG when even that is
 * not enough.
 */
int smpol_record_merge(const char *comment, const char *step, const char *node,
		      json_object *entry, size_t budget, char **merged, char *err, size_t errlen);

/* {NODE:ENTRY} of one node, a new object in *entries. -EINVAL without a node name. */
int smpol_record_one_node(const char *node, json_object *entry, json_object **entries, char *err, size_t errlen);

/* smpol_record_merge for several nodes of one step at once: entries is {NODE:ENTRY,...}
 * (a step's collector writes them in one update). */
int smpol_record_merge_nodes(const char *comment, const char *step, json_object *entries, size_t budget,
			    char **merged, char *err, size_t errlen);

/*
 * smpol_record_contains - whether comment holds this entry for step/node (equal
 * content), or a summary of that step that names the node.
 */
bool smpol_record_contains(const char *comment, const char *step, const char *node, json_object *entry);

/*
 * smpol_record_names_dropped - whether step's summary lost its node names to the
 * budget: it then neither shows nor denies a node's entry (smpol_record_contains says
 * false), and a node folded into it again is counted again.
 */
bool smpol_record_names_dropped(const char *comment, const char *step);

/*
 * smpol_record_find - our record in an AdminComment. 0 with *record a new reference
 * (json_object_put it); -ENOENT when the comment holds none; -EBADMSG when a marked
 * or keyed record is there but is not valid (the sentence says what is wrong).
 */
int smpol_record_find(const char *comment, json_object **record, char *err, size_t errlen);

/*
 * smpol_placement_drift - how far the achieved placement is from the target: half the
 * L1 distance between the two share vectors (0 = exact, 1 = disjoint), over nodes
 * 0..max_node. target holds shares or expected pages (normalized here). Returns a
 * negative value when either side is empty.
 */
double smpol_placement_drift(const double *target, const uint64_t *pages, int max_node);

#endif
