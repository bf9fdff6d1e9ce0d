/* site.h - the site's plugstack arguments for verbs that act as the plugin would.
 *
 * `mpolctl plan`, `show`, `check` and `calibrate` read mem_interleave.so's line
 * (plugstack.h; --plugstack FILE names another plugstack.conf) so that they use the
 * bandwidth table and state directory the plugin uses. --bandwidth FILE|none and
 * --statedir override the line; a missing or unparseable line leaves the defaults,
 * and says why. Under --fsroot (another machine's sysfs) neither this host's line nor
 * its default table is read: only what --plugstack and --bandwidth name.
 */
#ifndef MPOLCTL_SITE_H
#define MPOLCTL_SITE_H

#include <stdbool.h>

#include "bw_sources.h"
#include "cli.h"
#include "plugstack.h"
#include "site_config.h"

struct cli_site {
	struct smpol_site_config cfg;  /* the line's arguments over the defaults, then the options */
	enum smpol_bw_source max_source;  /* --max-source */
	struct smpol_plugstack_line line;
	int line_rc;                   /* 0 found and parsed; else why says */
	char why[SMPOL_ERRLEN];
};

/* Read the line and apply c's --bandwidth and --statedir into s (cli_site_free it
 * after). Fails only when memory runs out: then it says so and exits 1. */
void cli_site_read(const struct cli_common *c, struct cli_site *s);
void cli_site_free(struct cli_site *s);

/*
 * cli_site_usable - whether a verb that acts as the plugin would may go on with s: 1
 * when the line parsed, or when the file read has none (a node without the plugin, or
 * an empty --plugstack FILE: the defaults, quietly); 0 after saying why on stderr when
 * the line is there but the plugin would refuse it (its plans would be ones no job
 * gets), or when the --plugstack FILE given cannot be read.
 */
bool cli_site_usable(const struct cli_common *c, const struct cli_site *s, const char *verb);

/* The bandwidth table the plugin would use on this topology (bw_sources.h), without
 * the sources ranked above --max-source. 0 or -ENOMEM. */
int cli_site_bandwidth(const struct cli_site *s, const struct smpol_topology *topo, struct smpol_bw_table *t,
		       struct smpol_bw_origin *origin);

/* One line: which sources gave the table, and why the others did not. */
void cli_print_bw_origin(const struct smpol_bw_origin *o);

/* The same as a JSON object (table, table_used, table_note, acpi_used, acpi_note,
 * machine). */
struct json_object *cli_json_bw_origin(const struct smpol_bw_origin *o);

#endif
