/* numa_maps.h - where a process's memory sits, from /proc/PID/numa_maps.
 *
 * Each line of numa_maps is one VMA: its start, the policy that governs it ("default",
 * "weighted interleave:0-1", "bind=static:2" ...), tokens such as file=PATH, heap,
 * stack, huge, and N<node>=<pages> counted in units of that VMA's kernelpagesize_kB
 * (4 for base pages and THP, 2048 or 1048576 for hugetlbfs). Counts are converted to
 * 4 KiB-page equivalents here, so a 2 MiB huge page counts 512 and sums stay exact.
 *
 * Anonymous VMAs (heap, stack, anonymous mappings) hold what the job allocated and
 * what its memory policy placed; file-backed VMAs (libraries, page cache, shm files)
 * are counted apart because they are often shared and placed by whoever read them
 * first. Reading numa_maps walks the page tables of the process: its cost grows with
 * resident memory (see bench/sampling).
 */
#ifndef SMPOL_NUMA_MAPS_H
#define SMPOL_NUMA_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "bitmap.h"

/* The unit of every page count below. */
#define SMPOL_PAGE_KIB 4
/* Distinct policies kept per usage; the rest are counted in policies_dropped. */
#define SMPOL_NUMA_POLICIES 4

struct smpol_numa_policy_pages {
	char policy[64];        /* as the kernel prints it: "weighted interleave:0-1" */
	uint64_t pages;         /* anonymous pages under this policy */
};

struct smpol_numa_usage {
	uint64_t anon[SMPOL_MAX_NODES];   /* per node, 4 KiB pages, anonymous VMAs */
	uint64_t file[SMPOL_MAX_NODES];   /* per node, 4 KiB pages, file-backed VMAs */
	int max_node;                    /* highest node with pages, -1 = none */
	int nprocs;                      /* processes summed in */
	int npolicies;                   /* policies[] sorted by pages, most first */
	struct smpol_numa_policy_pages policies[SMPOL_NUMA_POLICIES];
	int policies_dropped;
};

/* Empty usage: no pages, no processes. */
void smpol_numa_usage_init(struct smpol_numa_usage *u);

/*
 * smpol_numa_maps_parse - add the VMAs of one numa_maps text (one process) into u.
 * Unknown tokens are ignored (newer kernels add some); a line without an address or
 * with a bad N<node>= count fails with -EINVAL naming the line, and u is left as it
 * was. nprocs is incremented.
 */
int smpol_numa_maps_parse(const char *text, struct smpol_numa_usage *u, char *err, size_t errlen);

/*
 * smpol_numa_maps_read - read PROCROOT/proc/PID/numa_maps (procroot NULL or "" = "/")
 * and add it into u. -ENOENT or -ESRCH when the process is gone (callers sampling live
 * tasks skip it, it is not an error); -EACCES when not allowed to read it.
 */
int smpol_numa_maps_read(const char *procroot, pid_t pid, struct smpol_numa_usage *u,
			char *err, size_t errlen);

/* One process of a task's tree: its pid and its parent's (0 for the task itself). */
struct smpol_proc_member {
	pid_t pid;
	pid_t parent;
};

/*
 * smpol_proc_tree - pid, then every descendant found through
 * PROCROOT/proc/PID/task/TID/children at this moment, each after its parent, at most
 * max of them in out[] (*n). A task is often a shell or launcher whose memory lives in
 * a child, or an MPI daemon whose ranks are its children. Processes that exit meanwhile
 * are simply not found; -ENOENT/-ESRCH only when pid itself is gone.
 */
int smpol_proc_tree(const char *procroot, pid_t pid, int max, struct smpol_proc_member *out, int *n,
		    char *err, size_t errlen);

/*
 * smpol_numa_maps_text - the numa_maps text of pid (malloc'ed: free it), errors as
 * smpol_numa_maps_read.
 */
int smpol_numa_maps_text(const char *procroot, pid_t pid, char **text, char *err, size_t errlen);

/*
 * smpol_numa_maps_mapping - in one process's numa_maps text, the line of the mapping
 * that starts at `start`: its policy as the kernel prints it into policy[plen]
 * ("weighted interleave:0,2", "prefer:0") and its pages per node added into u (anon[]
 * or file[]; u is not reset). -ENOENT when no mapping starts there, -EINVAL for a
 * malformed line.
 */
int smpol_numa_maps_mapping(const char *text, uintptr_t start, char *policy, size_t plen,
			    struct smpol_numa_usage *u, char *err, size_t errlen);

/*
 * smpol_numa_maps_read_tree - pid and every descendant (smpol_proc_tree), at most
 * max_procs, summed into u; processes that exit meanwhile are skipped. -ENOENT/-ESRCH
 * only when pid itself is gone. (The sampler reads its trees process by process,
 * sample_tree.c; bench/sampling times one read of a whole tree.)
 */
int smpol_numa_maps_read_tree(const char *procroot, pid_t pid, int max_procs,
			     struct smpol_numa_usage *u, char *err, size_t errlen);

/* Sum of anon[] (4 KiB pages). */
uint64_t smpol_numa_usage_anon_total(const struct smpol_numa_usage *u);

/*
 * smpol_numa_policy_nodes - the node list of a policy as printed in numa_maps
 * ("weighted interleave:0-1" -> {0,1}; "bind=static:2" -> {2}). -ENOENT when the
 * policy names no nodes ("default", "local"), -EINVAL when the list is malformed.
 */
int smpol_numa_policy_nodes(const char *policy, struct smpol_bitmap *nodes);

#endif
