/* bw_sources.c - resolve every bandwidth source into one table (see bw_sources.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bw_acpi.h"
#include "bw_sources.h"

/* sysfs: each memory node's best-initiator figure, for every CPU node. */
static int put_sysfs(const struct smpol_topology *topo, struct smpol_bw_table *out)
{
	for (int t = 0; t < topo->nnodes; t++) {
		const struct smpol_access *a = smpol_node_access(&topo->nodes[t]);

		if (!topo->nodes[t].has_memory || !a)
			continue;
		for (int i = 0; i < topo->nnodes; i++) {
			struct smpol_bw_entry e = { topo->nodes[i].id, topo->nodes[t].id, a->read_bw, a->write_bw,
						    SMPOL_BW_SYSFS };

			if (topo->nodes[i].has_cpu && smpol_bw_put(out, &e))
				return -ENOMEM;
		}
	}
	return 0;
}

static int put_file(const struct smpol_topology *topo, struct smpol_bw_table *out, struct smpol_bw_origin *o)
{
	struct smpol_bw_file f;
	int rc;

	o->table_rc = smpol_bw_file_read(o->table_path, &f, o->table_why, sizeof(o->table_why));
	if (o->table_rc == -ENOENT) {
		snprintf(o->table_why, sizeof(o->table_why), "the bandwidth table %.400s does not exist", o->table_path);
		return 0;
	}
	if (o->table_rc)
		return o->table_rc == -ENOMEM ? -ENOMEM : 0;
	o->table_rc = smpol_bw_file_match(&f, topo, o->machine, o->table_why, sizeof(o->table_why));
	for (int i = 0; !o->table_rc && i < f.table.nentries; i++) {
		rc = smpol_bw_put(out, &f.table.entries[i]);
		if (rc) {
			smpol_bw_file_free(&f);
			return rc;
		}
	}
	if (!o->table_rc)
		snprintf(o->table_why, sizeof(o->table_why), "%d pairs from %.400s", f.table.nentries, o->table_path);
	smpol_bw_file_free(&f);
	return 0;
}

int smpol_bw_resolve(const struct smpol_topology *topo, const char *table_path, bool named,
		     struct smpol_bw_table *out, struct smpol_bw_origin *origin)
{
	int rc;

	memset(out, 0, sizeof(*out));
	memset(origin, 0, sizeof(*origin));
	origin->table_rc = -ENOENT;
	origin->table_named = named;
	smpol_machine_identity(topo->host, origin->machine, sizeof(origin->machine));
	rc = put_sysfs(topo, out);
	if (!rc) {
		origin->acpi_rc = smpol_bw_from_acpi(topo, out, origin->acpi_why, sizeof(origin->acpi_why));
		if (origin->acpi_rc == -ENOMEM)
			rc = -ENOMEM;
	}
	if (!rc && table_path && *table_path) {
		snprintf(origin->table_path, sizeof(origin->table_path), "%s", table_path);
		rc = put_file(topo, out, origin);
	}
	if (rc)
		smpol_bw_free(out);
	return rc;
}

void smpol_bw_origin_warning(const struct smpol_bw_origin *o, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!o->table_path[0] || o->table_rc == 0 || (o->table_rc == -ENOENT && !o->table_named))
		return;
	snprintf(buf, len, "%s; HMAT is used instead", o->table_why);
}
