/* cmd_calibrate.c - `mpolctl calibrate`: measure the bandwidth every CPU node gets from
 * every memory node (what HMAT should have said) and write the bandwidth table. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <linux/mempolicy.h>

#include "bw_file.h"
#include "cli.h"
#include "commands.h"
#include "lease.h"
#include "site.h"
#include "step_state.h"
#include "stream.h"
#include "topology.h"
#include "units.h"

#define VERB "calibrate"
#define DEFAULT_REPEATS 5
#define CACHE_FACTOR 4

enum { OPT_FORCE = 0x200, OPT_OUTPUT, OPT_NO_WRITE, OPT_REPEATS, OPT_SIZE };

static void usage(FILE *out)
{
	fprintf(out,
		"usage: mpolctl calibrate [--output FILE] [--no-write] [--force] [--repeats N] [--size SIZE]\n"
		"                         [--statedir DIR] [--plugstack FILE] [--json]\n"
		"\n"
		"Measure the bandwidth each CPU node (initiator) gets from each memory node, as a\n"
		"STREAM-style read pass, write pass, copy and triad with one thread pinned to\n"
		"each of the initiator's CPUs and the arrays bound to that one memory node, and\n"
		"write the measured table (read = the read pass, write = the write pass; MB/s,\n"
		"median of the repeats) that plans then prefer to HMAT. One line per pair goes\n"
		"to stderr as it is measured (seconds each). Override lines an admin added to\n"
		"the table are kept. It refuses to run while job steps run on the node (they\n"
		"would disturb the measurement and it would disturb them) unless --force.\n"
		"Run it as root on an idle node; see mpolctl(8), BANDWIDTH SOURCES. It measures\n"
		"this machine: --fsroot and $MPOL_FSROOT are refused.\n"
		"\n"
		"  --output FILE   the table to write (default: the plugstack line's bandwidth=,\n"
		"                  else " SMPOL_BW_FILE_DEFAULT ")\n"
		"  --no-write      measure and print, write nothing\n"
		"  --force         measure even while job steps run\n"
		"  --repeats N     repeats of each pass, 1-1000 (default %d); the median is kept\n"
		"  --size SIZE     each of the three arrays (64M, 1G; default %d x the largest\n"
		"                  CPU cache, at least 64M)\n"
		"  --statedir DIR  where running steps keep their placement and the weights lease\n"
		"                  (default: the plugstack line's statedir=, else " SMPOL_DEFAULT_STATEDIR ")\n"
		"  --plugstack FILE  the plugstack.conf holding mem_interleave.so's line\n"
		"  --json          print one JSON object instead of the table\n"
		"  -h, --help      show this help\n",
		DEFAULT_REPEATS, CACHE_FACTOR);
}

struct calibrate_args {
	struct cli_common c;
	const char *output;
	bool no_write, force;
	int repeats;
	uint64_t size_kb;
};

static void parse_args(int argc, char **argv, struct calibrate_args *a)
{
	static const struct option options[] = {
		CLI_COMMON_OPTIONS,
		CLI_STATEDIR_OPTION,
		CLI_SITE_OPTIONS,
		{ "output", required_argument, NULL, OPT_OUTPUT },
		{ "no-write", no_argument, NULL, OPT_NO_WRITE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "repeats", required_argument, NULL, OPT_REPEATS },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ NULL, 0, NULL, 0 },
	};
	char err[SMPOL_ERRLEN];
	int opt;

	memset(a, 0, sizeof(*a));
	cli_common_init(&a->c);
	a->repeats = DEFAULT_REPEATS;
	while ((opt = cli_getopt(&a->c, VERB, argc, argv, ":h", options)) != -1) {
		switch (opt) {
		case OPT_OUTPUT:
			if (optarg[0] != '/')
				cli_usage_error(VERB, "--output '%s': give an absolute path", optarg);
			a->output = optarg;
			break;
		case OPT_NO_WRITE:
			a->no_write = true;
			break;
		case OPT_FORCE:
			a->force = true;
			break;
		case OPT_REPEATS:
			a->repeats = (int)cli_number(VERB, "--repeats", optarg, 0, 1, 1000);
			break;
		case OPT_SIZE:
			if (smpol_parse_size(optarg, &a->size_kb, err, sizeof(err)))
				cli_usage_error(VERB, "--size: %s", err);
			if (a->size_kb < 1024)
				cli_usage_error(VERB, "--size '%s': arrays under 1M do not reach memory", optarg);
			break;
		case CLI_OPT_BANDWIDTH:
			cli_usage_error(VERB, "--bandwidth does not apply: the table is what calibrate writes (--output)");
		default:
			cli_common_option(&a->c, VERB, opt, argc, argv, usage);
		}
	}
	cli_no_operands(&a->c, VERB, argc, argv);
	if (strcmp(a->c.host.fsroot, "/"))
		cli_usage_error(VERB, "it measures this machine: --fsroot or $MPOL_FSROOT (%s) cannot apply",
				a->c.host.fsroot);
}

/* Steps that run on the node, by their kept placements and the weights lease. */
static int running_steps(const struct smpol_host *h, char *why, size_t len)
{
	struct smpol_step_state *kept;
	struct smpol_lease_state lease;
	char err[SMPOL_ERRLEN];
	size_t used = 0;
	int n = 0, nkept = 0;

	why[0] = '\0';
	if (smpol_step_state_list(h, &kept, &nkept, NULL, err, sizeof(err)) == 0) {
		for (int i = 0; i < nkept; i++) {
			if (!kept[i].holder_alive)
				continue;
			if (used < len)
				used += (size_t)snprintf(why + used, len - used, "%sjob %u step %u", n ? ", " : "",
							 kept[i].job_id, kept[i].step_id);
			n++;
		}
		smpol_step_states_free(kept, nkept);
	}
	if (smpol_lease_inspect(h, &lease, err, sizeof(err)) == 0 && lease.held && lease.holder_alive) {
		if (used < len)
			snprintf(why + used, len - used, "%sjob %u step %u (holds the weights)", n ? ", " : "",
				 lease.owner.job_id, lease.owner.step_id);
		n++;
	}
	return n;
}

struct pair {
	int initiator, target;
	struct smpol_stream_result r;
};

/* The initiator's CPUs this process may run on (none when out of memory). */
static void usable_cpus(const struct smpol_node *n, struct smpol_cpus *cpus)
{
	cpu_set_t set;
	bool all = sched_getaffinity(0, sizeof(set), &set) != 0;

	for (int c = smpol_cpus_next(&n->cpus, 0); c >= 0; c = smpol_cpus_next(&n->cpus, c + 1))
		if ((all || (c < CPU_SETSIZE && CPU_ISSET(c, &set))) && smpol_cpus_set(cpus, c) < 0) {
			smpol_cpus_clear(cpus);
			return;
		}
}

static int measure_all(const struct smpol_topology *topo, const struct calibrate_args *a, size_t bytes,
		       struct pair **pairs, int *npairs)
{
	struct pair *out = calloc((size_t)topo->nnodes * (size_t)topo->nnodes + 1, sizeof(*out));
	char err[SMPOL_ERRLEN];
	int n = 0;

	if (!out) {
		fprintf(stderr, "mpolctl %s: out of memory\n", VERB);
		return 1;
	}
	for (int i = 0; i < topo->nnodes; i++) {
		const struct smpol_node *init = &topo->nodes[i];
		struct smpol_stream_opts o = { .mode = MPOL_BIND, .array_bytes = bytes, .repeats = a->repeats };

		if (!init->has_cpu)
			continue;
		usable_cpus(init, &o.cpus);
		if (smpol_cpus_empty(&o.cpus)) {
			fprintf(stderr, "mpolctl %s: none of node %d's CPUs is in this process's affinity: run it "
				"without a CPU binding\n", VERB, init->id);
			smpol_cpus_free(&o.cpus);
			free(out);
			return 1;
		}
		for (int t = 0; t < topo->nnodes; t++) {
			struct pair *p = &out[n];
			struct timespec s0, s1;

			if (!topo->nodes[t].has_memory)
				continue;
			smpol_bitmap_clear(&o.nodes);
			smpol_bitmap_set(&o.nodes, topo->nodes[t].id);
			p->initiator = init->id;
			p->target = topo->nodes[t].id;
			clock_gettime(CLOCK_MONOTONIC, &s0);
			if (smpol_stream_run(&o, &p->r, err, sizeof(err))) {
				fprintf(stderr, "mpolctl %s: node %d -> node %d: %s\n", VERB, p->initiator, p->target, err);
				smpol_cpus_free(&o.cpus);
				free(out);
				return 1;
			}
			clock_gettime(CLOCK_MONOTONIC, &s1);
			fprintf(stderr, "calibrate: node%d -> node%d (%d threads): read %.0f write %.0f copy %.0f "
				"triad %.0f MB/s (%.1f s)\n", p->initiator, p->target, smpol_cpus_count(&o.cpus),
				p->r.median[SMPOL_STREAM_READ], p->r.median[SMPOL_STREAM_WRITE],
				p->r.median[SMPOL_STREAM_COPY], p->r.median[SMPOL_STREAM_TRIAD],
				(double)(s1.tv_sec - s0.tv_sec) + (double)(s1.tv_nsec - s0.tv_nsec) * 1e-9);
			n++;
		}
		smpol_cpus_free(&o.cpus);
	}
	*pairs = out;
	*npairs = n;
	return 0;
}

static uint32_t mbps(double v)
{
	return v < 1 ? 1 : v > 4e9 ? 4000000000U : (uint32_t)(v + 0.5);
}

/* The table: this machine, its nodes, how it was measured, the pairs, and the override
 * lines of the file being replaced. */
static int build_table(const struct smpol_topology *topo, const struct calibrate_args *a, size_t bytes,
		       const struct pair *pairs, int npairs, const char *path, struct smpol_bw_file *f, int *kept)
{
	struct smpol_bw_file old;
	char date[32], err[SMPOL_ERRLEN];
	time_t now = time(NULL);
	int rc;

	*kept = 0;
	smpol_machine_identity(topo->host, f->machine, sizeof(f->machine));
	if (smpol_bw_file_set_nodes(f, topo))
		return -ENOMEM;
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	snprintf(f->info, sizeof(f->info), "mpolctl %s calibrate %s: threads on every CPU of the initiator, "
		 "arrays of %zu MiB bound to the target, median of %d; read = read pass, write = write pass",
		 PACKAGE_VERSION, date, bytes >> 20, a->repeats);
	for (int i = 0; i < npairs; i++) {
		struct smpol_bw_entry e = { pairs[i].initiator, pairs[i].target, mbps(pairs[i].r.median[SMPOL_STREAM_READ]),
					    mbps(pairs[i].r.median[SMPOL_STREAM_WRITE]), SMPOL_BW_MEASURED };

		if (smpol_bw_put(&f->table, &e))
			return -ENOMEM;
	}
	if (!path || smpol_bw_file_read(path, &old, err, sizeof(err)))
		return 0;
	for (int i = 0; i < old.table.nentries; i++) {
		struct smpol_bw_entry *grown;

		if (old.table.entries[i].source != SMPOL_BW_OVERRIDE)
			continue;
		/* bw_put keeps one source per pair; the file holds both */
		grown = realloc(f->table.entries, (size_t)(f->table.nentries + 1) * sizeof(*grown));
		rc = grown ? 0 : -ENOMEM;
		if (rc) {
			smpol_bw_file_free(&old);
			return rc;
		}
		f->table.entries = grown;
		f->table.entries[f->table.nentries++] = old.table.entries[i];
		(*kept)++;
	}
	smpol_bw_file_free(&old);
	return 0;
}

/* Replace path whole (a reader never sees half of it), mode 0644. */
static int write_table(const char *path, const char *text, char *err, size_t errlen)
{
	char tmp[4200];
	size_t len = strlen(text);
	int fd, rc = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return smpol_fail(err, errlen, errno, "cannot create %s: %s", tmp, strerror(errno));
	if (write(fd, text, len) != (ssize_t)len || fsync(fd))
		rc = smpol_fail(err, errlen, errno ? errno : EIO, "cannot write %s: %s", tmp, strerror(errno ? errno : EIO));
	if (close(fd) && !rc)
		rc = smpol_fail(err, errlen, errno, "cannot write %s: %s", tmp, strerror(errno));
	if (!rc && rename(tmp, path))
		rc = smpol_fail(err, errlen, errno, "cannot replace %s: %s", path, strerror(errno));
	if (rc)
		unlink(tmp);
	return rc;
}

static void print_text(const struct pair *pairs, int npairs, const char *written, int kept)
{
	printf("%-6s %-6s %10s %10s %10s %10s   (MB/s, median)\n", "FROM", "TO", "READ", "WRITE", "COPY", "TRIAD");
	for (int i = 0; i < npairs; i++)
		printf("node%-2d node%-2d %10.0f %10.0f %10.0f %10.0f\n", pairs[i].initiator, pairs[i].target,
		       pairs[i].r.median[SMPOL_STREAM_READ], pairs[i].r.median[SMPOL_STREAM_WRITE],
		       pairs[i].r.median[SMPOL_STREAM_COPY], pairs[i].r.median[SMPOL_STREAM_TRIAD]);
	if (written)
		printf("wrote %s (%d override line%s kept)\n", written, kept, kept == 1 ? "" : "s");
	else
		printf("nothing written (--no-write)\n");
}

static int print_json(const struct pair *pairs, int npairs, size_t bytes, int repeats, const char *written, int kept)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(o, "array_bytes", json_object_new_int64((int64_t)bytes));
	json_object_object_add(o, "repeats", json_object_new_int(repeats));
	for (int i = 0; i < npairs; i++) {
		json_object *p = json_object_new_object(), *med = json_object_new_object(), *best = json_object_new_object();

		json_object_object_add(p, "initiator", json_object_new_int(pairs[i].initiator));
		json_object_object_add(p, "target", json_object_new_int(pairs[i].target));
		for (int k = 0; k < SMPOL_STREAM_PASSES; k++) {
			json_object_object_add(med, smpol_stream_pass_name(k), json_object_new_double(pairs[i].r.median[k]));
			json_object_object_add(best, smpol_stream_pass_name(k), json_object_new_double(pairs[i].r.best[k]));
		}
		json_object_object_add(p, "median", med);
		json_object_object_add(p, "best", best);
		json_object_array_add(arr, p);
	}
	json_object_object_add(o, "pairs", arr);
	json_object_object_add(o, "written", written ? json_object_new_string(written) : NULL);
	json_object_object_add(o, "overrides_kept", json_object_new_int(kept));
	return cli_print_json(o);
}

int cmd_calibrate(int argc, char **argv)
{
	struct calibrate_args a;
	struct cli_site site;
	struct smpol_topology topo;
	struct smpol_bw_file f;
	struct pair *pairs = NULL;
	char err[SMPOL_ERRLEN], why[1024], *text = NULL;
	const char *path;
	size_t bytes;
	int npairs = 0, kept = 0, rc;

	parse_args(argc, argv, &a);
	memset(&f, 0, sizeof(f));
	cli_site_read(&a.c, &site);
	if (!cli_site_usable(&a.c, &site, VERB))
		return 1;
	path = a.output ? a.output : site.cfg.bandwidth_file[0] ? site.cfg.bandwidth_file : SMPOL_BW_FILE_DEFAULT;
	if (!a.force && running_steps(&site.cfg.host, why, sizeof(why))) {
		fprintf(stderr, "mpolctl %s: job steps run on this node (%s): they would disturb the measurement and "
			"it would disturb them; wait until the node is idle (drain it) or give --force\n", VERB, why);
		return 1;
	}
	if (smpol_topology_read(&a.c.host, &topo, err, sizeof(err))) {
		fprintf(stderr, "mpolctl %s: %s\n", VERB, err);
		return 1;
	}
	bytes = a.size_kb ? (size_t)a.size_kb * 1024 : smpol_stream_array_bytes("/", CACHE_FACTOR);
	rc = measure_all(&topo, &a, bytes, &pairs, &npairs);
	if (!rc && (build_table(&topo, &a, bytes, pairs, npairs, a.no_write ? NULL : path, &f, &kept) ||
		    smpol_bw_file_format(&f, &text))) {
		fprintf(stderr, "mpolctl %s: out of memory\n", VERB);
		rc = 1;
	}
	if (!rc && !a.no_write && write_table(path, text, err, sizeof(err))) {
		fprintf(stderr, "mpolctl %s: %s\n", VERB, err);
		rc = 1;
	}
	if (!rc) {
		if (a.c.json) {
			rc = print_json(pairs, npairs, bytes, a.repeats, a.no_write ? NULL : path, kept);
		} else {
			print_text(pairs, npairs, a.no_write ? NULL : path, kept);
			rc = fflush(stdout) ? 1 : 0;
		}
	}
	smpol_bw_file_free(&f);
	free(text);
	free(pairs);
	smpol_topology_free(&topo);
	return rc;
}
