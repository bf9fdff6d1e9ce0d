/* bw_file.h - the bandwidth table file (default /etc/slurm/mem_interleave.bw).
 *
 * `mpolctl calibrate` writes it; an admin may add override lines, which calibrate
 * keeps. The plugin (plugstack argument bandwidth=), `mpolctl plan`, `show`, `check`
 * and `rebalance` read it. Text, one item a line, '#' starts a comment:
 *
 *   smpol-bandwidth 1                   first item: the format and its version
 *   machine VENDOR / PRODUCT / BOARD    DMI identity where it was measured (optional)
 *   node ID cpus=LIST memory=yes|no     the node list where it was measured (optional)
 *   info TEXT                           how it was measured (free text, kept)
 *   measured I T READ WRITE             MB/s from CPU node I to memory node T
 *   override I T READ WRITE             the admin's number for that pair
 *
 * READ or WRITE may be 0 (unknown), not both. A pair appears at most once per kind.
 * What makes a table belong to this node (smpol_bw_file_match): the same machine
 * line (when both sides know it), every node line naming an online node with the
 * same CPUs and memory, no other node with memory, every pair naming an online CPU
 * node and memory node, and the measured pairs covering every CPU node x memory node.
 * A table for one kind of machine serves every node of that kind: the identity holds
 * no serial number.
 */
#ifndef SMPOL_BW_FILE_H
#define SMPOL_BW_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "bandwidth.h"
#include "bitmap.h"
#include "host.h"
#include "topology.h"

#define SMPOL_BW_FILE_VERSION 1
#define SMPOL_BW_FILE_DEFAULT "/etc/slurm/mem_interleave.bw"

struct smpol_bw_file_node {
	int id;
	struct smpol_cpus cpus;
	bool memory;
};

struct smpol_bw_file {
	char machine[256];                 /* "" when the file has no machine line */
	struct smpol_bw_file_node *nodes;  /* malloc'ed */
	int nnodes;
	char info[512];                    /* info lines, joined by "; " */
	struct smpol_bw_table table;       /* the measured and override pairs */
};

/* Parse the text. 0, or -EBADMSG with "line N: ..." , -ENOMEM. */
int smpol_bw_file_parse(const char *text, struct smpol_bw_file *f, char *err, size_t errlen);

/* Read and parse path. -ENOENT (no sentence) when it does not exist; other errors
 * with a sentence naming the file. */
int smpol_bw_file_read(const char *path, struct smpol_bw_file *f, char *err, size_t errlen);

/* The file's text (malloc'ed), parseable by smpol_bw_file_parse. 0 or -ENOMEM. */
int smpol_bw_file_format(const struct smpol_bw_file *f, char **text);

/*
 * smpol_bw_file_match - does the table belong to this node (see above)? machine is
 * smpol_machine_identity's. 0, or -ESTALE with a sentence saying what differs
 * ("node 3 has memory here but is not in the table: hot-added since it was measured?
 * run mpolctl calibrate again").
 */
int smpol_bw_file_match(const struct smpol_bw_file *f, const struct smpol_topology *topo, const char *machine,
			char *err, size_t errlen);

/* The node list of this topology, as calibrate records it. 0 or -ENOMEM. */
int smpol_bw_file_set_nodes(struct smpol_bw_file *f, const struct smpol_topology *topo);

void smpol_bw_file_free(struct smpol_bw_file *f);

/*
 * smpol_machine_identity - "VENDOR / PRODUCT / BOARD" from /sys/class/dmi/id under the
 * fsroot (sys_vendor, product_name, board_name; "-" for each one missing). The
 * model, not the serial: identical nodes share a table.
 */
void smpol_machine_identity(const struct smpol_host *h, char *buf, size_t len);

#endif
