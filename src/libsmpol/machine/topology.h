/* topology.h - what a node's memory looks like, read from sysfs under a root.
 *
 * The reader takes a filesystem root ("/" on a live system; a captured tree for
 * tests, like hwloc's HWLOC_FSROOT) and returns every online NUMA node with its
 * CPUs, memory, HMAT access classes and tier (the weights table is wi.h's).
 * Missing or malformed files never fail the read: the value is left unknown and a
 * warning says which file and why. Only an unreadable node list is an error.
 */
#ifndef SMPOL_TOPOLOGY_H
#define SMPOL_TOPOLOGY_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

#include "bitmap.h"
#include "error.h"
#include "host.h"

/* HMAT access class: 0 = best initiator of any kind, 1 = best CPU initiator. */
#define SMPOL_ACCESS_CLASSES 2

struct smpol_access {
	bool valid;            /* the accessN directory had usable numbers */
	uint32_t read_bw;      /* MB/s, 0 = unknown */
	uint32_t write_bw;     /* MB/s, 0 = unknown */
	uint32_t read_lat;     /* ns, 0 = unknown */
	uint32_t write_lat;    /* ns, 0 = unknown */
	/* node ids listed in accessN/initiators: few, so held as a grown id set (bitmap.h's
	 * struct smpol_cpus, which holds any ids below SMPOL_MAX_CPUS), the node's */
	struct smpol_cpus initiators;
};

enum smpol_node_kind {
	SMPOL_KIND_UNKNOWN,
	SMPOL_KIND_DRAM,
	SMPOL_KIND_CXL,
	SMPOL_KIND_HBM,
};

struct smpol_node {
	int id;
	bool has_cpu;
	bool has_memory;
	struct smpol_cpus cpus;     /* the topology's (smpol_topology_free) */
	uint64_t mem_total_kb;  /* 0 = unknown or empty */
	uint64_t mem_free_kb;
	int tier;               /* memory_tierN that lists this node, -1 = unknown */
	struct smpol_access access[SMPOL_ACCESS_CLASSES];
	int *distance;          /* distance[i] to topology->nodes[i], nnodes entries; NULL = unknown */
	enum smpol_node_kind kind;   /* why: smpol_node_kind_reason */
};

struct smpol_topology {
	const struct smpol_host *host;   /* where it was read: the caller's, which outlives it */
	struct smpol_node *nodes;   /* online nodes, ascending id */
	int nnodes;
	struct smpol_bitmap possible;
	struct smpol_bitmap online;
	int cpu_ids;                /* CPU ids are below it: cpu/possible's highest + 1 (the
	                             * kernel's nr_cpu_ids), SMPOL_MAX_CPUS when unreadable */
	char **warnings;           /* sentences; nwarnings of them */
	int nwarnings;
};

/*
 * smpol_topology_read - read the topology under the host's fsroot.
 * On success the caller owns topo and frees it with smpol_topology_free; topo points
 * to h (its sources and the lease read the same tree), so h must outlive it.
 * Returns 0, or -errno when not even the node list can be read.
 */
int smpol_topology_read(const struct smpol_host *h, struct smpol_topology *topo, char *err, size_t errlen);
void smpol_topology_free(struct smpol_topology *topo);

/* What one node holds (CPUs, initiators, distances), for nodes built by hand. */
void smpol_node_free(struct smpol_node *n);

/* A deep copy without the warnings, of the same host (free it with smpol_topology_free).
 * 0 or -ENOMEM. */
int smpol_topology_copy(const struct smpol_topology *src, struct smpol_topology *dst);

/* The node with this id, or NULL when it is not online. */
const struct smpol_node *smpol_topology_node(const struct smpol_topology *topo, int id);

/*
 * smpol_node_bandwidth - the bandwidth (MB/s) the kernel would use for this node:
 * min(read, write) of access class 1, else class 0; 0 when HMAT gives nothing.
 * When only one direction is known, that one.
 */
uint32_t smpol_node_bandwidth(const struct smpol_node *node);

/* The access class to describe this node by: class 1 when it has data, else class 0,
 * else NULL (no HMAT data). */
const struct smpol_access *smpol_node_access(const struct smpol_node *node);

/*
 * smpol_node_initiator - the CPU node this memory is local to: the node itself when
 * it has CPUs, else the first CPU node in its access1 (then access0) initiators,
 * else the CPU node at the smallest distance; -1 when none can be found.
 */
int smpol_node_initiator(const struct smpol_topology *topo, const struct smpol_node *node);

const char *smpol_node_kind_name(enum smpol_node_kind kind);

/* Why the node's kind was guessed ("memory-only, 64000 MB/s < node0's 224000 MB/s"),
 * told from the topology as the reader told it, into buf. */
void smpol_node_kind_reason(const struct smpol_topology *topo, const struct smpol_node *n, char *buf, size_t len);

#endif
