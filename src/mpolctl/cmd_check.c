/* cmd_check.c - `mpolctl check`: a node doctor for HMAT, the weights table and the
 * plugin's own configuration. It changes nothing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "checks.h"
#include "cli.h"
#include "commands.h"
#include "plugstack.h"
#include "site.h"

#define VERB "check"

enum { OPT_QUIET = 0x200 };

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mpolctl check [--quiet] [--json] [--fsroot DIR] [--statedir DIR]\n"
		"                     [--plugstack FILE] [--bandwidth FILE|none]\n"
		"\n"
		"Check this node as the plugin sees it and report findings, each with a severity\n"
		"and what to do: HMAT per memory node (access0/access1, read and write, their\n"
		"ratio, memory-only nodes, initiators, the raw ACPI table), the kernel's\n"
		"weighted-interleave table (present, a weight for every memory node, the system\n"
		"weights where auto is off, a lease left by a dead step, kept placements of dead\n"
		"steps), the plugin's configuration (its plugstack line; the programs the line\n"
		"names, dbd_client= and preload=, without --fsroot; the state directory; the\n"
		"bandwidth table and where it disagrees with HMAT) and hwloc's reading of the\n"
		"same HMAT where hwloc is installed. It changes nothing; run it by hand, as\n"
		"Slurm's HealthCheckProgram or from a node-health framework (as root: some\n"
		"files are root's).\n"
		"\n"
		"Exit status: 0 nothing wrong (ok, info, or skipped: not readable by this user),\n"
		"3 warnings, 4 errors; 1 the check itself failed, 2 bad arguments. A health\n"
		"check drains on 4 only: a typo in its command line is 2, never a drain.\n"
		"\n"
		"  --quiet           one line: the worst findings (for health-check logs)\n"
		"  --json            print one JSON object\n"
		"  --fsroot DIR      read sysfs under DIR instead of / (default: $MPOL_FSROOT)\n"
		"  --statedir DIR    the plugin's state directory (default: the plugstack line's\n"
		"                    statedir=, else " SMPOL_DEFAULT_STATEDIR ")\n"
		"  --plugstack FILE  the plugstack.conf to find mem_interleave.so's line in\n"
		"                    (default: Slurm's)\n"
		"  --bandwidth FILE  the bandwidth table (none: no table; default: the line's\n"
		"                    bandwidth=, else " SMPOL_BW_FILE_DEFAULT ")\n"
		"  -h, --help        show this help\n");
}

/* The plugin's plugstack line: found, and parsed as the plugin parses it. */
static void check_plugstack(const struct cli_common *c, const struct cli_site *s, struct smpol_findings *f)
{
	if (!s->line_rc) {
		smpol_findings_add(f, SMPOL_SEV_OK, "plugstack", -1, "", "%s:%d: %s mem_interleave.so with %d argument(s) "
				   "parses", s->line.file, s->line.lineno, s->line.optional ? "optional" : "required",
				   s->line.argc);
		return;
	}
	if (strcmp(c->host.fsroot, "/") && !c->plugstack) {
		smpol_findings_add(f, SMPOL_SEV_INFO, "plugstack", -1, "", "%s", s->why);
		return;
	}
	if (s->line.file[0])
		smpol_findings_add(f, SMPOL_SEV_ERROR, "plugstack-invalid", -1, "correct the line: steps log the same "
				   "error and jobs that ask for the plugin fail", "%s", s->why);
	else
		smpol_findings_add(f, SMPOL_SEV_WARNING, "plugstack-missing", -1, "install the plugin (make install puts "
				   "a line in plugstack.conf.d) or give --plugstack", "%s", s->why);
}

static void topology_warnings(const struct smpol_topology *topo, struct smpol_findings *f)
{
	for (int i = 0; i < topo->nwarnings; i++)
		smpol_findings_add(f, SMPOL_SEV_WARNING, "sysfs", -1, "fix the kernel's or the firmware's data; plans "
				   "treat the value as unknown", "%s", topo->warnings[i]);
}

/* Apart from 1 (failed) and 2 (bad arguments), which every verb uses: a health-check
 * wrapper that drains on 4 alone cannot drain a node for a typo in its own line. */
enum { EXIT_CHECK_WARNINGS = 3, EXIT_CHECK_ERRORS = 4 };

static int exit_status(const struct smpol_findings *f)
{
	enum smpol_severity worst = smpol_findings_worst(f);

	return worst == SMPOL_SEV_ERROR ? EXIT_CHECK_ERRORS : worst == SMPOL_SEV_WARNING ? EXIT_CHECK_WARNINGS : 0;
}

static void print_quiet(const struct smpol_findings *f)
{
	int errors = smpol_findings_count(f, SMPOL_SEV_ERROR), warnings = smpol_findings_count(f, SMPOL_SEV_WARNING);
	enum smpol_severity worst = smpol_findings_worst(f);

	if (worst == SMPOL_SEV_SKIPPED) {
		printf("mpolctl check: no warnings or errors in what this user may read; not checked:");
		for (int i = 0; i < f->n; i++)
			if (f->v[i].severity == SMPOL_SEV_SKIPPED)
				printf(" %s", f->v[i].code);
		printf(" (run it as root)\n");
		return;
	}
	if (worst < SMPOL_SEV_WARNING) {
		printf("mpolctl check: ok\n");
		return;
	}
	for (int i = 0; i < f->n; i++) {
		if (f->v[i].severity != worst)
			continue;
		printf("mpolctl check: %d error(s), %d warning(s); first: %s: %s\n", errors, warnings, f->v[i].code,
		       f->v[i].what);
		return;
	}
}

static void print_text(const struct smpol_findings *f)
{
	for (int i = 0; i < f->n; i++) {
		const struct smpol_finding *x = &f->v[i];

		printf("%-7s %-31s %s\n", smpol_severity_name(x->severity), x->code, x->what);
		if (x->todo[0] && x->severity > SMPOL_SEV_OK)
			printf("%-7s %-31s -> %s\n", "", "", x->todo);
	}
	printf("\n%d error(s), %d warning(s), %d info, %d ok, %d skipped (not readable by this user): exit %d\n",
	       smpol_findings_count(f, SMPOL_SEV_ERROR), smpol_findings_count(f, SMPOL_SEV_WARNING),
	       smpol_findings_count(f, SMPOL_SEV_INFO), smpol_findings_count(f, SMPOL_SEV_OK),
	       smpol_findings_count(f, SMPOL_SEV_SKIPPED), exit_status(f));
}

static int print_json(const struct smpol_findings *f, const char *fsroot)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array(), *counts = json_object_new_object();

	json_object_object_add(o, "fsroot", json_object_new_string(fsroot));
	json_object_object_add(o, "status", json_object_new_string(smpol_severity_name(smpol_findings_worst(f))));
	json_object_object_add(o, "exit", json_object_new_int(exit_status(f)));
	for (int s = SMPOL_SEV_OK; s <= SMPOL_SEV_ERROR; s++)
		json_object_object_add(counts, smpol_severity_name(s), json_object_new_int(smpol_findings_count(f, s)));
	json_object_object_add(o, "counts", counts);
	for (int i = 0; i < f->n; i++) {
		json_object *x = json_object_new_object();

		json_object_object_add(x, "severity", json_object_new_string(smpol_severity_name(f->v[i].severity)));
		json_object_object_add(x, "code", json_object_new_string(f->v[i].code));
		json_object_object_add(x, "node", f->v[i].node >= 0 ? json_object_new_int(f->v[i].node) : NULL);
		json_object_object_add(x, "what", json_object_new_string(f->v[i].what));
		json_object_object_add(x, "todo", json_object_new_string(f->v[i].todo));
		json_object_array_add(arr, x);
	}
	json_object_object_add(o, "findings", arr);
	return cli_print_json(o);
}

/* Everything about this node's memory, once the topology is read. */
static int check_node(const struct cli_site *site, const struct smpol_topology *topo, struct smpol_findings *f)
{
	struct smpol_bw_table bw, hmat;
	struct smpol_bw_origin origin, hmat_origin;
	struct smpol_wi_table table;
	char table_err[SMPOL_ERRLEN] = "";
	bool lease_live;

	if (cli_site_bandwidth(site, topo, &bw, &origin) < 0)
		return -ENOMEM;
	if (smpol_bw_resolve(topo, NULL, false, &hmat, &hmat_origin) < 0) {
		smpol_bw_free(&bw);
		return -ENOMEM;
	}
	topology_warnings(topo, f);
	smpol_check_hmat(topo, &origin, f);
	smpol_wi_read(topo->host, &table, table_err, sizeof(table_err));
	smpol_check_state(&site->cfg.host, f, &lease_live);
	smpol_check_weights(topo, &table, table_err[0] ? table_err : NULL, &bw, lease_live, f);
	smpol_check_table(topo, site->cfg.bandwidth_file, site->cfg.bandwidth_named, origin.machine, &hmat, f);
	smpol_check_hwloc(topo, f);
	smpol_bw_free(&bw);
	smpol_bw_free(&hmat);
	return 0;
}

int cmd_check(int argc, char **argv)
{
	static const struct option options[] = {
		CLI_COMMON_OPTIONS,
		CLI_STATEDIR_OPTION,
		CLI_SITE_OPTIONS,
		{ "quiet", no_argument, NULL, OPT_QUIET },
		{ NULL, 0, NULL, 0 },
	};
	struct smpol_findings f = { 0 };
	struct smpol_topology topo;
	struct cli_common c;
	struct cli_site site;
	char err[SMPOL_ERRLEN];
	bool quiet = false;
	int opt, rc;

	cli_common_init(&c);
	while ((opt = cli_getopt(&c, VERB, argc, argv, ":hq", options)) != -1) {
		if (opt == OPT_QUIET || opt == 'q')
			quiet = true;
		else
			cli_common_option(&c, VERB, opt, argc, argv, usage);
	}
	cli_no_operands(&c, VERB, argc, argv);
	if (quiet && c.json)
		cli_usage_error(VERB, "--quiet and --json are two different outputs: give one");
	cli_site_read(&c, &site);
	check_plugstack(&c, &site, &f);
	/* the line's programs are this host's files: another machine's tree has none */
	if (!site.line_rc && !strcmp(c.host.fsroot, "/")) {
		smpol_check_helpers(&site.cfg, &f);
		smpol_check_record_field(&site.cfg, smpol_slurm_conf_path(), &f);
		smpol_check_courier(&site.cfg, &f);
	}
	if (smpol_topology_read(&c.host, &topo, err, sizeof(err)) == 0) {
		if (check_node(&site, &topo, &f) < 0)
			f.oom = 1;
		smpol_topology_free(&topo);
	} else {
		smpol_findings_add(&f, SMPOL_SEV_ERROR, "topology", -1, "check that sysfs is mounted (and --fsroot)",
				   "%s", err);
	}
	if (f.oom) {
		/* a machine short of memory is no finding about its HMAT: exit 1, not a drain */
		cli_error(VERB, "out of memory: the check is incomplete");
		smpol_findings_free(&f);
		return 1;
	}
	if (c.json) {
		rc = print_json(&f, c.host.fsroot);
	} else {
		if (quiet)
			print_quiet(&f);
		else
			print_text(&f);
		rc = fflush(stdout) ? 1 : 0;
	}
	if (!rc)
		rc = exit_status(&f);
	smpol_findings_free(&f);
	cli_site_free(&site);
	return rc;
}
