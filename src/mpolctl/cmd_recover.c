/* cmd_recover.c - `mpolctl recover`: put back the weights a crashed job step left, and
 * remove the kept placements of steps that died. */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "commands.h"
#include "lease.h"
#include "site_config.h"
#include "step_state.h"
#include "wi.h"

enum { OPT_FORCE = 0x200 };

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mpolctl recover [--statedir DIR] [--force] [--fsroot DIR] [--json]\n"
		"\n"
		"A job step that writes the node's interleave weights first journals the table it\n"
		"replaces. When the step dies without restoring it (slurmstepd killed), the\n"
		"journal stays; this puts the journaled table back and removes the journal. The\n"
		"next step that needs the weights does the same by itself. The kept placements\n"
		"of steps whose slurmstepd died are removed too (the next step does that also).\n"
		"\n"
		"  --statedir DIR  the plugin's state directory (default " SMPOL_DEFAULT_STATEDIR ")\n"
		"  --force         restore even though the holder still runs (it will not\n"
		"                  restore a second time: its release finds no journal)\n"
		"  --fsroot DIR    act on sysfs under DIR instead of / (default: $MPOL_FSROOT)\n"
		"  --json          print one JSON object\n"
		"  -h, --help      show this help\n");
}

static void print_json(const char *statedir, const struct smpol_lease_state *st, const char *table, const char *note,
		       int kept_removed)
{
	struct json_object *obj = json_object_new_object();

	json_object_object_add(obj, "statedir", json_object_new_string(statedir));
	json_object_object_add(obj, "restored", json_object_new_boolean(st->restored));
	if (st->held) {
		json_object_object_add(obj, "job_id", json_object_new_int64(st->owner.job_id));
		json_object_object_add(obj, "step_id", json_object_new_int64(st->owner.step_id));
		json_object_object_add(obj, "uid", json_object_new_int64(st->owner.uid));
		json_object_object_add(obj, "pid", json_object_new_int64(st->owner.pid));
		json_object_object_add(obj, "holder_alive", json_object_new_boolean(st->holder_alive));
		json_object_object_add(obj, "weights", json_object_new_string(table));
	}
	if (note)
		json_object_object_add(obj, "note", json_object_new_string(note));
	json_object_object_add(obj, "kept_placements_removed", json_object_new_int(kept_removed));
	cli_print_json(obj);
}

int cmd_recover(int argc, char **argv)
{
	static const struct option options[] = {
		CLI_STATEDIR_OPTION,
		{ "force", no_argument, NULL, OPT_FORCE },
		CLI_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_common c;
	struct smpol_lease_state st;
	char err[SMPOL_ERRLEN] = "", kerr[SMPOL_ERRLEN] = "", table[8192] = "";
	int removed = 0;
	bool force = false;
	int opt;

	cli_common_init(&c);
	while ((opt = cli_getopt(&c, "recover", argc, argv, ":h", options)) != -1) {
		switch (opt) {
		case OPT_FORCE: force = true; break;
		default: cli_common_option(&c, "recover", opt, argc, argv, usage);
		}
	}
	cli_no_operands(&c, "recover", argc, argv);
	if (smpol_lease_recover(&c.host, force, &st, err, sizeof(err)) < 0) {
		cli_error("recover", "%s", err);
		return 1;
	}
	if (smpol_step_state_reap(&c.host, &removed, kerr, sizeof(kerr)) < 0) {
		fprintf(stderr, "mpolctl recover: %s\n", kerr);
		return 1;
	}
	if (st.held)
		smpol_wi_format(&st.saved, table, sizeof(table));
	if (c.json) {
		print_json(c.host.statedir, &st, table, st.auto_failed ? err : NULL, removed);
		return 0;
	}
	if (removed)
		printf("removed %d kept placement(s) of steps whose slurmstepd died\n", removed);
	if (!st.held) {
		printf("nothing to recover: no weights journal in %s\n", c.host.statedir);
		return 0;
	}
	printf("restored the weights journaled by job %u step %u (uid %u, pid %d, %s): %s\n", st.owner.job_id,
	       st.owner.step_id, (unsigned)st.owner.uid, (int)st.owner.pid,
	       st.holder_alive ? "still running, --force" : "no longer running", table);
	if (st.auto_failed)
		printf("note: %s\n", err);
	return 0;
}
