/* cmd_report.c - `mpolctl report -j JOBID[.STEP]`: how a job's memory was placed,
 * read back from its AdminComment (or SystemComment, Extra) in accounting (record.h has the format,
 * record_print.h the tables). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli.h"
#include "commands.h"
#include "job_id.h"
#include "job_record.h"
#include "record.h"
#include "record_print.h"
#include "text.h"
#include "topology.h"

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mpolctl report -j JOBID[.STEP] [--json] [--fsroot DIR]\n"
		"\n"
		"Show how a finished job's memory was placed, from the record mem_interleave.so\n"
		"wrote into its AdminComment (its SystemComment where a jobstats summary took\n"
		"AdminComment, its Extra with record=extra; the first line says which): per step and\n"
		"node, the mode asked for and applied, the kernel path, the weights, and per NUMA\n"
		"node (with its kind: DRAM, CXL, HBM) the target share, the share achieved at\n"
		"the last sample, and the pages at the last sample and at the peak. A job of\n"
		"many steps has its older steps folded to fit the field: identical steps\n"
		"together, then per node, then one total for the job; each folded part is shown\n"
		"as such, with the steps it holds. Read through sacct: users see their own\n"
		"jobs, operators and admins every job; the fields reach accounting when the job\n"
		"ends. Text from the record is printed escaped.\n"
		"\n"
		"  -j, --job JOBID[.STEP]  the job (1234, 1234_7 for an array task), one step\n"
		"                          of it (1234.0, 1234.batch, folded or not); one job\n"
		"                          per run\n"
		"  --json                  print the record as JSON ({\"job\":..., \"field\":..., \"mempolicy\":...}):\n"
		"                          as stored (pages of unit_kib KiB, t in Unix seconds),\n"
		"                          and per entry last_bytes, peak_bytes and time (ISO 8601)\n"
		"  --fsroot DIR            the topology read for node kinds the record lacks, when\n"
		"                          reporting on the job's own node (default: $MPOL_FSROOT)\n"
		"  -h, --help              show this help\n");
}

/* Text of the record as it may be printed: anyone who could write the field wrote it. */
static const char *safe(const char *text)
{
	static char buf[512];

	return smpol_text_printable(text, buf, sizeof(buf));
}

static json_object *get(json_object *o, const char *key, json_type type)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, type) ? v : NULL;
}

/* {"node": pages} as {"node": bytes}: what a script wants without knowing unit_kib. */
static json_object *json_bytes(json_object *pages, int unit_kib)
{
	json_object *bytes = json_object_new_object();

	json_object_object_foreach(pages, key, val)
		json_object_object_add(bytes, key, json_object_new_int64((int64_t)(json_object_get_double(val) *
									   unit_kib * 1024)));
	return bytes;
}

/* Beside an entry's pages and Unix time (the record as stored): last_bytes,
 * peak_bytes and time (ISO 8601, UTC). */
static void json_decode_entry(json_object *entry, int unit_kib)
{
	json_object *last = get(entry, SMPOL_REC_LAST, json_type_object);
	json_object *peak = get(entry, SMPOL_REC_PEAK, json_type_object);
	json_object *t = get(entry, SMPOL_REC_TIME, json_type_int);
	time_t when = t ? (time_t)json_object_get_int64(t) : 0;
	struct tm tm;
	char iso[32];

	if (last)
		json_object_object_add(entry, "last_bytes", json_bytes(last, unit_kib));
	if (peak)
		json_object_object_add(entry, "peak_bytes", json_bytes(peak, unit_kib));
	if (t && gmtime_r(&when, &tm) && strftime(iso, sizeof(iso), "%Y-%m-%dT%H:%M:%SZ", &tm))
		json_object_object_add(entry, "time", json_object_new_string(iso));
}

/* json_decode_entry on every {NODE:ENTRY} of entries. */
static void json_decode_nodes(json_object *entries, int unit_kib)
{
	if (!json_object_is_type(entries, json_type_object))
		return;
	json_object_object_foreach(entries, node, entry) {
		(void)node;
		if (json_object_is_type(entry, json_type_object))
			json_decode_entry(entry, unit_kib);
	}
}

/* json_decode_entry on every entry of the record: its steps' and its folded parts'. */
static void json_decode_entries(json_object *record, int unit_kib)
{
	json_object *folded = get(record, SMPOL_REC_FOLDED, json_type_object);
	json_object *same = get(folded, SMPOL_REC_SAME, json_type_array), *job = get(folded, SMPOL_REC_JOB, json_type_object);

	json_object_object_foreach(get(record, SMPOL_REC_STEPS, json_type_object), step, nodes) {
		(void)step;
		json_decode_nodes(nodes, unit_kib);
	}
	for (size_t i = 0; same && i < json_object_array_length(same); i++)
		json_decode_nodes(get(json_object_array_get_idx(same, i), SMPOL_REC_ENTRIES, json_type_object), unit_kib);
	json_decode_nodes(get(get(folded, SMPOL_REC_BY_NODE, json_type_object), SMPOL_REC_ENTRIES, json_type_object),
			  unit_kib);
	if (job)
		json_decode_entry(job, unit_kib);
}

/* The topology of this host (short name in host) when the record has a node of that
 * name, else NULL. */
static struct smpol_topology *local_topology(json_object *record, const struct smpol_host *h, struct smpol_topology *topo,
					    char *host, size_t hostlen)
{
	char err[SMPOL_ERRLEN];

	host[0] = '\0';
	if (gethostname(host, hostlen - 1) < 0)
		return NULL;
	host[hostlen - 1] = '\0';
	host[strcspn(host, ".")] = '\0';
	if (!record_has_node(record, host) || smpol_topology_read(h, topo, err, sizeof(err)) < 0)
		return NULL;
	return topo;
}

/* The record in another field of the job: SystemComment (where the plugin puts it
 * beside a jobstats summary in AdminComment) or Extra (record=extra, Slurm 23.02 on; an
 * sacct without the field fails quietly). 0 with *record, or -ENOENT. */
static int find_in(const char *job, const char *field, json_object **record)
{
	char err[SMPOL_ERRLEN], *text = NULL;
	int rc = job_record_field(job, field, &text, err, sizeof(err));

	if (rc == 0)
		rc = smpol_record_find(text, record, err, sizeof(err));
	free(text);
	return rc == 0 ? 0 : -ENOENT;
}

int cmd_report(int argc, char **argv)
{
	static const struct option options[] = {
		{ "job", required_argument, NULL, 'j' },
		CLI_COMMON_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_common c;
	struct smpol_topology topo, *local;
	struct job_id id;
	char err[SMPOL_ERRLEN], host[256], *comment = NULL, *job = id.job_text, *step = id.step;
	static const char *const other_fields[] = { "SystemComment", "Extra" };
	const char *jobarg = NULL, *field = "AdminComment";
	json_object *record = NULL, *steps;
	struct record_print print = { .job = job, .local_host = host };
	int opt, rc;

	cli_common_init(&c);
	while ((opt = cli_getopt(&c, "report", argc, argv, ":hj:", options)) != -1) {
		switch (opt) {
		case 'j':
			jobarg = optarg;
			break;
		default:
			cli_common_option(&c, "report", opt, argc, argv, usage);
		}
	}
	cli_no_operands(&c, "report", argc, argv);
	if (!jobarg)
		cli_usage_error("report", "which job? give -j JOBID[.STEP]");
	if (job_id_parse(jobarg, true, &id, err, sizeof(err)) < 0)
		cli_usage_error("report", "-j: %s", err);

	rc = job_record_field(job, "AdminComment", &comment, err, sizeof(err));
	if (rc == 0)
		rc = smpol_record_find(comment, &record, err, sizeof(err));
	for (size_t i = 0; rc == -ENOENT && comment && i < sizeof(other_fields) / sizeof(other_fields[0]); i++)
		if (find_in(job, other_fields[i], &record) == 0) {
			field = other_fields[i];
			rc = 0;
		}
	if (rc < 0) {
		if (smpol_record_is_jobstats(comment) && rc == -ENOENT)
			cli_error("report", "job %s has no placement record; its AdminComment holds a jobstats summary "
				  "(" SMPOL_JOBSTATS_MARK "...), and neither SystemComment (where the plugin puts it "
				  "beside jobstats) nor Extra (record=extra) holds one", job);
		else if (comment && *comment && rc == -ENOENT)
			cli_error("report", "job %s has no placement record; its AdminComment holds "
				  "other text (%zu bytes), left as it is. Was it run with --mem-interleave?",
				  job, strlen(comment));
		else if (comment && rc == -ENOENT)
			cli_error("report", "job %s has no placement record (empty AdminComment). "
				  "Was it run with --mem-interleave, and has it ended?", job);
		else
			cli_error("report", "job %s: %s", job, safe(err));
		free(comment);
		return 1;
	}
	free(comment);

	steps = get(record, SMPOL_REC_STEPS, json_type_object);
	if (!steps) {
		cli_error("report", "job %s: the placement record has no steps (malformed)", job);
		json_object_put(record);
		return 1;
	}
	if (*step && !record_holds(record, step)) {
		size_t unlisted;
		char *recorded = record_steps(record, &unlisted);

		cli_error("report", "job %s has no record of step %s; recorded steps: %s%s", job, step,
			  recorded ? safe(recorded) : "?", unlisted ? " and some no longer listed" : "");
		free(recorded);
		json_object_put(record);
		return 1;
	}
	print.unit_kib = get(record, SMPOL_REC_UNIT_KIB, json_type_int) ? json_object_get_int(get(record, SMPOL_REC_UNIT_KIB, json_type_int)) : 4;
	if (c.json) {
		json_object *out = json_object_new_object();

		if (*step)
			record_keep_step(record, step);
		json_decode_entries(record, print.unit_kib);
		json_object_object_add(out, "job", json_object_new_string(job));
		json_object_object_add(out, "field", json_object_new_string(field));
		json_object_object_add(out, SMPOL_RECORD_KEY, record);
		return cli_print_json(out);
	}
	printf("job %s: placement record from its %s%s\n\n", job, field,
	       strcmp(field, "SystemComment") ? "" : " (its AdminComment holds a jobstats summary)");
	print.local = local = local_topology(record, &c.host, &topo, host, sizeof(host));
	record_print(&print, record, step);
	if (local)
		smpol_topology_free(local);
	json_object_put(record);
	return 0;
}
