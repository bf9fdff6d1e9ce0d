/* record_gather.h - one writer per step: the nodes of a multi-node step hand their
 * record entries up a fan-in tree to the step's first node, which writes them all in
 * one update.
 *
 * Why: every node reading and writing the job's AdminComment itself costs slurmctld
 * about 4 RPCs per node at the moment the step ends, all on the job write lock, and
 * nodes that race drop each other's entries. Collected, a step costs slurmctld one
 * read and one update whatever its size.
 *
 * Transport: slurmd's REQUEST_FORWARD_DATA, the channel Slurm's own MPI plugins use
 * between the nodes of a step (munge-authenticated). The receiving slurmd connects to
 * a unix socket as the sender's uid and writes the sender's uid and the data's length
 * (4 bytes each, network order), then the data. The collector listens on
 * STATEDIR/gather/JOB.STEP.sock; the directory is root's alone (0700), and a
 * connection counts only when its peer and the uid slurmd vouches for are both root,
 * so a user's forward (connected as the user) cannot reach it and its entries cannot
 * be forged. The data is one JSON object: {"job":J,"step":"S","entries":{"NAME":{...},...}}.
 *
 * Tree: slurmd forks once for every delivery (to connect as the sender), and the forks
 * of one slurmd do not overlap, so a thousand nodes delivering to one would keep its
 * slurmd forking for seconds at the step's end. The nodes, by their index in the step,
 * form a tree of fanout k = ceil(sqrt(N)) (2 to 64): node i > 0 delivers to node
 * (i-1)/k, a node with children collects its subtree's entries first and delivers them
 * in one message. Two levels up to 4096 nodes, no slurmd takes more than k deliveries
 * per round. The plugin hands entries up after each sample, while the tasks run
 * (record_step.c), so a step's end usually has nothing left to deliver.
 */
#ifndef SMPOL_RECORD_GATHER_H
#define SMPOL_RECORD_GATHER_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "host.h"

/* Largest message accepted (a node's entry is about 1 KiB; a subtree's at most 65). */
#define SMPOL_GATHER_MAX (256 * 1024)
#define SMPOL_GATHER_FANOUT_MAX 64

struct smpol_gather;

/* The socket path of a step's collector into buf. 0 or -ENAMETOOLONG (a unix socket
 * path holds at most 107 bytes) with a sentence. */
int smpol_gather_path(const struct smpol_host *h, uint32_t job, const char *step, char *buf, size_t len,
		      char *err, size_t errlen);

/* Listen for the step's entries (a stale socket of a dead step is replaced). *g is
 * freed by smpol_gather_close. 0 or -errno with a sentence. */
int smpol_gather_open(const struct smpol_host *h, uint32_t job, const char *step, struct smpol_gather **g,
		      char *err, size_t errlen);

/* The listening descriptor, to poll for POLLIN. */
int smpol_gather_fd(const struct smpol_gather *g);

/*
 * smpol_gather_accept - take one waiting connection (never blocks for a connection; a
 * connected sender has 2 s to deliver) and add its entry to entries ({NODE:ENTRY}).
 * 0 added; -EAGAIN nothing was waiting; -EPERM not root; -EBADMSG malformed, too
 * large, or for another job or step (the sentence says which). A rejected message
 * changes nothing.
 */
int smpol_gather_accept(struct smpol_gather *g, json_object *entries, char *err, size_t errlen);

/* The entries in a message (the data a sender delivered), checked against want_job and
 * want_step, added to entries under the nodes they name. 0, or -EBADMSG with a
 * sentence (malformed, another job or step, no entry, an entry not a plain JSON
 * object, a node name that is empty, longer than 255 bytes or holds blanks or control
 * characters: one bad entry drops the whole message), entries unchanged. */
int smpol_gather_parse(uint32_t want_job, const char *want_step, const char *text, json_object *entries,
		       char *err, size_t errlen);

/* Stop taking new senders (their connect then fails, and they write the record
 * themselves); connections already made are still taken by smpol_gather_accept. */
void smpol_gather_stop(struct smpol_gather *g);

/* Close and free (also stops). */
void smpol_gather_close(struct smpol_gather *g);

/* The message a node sends, its own entry and its subtree's ({NODE:ENTRY}): malloc'ed
 * JSON text, or NULL when out of memory. */
char *smpol_gather_message(uint32_t job, const char *step, json_object *entries);

/* The tree over a step's nnodes nodes (by index in the step; 0 writes the record):
 * its fanout; node's parent (node > 0); how many children node has; how many nodes
 * node's subtree holds, itself included (1: a leaf); how many deliveries node's entry
 * takes to reach node 0. */
uint32_t smpol_gather_fanout(uint32_t nnodes);
uint32_t smpol_gather_parent(uint32_t node, uint32_t nnodes);
uint32_t smpol_gather_children(uint32_t node, uint32_t nnodes);
uint32_t smpol_gather_subtree(uint32_t node, uint32_t nnodes);
uint32_t smpol_gather_depth(uint32_t node, uint32_t nnodes);

/* Deliver a message to a collector on this node the way slurmd does (uid, length,
 * data), as this process's uid. 0 or -errno with a sentence. */
int smpol_gather_send_local(const char *path, const char *message, char *err, size_t errlen);

#endif
