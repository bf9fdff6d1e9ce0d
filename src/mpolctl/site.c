/* site.c - the plugstack line's arguments for mpolctl verbs (see site.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "site.h"
#include "text.h"

static void out_of_memory(void)
{
	cli_error(NULL, "out of memory reading the site's configuration");
	exit(cli_finish(1));
}

void cli_site_read(const struct cli_common *c, struct cli_site *s)
{
	char err[SMPOL_ERRLEN];

	memset(s, 0, sizeof(*s));
	if (smpol_config_default(&s->cfg) < 0)
		out_of_memory();
	s->max_source = (enum smpol_bw_source)c->max_source;
	if (strcmp(c->host.fsroot, "/") && !c->plugstack) {
		/* another machine's sysfs: this host's plugstack line and table are not its */
		if (smpol_text_set(&s->cfg.bandwidth_file, "") < 0)
			out_of_memory();
		s->line_rc = -ENOENT;
		snprintf(s->why, sizeof(s->why), "sysfs is read under %.400s: this host's plugstack line is not read "
			 "(give --plugstack to)", c->host.fsroot);
	} else {
		s->line_rc = smpol_plugstack_find(c->plugstack, &s->line, s->why, sizeof(s->why));
	}
	if (!s->line_rc) {
		s->line_rc = smpol_config_parse(s->line.argc, s->line.argv, &s->cfg, err, sizeof(err));
		if (s->line_rc)
			snprintf(s->why, sizeof(s->why), "%.200s:%d: %.300s", s->line.file, s->line.lineno, err);
	}
	/* sysfs is where this command was told to look, not the line's fsroot=; the state
	 * directory is the line's unless --statedir names one */
	if (smpol_text_set(&s->cfg.host.fsroot, c->host.fsroot) < 0 ||
	    (c->statedir_given && smpol_text_set(&s->cfg.host.statedir, c->host.statedir) < 0) ||
	    (c->bandwidth && smpol_text_set(&s->cfg.bandwidth_file, strcmp(c->bandwidth, "none") ? c->bandwidth : "") < 0))
		out_of_memory();
	s->cfg.host.lock_timeout_ms = c->host.lock_timeout_ms;
	if (c->bandwidth)
		s->cfg.bandwidth_named = true;
}

void cli_site_free(struct cli_site *s)
{
	smpol_config_free(&s->cfg);
}

bool cli_site_usable(const struct cli_common *c, const struct cli_site *s, const char *verb)
{
	/* no line in a file that was read: the plugin's defaults, as documented */
	if (!s->line_rc || (!s->line.file[0] && (!c->plugstack || s->line_rc == -ENOMSG)))
		return true;
	if (s->line.file[0])
		cli_error(verb, "%s; the plugin refuses this line (jobs that ask for it fail), so nothing is shown "
			  "as if it applied: correct it (mpolctl check reports it too)", s->why);
	else
		cli_error(verb, "--plugstack: %s", s->why);
	return false;
}

int cli_site_bandwidth(const struct cli_site *s, const struct smpol_topology *topo, struct smpol_bw_table *t,
		       struct smpol_bw_origin *origin)
{
	int rc = smpol_bw_resolve(topo, s->cfg.bandwidth_file, s->cfg.bandwidth_named, t, origin);
	int kept = 0;

	for (int i = 0; !rc && i < t->nentries; i++)
		if (t->entries[i].source <= s->max_source)
			t->entries[kept++] = t->entries[i];
	if (!rc)
		t->nentries = kept;
	return rc;
}

/* Where the bandwidth table came from, one line each source asked for. */
void cli_print_bw_origin(const struct smpol_bw_origin *o)
{
	printf("bandwidth sources (first that has a pair wins): ");
	if (!o->table_path[0])
		printf("no table; ");
	else if (o->table_rc == -ENOENT)
		printf("no table (%s); ", o->table_why);
	else
		printf("table %s: %s; ", o->table_rc ? "not used" : "used", o->table_why);
	printf("raw ACPI HMAT: %s%s; sysfs HMAT\n", o->acpi_rc ? "not used: " : "", o->acpi_why);
}

json_object *cli_json_bw_origin(const struct smpol_bw_origin *o)
{
	json_object *j = json_object_new_object();

	json_object_object_add(j, "table", o->table_path[0] ? json_object_new_string(o->table_path) : NULL);
	json_object_object_add(j, "table_used", json_object_new_boolean(o->table_path[0] && !o->table_rc));
	json_object_object_add(j, "table_note", json_object_new_string(o->table_why));
	json_object_object_add(j, "acpi_used", json_object_new_boolean(!o->acpi_rc));
	json_object_object_add(j, "acpi_note", json_object_new_string(o->acpi_why));
	json_object_object_add(j, "machine", json_object_new_string(o->machine));
	return j;
}
