/* step-state-bench - what mem_interleave.so keeps for one step on a node, measured.
 *
 * Builds a step's state as slurmstepd's step.c does (site arguments, the user's
 * option, topology, bandwidth table, the decision with the weights lease, the kept
 * placement with one task) in the plugin's own struct mi_step and struct mi_option,
 * on the sysfs tree FSROOT with its state in STATEDIR (both written: the lease writes
 * the tree's weights table), and frees what step.c frees once the step's one task has
 * started (the bandwidth table, the kept placement after its last write). Prints the
 * structs' size and the heap the step still holds then, by part (the site's strings,
 * topology, placement), from glibc's allocator counters (mallinfo2) taken between the
 * parts, and what was freed; the placement record (record_step.c) is not built here.
 * glibc's per-thread cache (tcache) keeps freed chunks that mallinfo2 counts as in
 * use, so the bench runs itself again with it off (GLIBC_TUNABLES
 * glibc.malloc.tcache_count=0): what a part freed is not counted as held.
 *   step-state-bench FSROOT STATEDIR [OPTION]     (OPTION default "weighted")
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lease_place.h"
#include "plugin.h"
#include "wi.h"

static size_t heap_used(void)
{
	return mallinfo2().uordblks;
}

/* The heap taken since *mark, and a new mark. */
static size_t heap_since(size_t *mark)
{
	size_t now = heap_used(), grown = now - *mark;

	*mark = now;
	return grown;
}

#define NO_TCACHE "glibc.malloc.tcache_count=0"

/* Run again with glibc's tcache off, unless it is already (the tunable is read at start). */
static void without_tcache(char **argv)
{
	const char *had = getenv("GLIBC_TUNABLES");
	char tunables[1024];

	if (had && strstr(had, NO_TCACHE))
		return;
	snprintf(tunables, sizeof(tunables), "%s%s" NO_TCACHE, had ? had : "", had ? ":" : "");
	if (setenv("GLIBC_TUNABLES", tunables, 1) == 0)
		execv("/proc/self/exe", argv);
	perror("step-state-bench: running again without tcache");
	exit(1);
}

static int fail(const char *what, const char *err)
{
	fprintf(stderr, "step-state-bench: %s: %s\n", what, err);
	return 1;
}

int main(int argc, char **argv)
{
	static struct mi_step s;   /* as plugin.c holds it: one per slurmstepd, in .bss */
	static struct mi_option opt;   /* as options.c holds it */
	void *volatile warm;
	size_t mark, site_heap, topo_heap, bw_heap, pl_heap, kept_heap, structs, resident;
	struct smpol_bw_table bandwidth = { 0 };
	struct smpol_lease_try lease;
	struct smpol_wi_table table;
	struct smpol_place_in in;
	char err[SMPOL_ERRLEN], table_err[SMPOL_ERRLEN] = "", fsroot_arg[1100], statedir_arg[1100];
	char *site_args[] = { fsroot_arg, statedir_arg };

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: step-state-bench FSROOT STATEDIR [OPTION]\n");
		return 2;
	}
	without_tcache(argv);
	snprintf(fsroot_arg, sizeof(fsroot_arg), "fsroot=%s", argv[1]);
	snprintf(statedir_arg, sizeof(statedir_arg), "statedir=%s", argv[2]);
	/* glibc's first allocation brings its own per-thread header (656 bytes): slurmstepd's
	 * long before a step, so made before measuring (volatile: the compiler drops a bare pair) */
	warm = malloc(1);
	free(warm);
	mark = heap_used();
	if (smpol_config_default(&s.site) < 0)
		return fail("site arguments", "out of memory");
	if (smpol_config_parse(2, site_args, &s.site, err, sizeof(err)) < 0)
		return fail("site arguments", err);
	if (smpol_spec_parse(argc > 3 ? argv[3] : "weighted", &opt.spec, err, sizeof(err)) < 0)
		return fail("option", err);
	opt.given = true;
	s.spec = &opt.spec;
	s.owner.job_id = 1;
	s.owner.step_id = 0;
	s.owner.uid = getuid();
	s.local_tasks = 1;
	site_heap = heap_since(&mark);   /* the site's and the option's own */
	if (smpol_topology_read(&s.site.host, &s.topo, err, sizeof(err)) < 0)
		return fail("topology", err);
	s.have_topo = true;
	topo_heap = heap_since(&mark);
	if (smpol_bw_resolve(&s.topo, s.site.bandwidth_file, s.site.bandwidth_named, &bandwidth,
			     &(struct smpol_bw_origin){ 0 }) < 0)
		return fail("bandwidth", "out of memory");
	bw_heap = heap_since(&mark);
	smpol_wi_read(&s.site.host, &table, table_err, sizeof(table_err));
	in = (struct smpol_place_in){
		.spec = *s.spec,
		.site = &s.site.decide,
		.topo = &s.topo,
		.table_error = table_err[0] ? table_err : NULL,
		.job_owns_node = true,
		.lease = SMPOL_LEASE_UNTRIED,
		.bandwidth = &bandwidth,
	};
	if (smpol_place_with_lease(&in, &table, &s.owner, &s.pl, &lease) < 0)
		return fail("placement", "out of memory");
	if (s.pl.failure || !s.pl.active)
		return fail("placement", s.pl.failure ? s.pl.failure : s.pl.note ? s.pl.note : "inactive");
	s.lease_held = lease.held;
	pl_heap = heap_since(&mark);
	s.kept = calloc(1, sizeof(*s.kept));
	if (!s.kept || smpol_step_state_from(&in, &s.pl, s.owner.job_id, s.owner.step_id, s.owner.uid, s.kept,
					     err, sizeof(err)) < 0 ||
	    smpol_step_state_add_task(s.kept, getpid(), err, sizeof(err)) < 0)
		return fail("kept placement", s.kept ? err : "out of memory");
	kept_heap = heap_since(&mark);   /* with the struct itself */
	/* as step.c: the table once the kept placement holds its copy, the kept placement
	 * once every task is written into it */
	smpol_bw_free(&bandwidth);
	smpol_step_state_free(s.kept);
	free(s.kept);
	s.kept = NULL;
	structs = sizeof(s) + sizeof(opt);
	resident = structs + site_heap + topo_heap + pl_heap;
	printf("nodes %d plans %d struct %zu (step %zu option %zu) heap %zu (site %zu topology %zu placement %zu) "
	       "total %zu bytes; freed once the tasks run: bandwidth %zu kept %zu\n", s.topo.nnodes, s.pl.nplans,
	       structs, sizeof(s), sizeof(opt), site_heap + topo_heap + pl_heap, site_heap, topo_heap, pl_heap,
	       resident, bw_heap, kept_heap);
	if (lease.held && smpol_lease_release(&s.site.host, &s.owner, NULL, err, sizeof(err)) < 0)
		return fail("lease release", err);
	smpol_placement_free(&s.pl);
	smpol_topology_free(&s.topo);
	smpol_spec_free(&opt.spec);
	smpol_config_free(&s.site);
	return 0;
}
