/* bw_sources.h - one bandwidth table from every source, by precedence (bandwidth.h).
 *
 * slurmstepd resolves it once per step (and keeps it with the step's placement);
 * `mpolctl plan`, `show` and `check` resolve it the same way, so they show what a step
 * would decide with. What each source gave or why it gave nothing is kept in the
 * origin, for logs, `show` and `check`.
 */
#ifndef SMPOL_BW_SOURCES_H
#define SMPOL_BW_SOURCES_H

#include <stdbool.h>
#include <stddef.h>

#include "bandwidth.h"
#include "bw_file.h"
#include "error.h"
#include "topology.h"

struct smpol_bw_origin {
	char table_path[1024];        /* the table file asked for, "" = none */
	bool table_named;             /* named explicitly (its absence is an error), not the default */
	int table_rc;                 /* 0 used, -ENOENT absent, else refused: table_why */
	char table_why[SMPOL_ERRLEN];
	int acpi_rc;                  /* 0 used (acpi_why says how much), else why not */
	char acpi_why[SMPOL_ERRLEN];
	char machine[256];            /* this machine's identity (bw_file.h) */
};

/*
 * smpol_bw_resolve - the table for this topology: sysfs HMAT for every CPU node x
 * memory node, the raw HMAT over it, then the table file at table_path (NULL or "" =
 * none; `named` says the site named it, so a missing file is worth a warning) unless it
 * does not match this node. Sources that fail are left out and said so in origin,
 * never an error. 0 or -ENOMEM.
 */
int smpol_bw_resolve(const struct smpol_topology *topo, const char *table_path, bool named,
		     struct smpol_bw_table *out, struct smpol_bw_origin *origin);

/*
 * smpol_bw_origin_warning - one sentence when a source the site asked for was refused
 * or missing (a named table missing, malformed or foreign); "" otherwise. For the
 * slurmd log and `mpolctl plan`'s warnings.
 */
void smpol_bw_origin_warning(const struct smpol_bw_origin *o, char *buf, size_t len);

#endif
