/* record.h - the placement record kept in a job's AdminComment (json-c).
 *
 * Our record is one JSON object under the key "mempolicy":
 *   {"v":1,"unit_kib":4,"steps":{STEP:{NODE:ENTRY,...},...}}
 * STEP is "0", "1", ... or "batch"/"extern"/"interactive"; NODE a Slurm node name.
 * A requeued job's later runs add "run":N (struct smpol_record_run): each run's record
 * is its own row's in accounting, and a merge replaces another run's record.
 * A step written while some of its nodes had not handed their entries in names them
 * in "missing":{NODE:"ids"} (record_missing.h).
 * ENTRY (smpol_record_entry_build) holds the modes, kernel path, plans, target shares,
 * pages per NUMA node (last sample and peak, in 4 KiB pages) and the drift; doc/
 * mem_interleave.8 (RECORD) has the full schema.
 *
 * Where it lives in the AdminComment (or another field: Extra, SystemComment), so that
 * other text is never lost (a comment that starts with jobstats' "JS1:" is not written
 * into at all: -EEXIST, and the writers put the record into SystemComment instead):
 *   - empty comment: the comment becomes {"mempolicy":{...}};
 *   - a JSON object (without a foreign "mempolicy" key): our key is added or replaced,
 *     every other key is kept (json-c rewrites the object in compact form);
 *   - anything else (plain text, a JSON array, malformed JSON, an object whose
 *     "mempolicy" is not ours, which includes a record of another version such as a
 *     future "v":3): the text is kept byte for byte and the record follows
 *     the marker SMPOL_RECORD_MARK (" mempolicy=" then the object); an existing marked
 *     record is replaced in place, so text after it survives too.
 *
 * Never a step dropped: when our object would exceed the budget, it is folded
 * (record_fold.h), the oldest steps first and the step being written last, into
 *   "folded":{"same":[{"ids":"0-131,140","nsteps":133,"nodes":{NODE:ENTRY}}],
 *             "by_node":{"ids":...,"nsteps":...,"nodes":{NODE:TOTAL}},
 *             "job":{"ids":...,"nsteps":...,"hosts":[...],TOTAL}}
 * identical steps (same nodes, plans and outcome; pages added up) first, then per
 * node across steps, then the whole job; a step of many nodes may also become one
 * summary entry "*" (node count and names, pages summed). Every step stays counted
 * ("nsteps"); the step lists ("ids", step_ids.h) and node names go only when even the
 * job's total would not fit otherwise. A record is written as version 1 while nothing
 * is folded (readers of version 1 still read it) and as version 2 once it is.
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
/* The newest version this build reads and writes; an unfolded record is written as
 * SMPOL_RECORD_VERSION_FLAT, which it also reads. */
#define SMPOL_RECORD_VERSION 2
#define SMPOL_RECORD_VERSION_FLAT 1
/* Marks the record in a comment that is not a JSON object: "text mempolicy={...}". */
#define SMPOL_RECORD_MARK "mempolicy="
/* Princeton's jobstats keeps "JS1:" + base64(gzip(JSON)) in AdminComment: a comment
 * starting so is never written into (see smpol_record_merge). */
#define SMPOL_JOBSTATS_MARK "JS1:"

/* Whether comment holds a jobstats summary: it starts with SMPOL_JOBSTATS_MARK, in any
 * case (Slurm 22.05's sacctmgr lower-cases what it stores). */
bool smpol_record_is_jobstats(const char *comment);
/* Bytes our object may take before steps are folded: in AdminComment (a text column
 * of 64 KiB in slurmdbd; a quarter of it, so that other users of the field keep room),
 * and in Extra, which slurmctld refuses past 1024 bytes on submit and update alike
 * (Slurm 23.02 to 26.05), leaving room for {"mempolicy":...} and a little foreign text. */
#define SMPOL_RECORD_BUDGET 16384
#define SMPOL_RECORD_BUDGET_EXTRA 900
/* The key of a step's summary entry (no Slurm node is named "*"). */
#define SMPOL_RECORD_SUMMARY "*"

/* The record's keys, one definition each: written and summarized by record.c, read
 * by mpolctl report (doc/mem_interleave.8 RECORD has what each holds). */
#define SMPOL_REC_VERSION "v"
#define SMPOL_REC_UNIT_KIB "unit_kib"
#define SMPOL_REC_STEPS "steps"
#define SMPOL_REC_RUN "run"             /* the job's run (requeues); absent: run 0 */
#define SMPOL_REC_MISSING "missing"     /* {NODE:"ids"}: steps written without NODE's entry
                                         * (record_missing.h) */
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
/* the folded part (record_fold.h) */
#define SMPOL_REC_FOLDED "folded"
#define SMPOL_REC_SAME "same"           /* groups of identical steps */
#define SMPOL_REC_BY_NODE "by_node"     /* per node, across steps */
#define SMPOL_REC_JOB "job"             /* the whole job */
#define SMPOL_REC_IDS "ids"             /* the steps folded there: "0-131,140" */
#define SMPOL_REC_NSTEPS "nsteps"       /* how many steps that is */
#define SMPOL_REC_ENTRIES "nodes"       /* a group's or by_node's {NODE:ENTRY} */

/* Which run of a job a record is of. Slurm starts a requeued job again under the same
 * id, and accounting keeps each run as a row of its own (sacct -D): a run's record
 * goes into its own row, and names the run when it is not the first. */
struct smpol_record_run {
	uint32_t job;
	uint32_t run;           /* Slurm's restart count: 0, then one more per requeue */
	int64_t started;        /* Unix time the step started on the node, inside its run */
};

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
	const char *const *kind;        /* "dram", "cxl", "hbm" per node below nkind, NULL = unknown */
	int nkind;
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
 * smpol_record_merge - the AdminComment with ENTRY stored under step/node of the job's
 * run (its restart count), keeping everything else in comment (NULL = empty).
 * *merged is malloc'ed. A record of another run in comment (slurmctld carries a
 * requeued job's comment into its next run) belongs to that run's row and is
 * replaced, in place, by this run's. The record is folded (record_fold.h) when our
 * object would exceed budget bytes; -E2BIG when even one total for the job does not
 * fit. An entry the folded part counts already (it names the step and the node) is
 * not counted again.
 */
int smpol_record_merge(const char *comment, uint32_t run, const char *step, const char *node,
		      json_object *entry, size_t budget, char **merged, char *err, size_t errlen);

/*
 * smpol_record_put - comment with our record replaced by record, a whole record of
 * ours (a copy kept from another field), or with record added where it holds none;
 * other text is kept as smpol_record_merge keeps it. *merged is malloc'ed. -EEXIST on
 * a jobstats summary, -EINVAL when record is not a record of ours.
 */
int smpol_record_put(const char *comment, json_object *record, char **merged, char *err, size_t errlen);

/* {NODE:ENTRY} of one node, a new object in *entries. -EINVAL without a node name. */
int smpol_record_one_node(const char *node, json_object *entry, json_object **entries, char *err, size_t errlen);

/* {STEP:{NODE:ENTRY}} of one step (record_store.h), a new object in *steps holding a
 * reference to entries. -EINVAL without a step name. */
int smpol_record_one_step(const char *step, json_object *entries, json_object **steps, char *err, size_t errlen);

/* Whether steps ({STEP:{NODE:ENTRY},...}) holds at least one step, each named, with
 * named node entries that are objects (or null, record_missing.h): what a merge takes.
 * 0, or -EINVAL with a sentence naming what is wrong. */
int smpol_record_check_steps(json_object *steps, char *err, size_t errlen);

/* smpol_record_merge for several nodes of one step at once: entries is {NODE:ENTRY,...}
 * (a step's collector writes them in one update). {NODE:null}: the writer has no entry
 * of that node of the step; the record names it missing (record_missing.h) unless it
 * holds the node's entry of the step already. */
int smpol_record_merge_nodes(const char *comment, uint32_t run, const char *step, json_object *entries,
			    size_t budget, char **merged, char *err, size_t errlen);

/* smpol_record_merge_nodes for every step of steps ({STEP:{NODE:ENTRY}}, in that
 * order, so oldest first) in one parse of comment: each step is fitted within budget
 * as it is merged, as merging them one after another would. -EINVAL when steps is not
 * what a merge takes (smpol_record_check_steps). */
int smpol_record_merge_steps(const char *comment, uint32_t run, json_object *steps, size_t budget, char **merged,
			     char *err, size_t errlen);

/*
 * smpol_record_contains - whether comment holds this entry for step/node of run (equal
 * content; entry NULL: any entry of the node), or a summary or folded part that lists
 * the step and names the node.
 */
bool smpol_record_contains(const char *comment, uint32_t run, const char *step, const char *node,
			   json_object *entry);

/* Whether comment's record of run names node missing from step (record_missing.h): a
 * writer that had no entry of the node ({NODE:null}) confirms its write by it. */
bool smpol_record_names_missing(const char *comment, uint32_t run, const char *step, const char *node);

/*
 * smpol_record_names_dropped - whether step's entry on node went into a summary or
 * folded part that lost its node names or step list to the budget: it then neither
 * shows nor denies the entry (smpol_record_contains says false), and the entry
 * merged again is counted again.
 */
bool smpol_record_names_dropped(const char *comment, uint32_t run, const char *step, const char *node);

/* The three questions above of a record found already (smpol_record_find; NULL: none),
 * for a loop over many steps and nodes: one parse of the comment, not one per question. */
bool smpol_record_holds(json_object *record, uint32_t run, const char *step, const char *node, json_object *entry);
bool smpol_record_holds_missing(json_object *record, uint32_t run, const char *step, const char *node);
bool smpol_record_holds_dropped(json_object *record, uint32_t run, const char *step, const char *node);

/* The run a record (our object) is of: its "run", 0 when absent. */
uint32_t smpol_record_run_of(json_object *record);

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
