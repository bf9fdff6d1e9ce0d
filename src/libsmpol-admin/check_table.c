/* check_table.c - the bandwidth table file, and where it disagrees with HMAT (see
 * checks.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bw_file.h"
#include "checks.h"

/* Only root may change what steers every job's placement. */
static void check_owner(const char *path, struct smpol_findings *f)
{
	struct stat st;

	if (stat(path, &st))
		return;
	if (smpol_file_unsafe(&st))
		smpol_findings_add(f, SMPOL_SEV_WARNING, "bandwidth-table-unsafe", -1, "chown root and chmod go-w it",
				   "the bandwidth table %s is owned by uid %u with mode %04o: others can steer every "
				   "job's placement", path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
}

/* The largest bandwidth an initiator gets from any of the nodes both sources know. */
static uint32_t best_of(const struct smpol_bw_table *t, const struct smpol_bw_table *other, int init)
{
	uint32_t best = 0;

	for (int i = 0; i < t->nentries; i++) {
		const struct smpol_bw_entry *e = &t->entries[i];
		uint32_t bw = smpol_bw_min(e->read, e->write);

		if (e->initiator == init && smpol_bw_lookup(other, init, e->target) && bw > best)
			best = bw;
	}
	return best;
}

/* Does HMAT say anything about this very pair? The raw table does; sysfs only for the
 * target's best initiators. */
static bool hmat_claims(const struct smpol_topology *topo, const struct smpol_bw_entry *h)
{
	const struct smpol_node *t = smpol_topology_node(topo, h->target);
	const struct smpol_access *a = t ? smpol_node_access(t) : NULL;

	return h->source == SMPOL_BW_ACPI || (a && smpol_cpus_test(&a->initiators, h->initiator));
}

/* Shares of each initiator's best bandwidth, table against HMAT: the scales differ
 * (STREAM against peak), the ratios plans are made of should not. */
static void compare(const struct smpol_topology *topo, const struct smpol_bw_table *table,
		    const struct smpol_bw_table *hmat, struct smpol_findings *f)
{
	int flagged = 0;

	for (int i = 0; i < table->nentries; i++) {
		const struct smpol_bw_entry *e = &table->entries[i];
		const struct smpol_bw_entry *h = smpol_bw_lookup(hmat, e->initiator, e->target);
		uint32_t tb = best_of(table, hmat, e->initiator), hb = best_of(hmat, table, e->initiator);
		double ts, hs;

		if (!h || !hmat_claims(topo, h) || !tb || !hb || !smpol_bw_min(h->read, h->write))
			continue;
		ts = (double)smpol_bw_min(e->read, e->write) / tb;
		hs = (double)smpol_bw_min(h->read, h->write) / hb;
		if (fabs(ts / hs - 1) <= SMPOL_CHECK_TABLE_TOLERANCE)
			continue;
		flagged++;
		smpol_findings_add(f, SMPOL_SEV_WARNING, "table-disagrees", e->target, "trust the table only if it was "
				   "measured on an idle node; otherwise run mpolctl calibrate again (mpolctl(8), "
				   "BANDWIDTH SOURCES, says how to validate it)",
				   "node %d to node %d: the %s table gives %.0f%% of node %d's best, %s HMAT %.0f%% "
				   "(more than %.0f%% apart)", e->initiator, e->target, smpol_bw_source_name(e->source),
				   100 * ts, e->initiator, smpol_bw_source_name(h->source), 100 * hs,
				   100 * SMPOL_CHECK_TABLE_TOLERANCE);
	}
	if (!flagged)
		smpol_findings_add(f, SMPOL_SEV_OK, "table-disagrees", -1, "", "the bandwidth table and HMAT agree within "
				   "%.0f%% wherever both give a pair", 100 * SMPOL_CHECK_TABLE_TOLERANCE);
}

void smpol_check_table(const struct smpol_topology *topo, const char *path, bool named, const char *machine,
		       const struct smpol_bw_table *hmat, struct smpol_findings *f)
{
	struct smpol_bw_file file;
	char err[SMPOL_ERRLEN];
	int rc;

	if (!path || !*path) {
		smpol_findings_add(f, SMPOL_SEV_INFO, "bandwidth-table", -1, "", "no bandwidth table is read (bandwidth=none, "
				   "or another root without --bandwidth)");
		return;
	}
	rc = smpol_bw_file_read(path, &file, err, sizeof(err));
	if (rc == -ENOENT) {
		smpol_findings_add(f, named ? SMPOL_SEV_ERROR : SMPOL_SEV_INFO, "bandwidth-table", -1,
				   named ? "run mpolctl calibrate, or correct the plugstack line's bandwidth=" :
				   "nothing to do: mpolctl calibrate writes one where HMAT is missing or wrong",
				   "the bandwidth table %s does not exist%s", path, named ? ", but the site names it" : "");
		return;
	}
	if (rc) {
		smpol_findings_add(f, SMPOL_SEV_ERROR, "bandwidth-table", -1, "correct it or run mpolctl calibrate again; "
				   "until then steps use HMAT", "%s", err);
		return;
	}
	check_owner(path, f);
	rc = smpol_bw_file_match(&file, topo, machine, err, sizeof(err));
	if (rc)
		smpol_findings_add(f, SMPOL_SEV_ERROR, "bandwidth-table-foreign", -1, "run mpolctl calibrate on this node "
				   "(or copy the table of an identical one); until then steps use HMAT",
				   "the bandwidth table %s is refused: %s", path, err);
	else
		smpol_findings_add(f, SMPOL_SEV_OK, "bandwidth-table", -1, "", "the bandwidth table %s covers this node "
				   "(%d pairs)", path, file.table.nentries);
	if (!rc)
		compare(topo, &file.table, hmat, f);
	smpol_bw_file_free(&file);
}
