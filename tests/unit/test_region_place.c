/* test_region_place.c - region-aware placement at each sample: which mappings a
 * sample places, known by their numa_maps policy and pages (on captured-style maps and
 * numa_maps text), and one sample of a live child on this kernel: a mapping placed as
 * it was allocated is left alone; gone, recycled or refused without a trace. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "pages.h"
#include "proc_stat.h"
#include "region_place.h"
#include "task_ref.h"

#define MIB (1024ULL * 1024)

/* A heap, a 64 MiB mapping, a 1 MiB one, a 256 MiB array, a 64 MiB mapping the
 * interposer placed, and what is never a task's own (shared, file, no access) however
 * large. */
static const char maps[] =
	"00e03000-00e24000 rw-p 00000000 00:00 0 [heap]\n"
	"7f0000000000-7f0004000000 rw-p 00000000 00:00 0 \n"
	"7f0004000000-7f0004100000 rw-p 00000000 00:00 0 \n"
	"7f1000000000-7f1010000000 rw-p 00000000 00:00 0 [anon:array]\n"
	"7f2000000000-7f2010000000 rw-s 00000000 00:05 12 /dev/zero (deleted)\n"
	"7f3000000000-7f3010000000 r-xp 00000000 08:02 17 /lib/x.so\n"
	"7f4000000000-7f4010000000 ---p 00000000 00:00 0 \n"
	"7f5000000000-7f5004000000 rw-p 00000000 00:00 0 \n";

/* Their numa_maps under a plan of 7:2 over nodes 0 and 2: the 64 MiB mapping all on
 * the task's node, the array spread by the weights (moved by an earlier sample), the
 * last placed by the interposer. */
static const char numa_maps[] =
	"00e03000 prefer:0 heap anon=25 dirty=25 N0=25 kernelpagesize_kB=4\n"
	"7f0000000000 prefer:0 anon=16384 dirty=16384 N0=16384 kernelpagesize_kB=4\n"
	"7f0004000000 prefer:0 anon=256 dirty=256 N0=256 kernelpagesize_kB=4\n"
	"7f1000000000 prefer:0 anon=9000 dirty=9000 N0=7000 N2=2000 kernelpagesize_kB=4\n"
	"7f2000000000 prefer:0 file=/dev/zero\\040(deleted) dirty=1 N0=1 kernelpagesize_kB=4\n"
	"7f3000000000 prefer:0 file=/lib/x.so mapped=1 N0=1 kernelpagesize_kB=4\n"
	"7f4000000000 prefer:0 kernelpagesize_kB=4\n"
	"7f5000000000 weighted interleave:0,2 anon=100 dirty=100 N0=78 N2=22 kernelpagesize_kB=4\n";

static struct smpol_region_opts plan_opts(enum smpol_regions_by by)
{
	struct smpol_region_opts o = { .by = by, .min_region = 64 * MIB, .weighted = true };

	o.move.weight[0] = 7;
	o.move.weight[2] = 2;
	smpol_bitmap_set(&o.nodes, 0);
	smpol_bitmap_set(&o.nodes, 2);
	return o;
}

static void select_from(const char *maps_text, const char *numa_text, const struct smpol_region_opts *o,
			const struct smpol_region_memory *m, struct smpol_region *todo, int *ntodo,
			struct smpol_region_sample *s)
{
	struct smpol_region *now;
	char err[SMPOL_ERRLEN];
	uint64_t counts[16];
	int n;

	memset(s, 0, sizeof(*s));
	assert_int_equal(smpol_pages_regions_parse(maps_text, &now, &n, err, sizeof(err)), 0);
	assert_true(n <= 16);
	smpol_regions_to_place(now, n, numa_text, o, m, todo, counts, ntodo, s);
	free(now);
}

/* A copy of text with `from` replaced by `to` (malloc'ed). */
static char *edited(const char *text, const char *from, const char *to)
{
	const char *at = strstr(text, from);
	char *copy = malloc(strlen(text) + strlen(to) + 1);

	assert_non_null(at);
	assert_non_null(copy);
	sprintf(copy, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
	return copy;
}

static void test_select(void **state)
{
	struct smpol_region_opts move = plan_opts(SMPOL_REGIONS_MOVE), policy = plan_opts(SMPOL_REGIONS_POLICY);
	struct smpol_region todo[8], given[2] = {
		{ 0x7f1000000000, 0x7f1010000000, 0 }, { 0x7f5000000000, 0x7f5004000000, 0 },
	};
	struct smpol_region_memory m = { 0 };
	struct smpol_region_sample s;
	char *again;
	int ntodo;

	(void)state;
	/* pages: the mapping all on the task's node moves; the array is on the plan; the
	 * interposer's has the plan's policy */
	select_from(maps, numa_maps, &move, &m, todo, &ntodo, &s);
	assert_int_equal(s.large, 3);
	assert_int_equal(ntodo, 1);
	assert_int_equal(todo[0].start, 0x7f0000000000);
	assert_int_equal(s.kept, 1);
	assert_int_equal(s.at_allocation, 1);
	/* process_mbind: every large mapping without the plan's policy gets it */
	select_from(maps, numa_maps, &policy, &m, todo, &ntodo, &s);
	assert_int_equal(ntodo, 2);
	assert_int_equal(todo[1].start, 0x7f1000000000);
	assert_int_equal(s.at_allocation, 1);
	/* one page less than 64 MiB is small: only the array */
	move.min_region = 64 * MIB + 4096;
	select_from(maps, numa_maps, &move, &m, todo, &ntodo, &s);
	assert_int_equal(s.large, 1);
	assert_int_equal(ntodo + s.kept, 1);
	move.min_region = 64 * MIB;

	/* process_mbind gave these two the policy at an earlier sample: the sampler's */
	m.placed = given;
	m.nplaced = 2;
	again = edited(numa_maps, "7f1000000000 prefer:0 ", "7f1000000000 weighted interleave:0,2 ");
	select_from(maps, again, &policy, &m, todo, &ntodo, &s);
	assert_int_equal(ntodo, 1);
	assert_int_equal(todo[0].start, 0x7f0000000000);
	assert_int_equal(s.kept, 2);
	assert_int_equal(s.at_allocation, 0);
	free(again);
	/* freed and mapped again at the same address: the task's own policy, all local:
	 * placed again, whatever the address says */
	again = edited(numa_maps, "N0=7000 N2=2000", "N0=9000");
	select_from(maps, again, &move, &m, todo, &ntodo, &s);
	assert_int_equal(ntodo, 2);
	assert_int_equal(todo[1].start, 0x7f1000000000);
	free(again);
	select_from(maps, numa_maps, &policy, &m, todo, &ntodo, &s);
	assert_int_equal(ntodo, 2);
	assert_int_equal(todo[1].start, 0x7f1000000000);
	m.placed = NULL;
	m.nplaced = 0;

	/* pages that could not move at all: left while numa_maps counts them the same,
	 * walked again once they change */
	{
		struct smpol_region *now;
		char err[SMPOL_ERRLEN];
		uint64_t counts[16];
		struct smpol_region_stuck st;
		int n;

		assert_int_equal(smpol_pages_regions_parse(maps, &now, &n, err, sizeof(err)), 0);
		memset(&s, 0, sizeof(s));
		smpol_regions_to_place(now, n, numa_maps, &move, &m, todo, counts, &ntodo, &s);
		assert_int_equal(ntodo, 1);
		st = (struct smpol_region_stuck){ todo[0].start, todo[0].end, counts[0] };
		m.stuck = &st;
		m.nstuck = 1;
		memset(&s, 0, sizeof(s));
		smpol_regions_to_place(now, n, numa_maps, &move, &m, todo, counts, &ntodo, &s);
		assert_int_equal(ntodo, 0);
		assert_int_equal(s.large, 3);
		again = edited(numa_maps, "N0=16384", "N0=16383");
		smpol_regions_to_place(now, n, again, &move, &m, todo, counts, &ntodo, &s);
		assert_int_equal(ntodo, 1);
		free(again);
		/* process_mbind sets the policy whatever the pages did */
		smpol_regions_to_place(now, n, numa_maps, &policy, &m, todo, counts, &ntodo, &s);
		assert_int_equal(ntodo, 2);
		m.stuck = NULL;
		m.nstuck = 0;
		free(now);
	}
	/* a large mapping numa_maps no longer shows (unmapped meanwhile): counted, left */
	again = edited(numa_maps, "7f0000000000 prefer", "7f0000001000 prefer");
	select_from(maps, again, &move, &m, todo, &ntodo, &s);
	assert_int_equal(s.large, 3);
	assert_int_equal(ntodo + s.kept + s.at_allocation, 2);
	free(again);
	/* no mappings at all */
	select_from("", "", &move, &m, todo, &ntodo, &s);
	assert_int_equal(ntodo + s.large, 0);
}

/* A mapping's state from its policy and pages per node. */
static void test_state(void **state)
{
	struct smpol_region_opts move = plan_opts(SMPOL_REGIONS_MOVE), policy = plan_opts(SMPOL_REGIONS_POLICY);
	uint64_t count[SMPOL_MAX_NODES] = { 0 };

	(void)state;
	/* the plan's policy, with or without static nodes, is placed whatever the pages */
	count[0] = 100;
	assert_int_equal(smpol_region_state(&move, "weighted interleave:0,2", count), SMPOL_REGION_PLANNED);
	assert_int_equal(smpol_region_state(&policy, "weighted interleave=static:0,2", count), SMPOL_REGION_PLANNED);
	/* another mode or other nodes is not */
	assert_int_equal(smpol_region_state(&policy, "interleave:0,2", count), SMPOL_REGION_OFF_PLAN);
	assert_int_equal(smpol_region_state(&policy, "weighted interleave:0-2", count), SMPOL_REGION_OFF_PLAN);
	assert_int_equal(smpol_region_state(&policy, "weighted interleave:0", count), SMPOL_REGION_OFF_PLAN);
	assert_int_equal(smpol_region_state(&policy, "default", count), SMPOL_REGION_OFF_PLAN);
	/* page moves: within 0.2% of 7:2 is on the plan, more is not, nor pages on a node
	 * outside the plan */
	{
		static const struct { uint64_t n0, n1, n2; enum smpol_region_state want; } cases[] = {
			{ 7000, 0, 2000, SMPOL_REGION_ON_PLAN }, { 7018, 0, 1982, SMPOL_REGION_ON_PLAN },
			{ 7020, 0, 1980, SMPOL_REGION_OFF_PLAN }, { 7000, 20, 2000, SMPOL_REGION_OFF_PLAN },
		};

		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			count[0] = cases[i].n0;
			count[1] = cases[i].n1;
			count[2] = cases[i].n2;
			assert_int_equal(smpol_region_state(&move, "prefer:0", count), cases[i].want);
		}
	}
	/* all on the task's node: the plan's other node counts though it holds none */
	memset(count, 0, sizeof(count));
	count[0] = 9000;
	assert_int_equal(smpol_region_state(&move, "prefer:0", count), SMPOL_REGION_OFF_PLAN);
	/* nothing touched yet: nothing to move */
	count[0] = 0;
	assert_int_equal(smpol_region_state(&move, "prefer:0", count), SMPOL_REGION_ON_PLAN);
	/* plain interleave's plan */
	move.weighted = false;
	assert_int_equal(smpol_region_state(&move, "interleave:0,2", count), SMPOL_REGION_PLANNED);
	assert_int_equal(smpol_region_state(&move, "weighted interleave:0,2", count), SMPOL_REGION_ON_PLAN);
}

/* Slices of min_region, the last taking the rest; a mapping shorter than two is one;
 * a huge one gets larger slices rather than more than SMPOL_REGION_MAX_SLICES. */
static void test_slices(void **state)
{
	struct smpol_region *out = malloc(sizeof(*out) * SMPOL_REGION_MAX_SLICES);
	struct smpol_region r = { 0x7f0000000000, 0x7f0000000000 + 4 * 64 * MIB + 4096, 0 };

	(void)state;
	assert_non_null(out);
	/* three arrays of 64 MiB and a page, merged: four slices of 64 MiB, the last one longer */
	assert_int_equal(smpol_region_slices(&r, 64 * MIB, out), 4);
	assert_int_equal(out[0].start, r.start);
	assert_int_equal(out[1].start, r.start + 64 * MIB);
	assert_int_equal(out[3].end, r.end);
	assert_int_equal(out[3].end - out[3].start, 64 * MIB + 4096);
	for (int i = 0; i < 3; i++)
		assert_int_equal(out[i].end, out[i + 1].start);
	/* below two slices: itself */
	r.end = r.start + 128 * MIB - 4096;
	assert_int_equal(smpol_region_slices(&r, 64 * MIB, out), 1);
	assert_int_equal(out[0].end, r.end);
	/* 1 TiB in 4 KiB slices would be too many */
	r.end = r.start + 1024 * 1024 * MIB;
	assert_int_equal(smpol_region_slices(&r, 4096, out), SMPOL_REGION_MAX_SLICES);
	assert_int_equal(out[SMPOL_REGION_MAX_SLICES - 1].end, r.end);
	free(out);
}

/* A child with a 4 MiB mapping (placed by interleave over node 0 before it touched
 * it, as the interposer does), a 64 KiB one and two of 3 pages; it waits for SIGKILL.
 * *big = where the 4 MiB are (a sanitizer's runtime adds large mappings of its own). */
static pid_t child_start(uintptr_t *bigp)
{
	int fds[2];
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		size_t page = (size_t)sysconf(_SC_PAGESIZE);
		char *big, *small, *odd;

		/* a test that fails must not leave it holding the test's output open */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		big = mmap(NULL, 4 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		small = mmap(NULL, 64 * 1024, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		/* two touched mappings of 3 pages, kept apart by guard pages */
		odd = mmap(NULL, 9 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (big == MAP_FAILED || small == MAP_FAILED || odd == MAP_FAILED ||
		    mprotect(odd + page, 3 * page, PROT_READ | PROT_WRITE) ||
		    mprotect(odd + 5 * page, 3 * page, PROT_READ | PROT_WRITE))
			_exit(1);
		memset(odd + page, 1, 3 * page);
		memset(odd + 5 * page, 1, 3 * page);
		madvise(big, 4 * MIB, MADV_NOHUGEPAGE);
		/* as the interposer does: the plan's policy before the first touch */
		if (syscall(SYS_mbind, big, 4 * MIB, 3 /* MPOL_INTERLEAVE */, (unsigned long[]){ 1 }, 64, 0) != 0)
			_exit(1);
		memset(big, 1, 4 * MIB);
		memset(small, 1, 64 * 1024);
		if (write(fds[1], &big, sizeof(big)) != sizeof(big))
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], bigp, sizeof(*bigp)), sizeof(*bigp));
	close(fds[0]);
	return pid;
}

/* A live child pinned, with empty placement memory; a plan of plain interleave over
 * node 0 (every machine has it) for mappings of at least 1 MiB. */
struct live {
	pid_t pid;
	uintptr_t big;
	struct smpol_task_ref t;
	struct smpol_region_opts o;
	struct smpol_region_memory m;
	struct smpol_region_sample s;
	char err[SMPOL_ERRLEN];
};

static int live_setup(void **state)
{
	struct live *l = calloc(1, sizeof(*l));

	assert_non_null(l);
	l->pid = child_start(&l->big);
	l->o.by = SMPOL_REGIONS_MOVE;
	l->o.min_region = MIB;
	l->o.move.weight[0] = 1;
	smpol_bitmap_set(&l->o.nodes, 0);
	assert_int_equal(smpol_task_pin(l->pid, 0, &l->t, l->err, sizeof(l->err)), 0);
	*state = l;
	return 0;
}

static void live_end(struct live *l)
{
	if (l->pid > 0) {
		kill(l->pid, SIGKILL);
		waitpid(l->pid, NULL, 0);
	}
	l->pid = 0;
}

static int live_teardown(void **state)
{
	struct live *l = *state;

	live_end(l);
	smpol_task_unpin(&l->t);
	smpol_region_memory_free(&l->m);
	free(l);
	return 0;
}

static int place(struct live *l)
{
	l->err[0] = '\0';
	return smpol_region_place_task(&l->t, &l->o, &l->m, &l->s, l->err, sizeof(l->err));
}

/* Page moves: the child's 4 MiB mapping has the plan's policy, placed as allocated;
 * every other large mapping is on node 0, the plan: nothing moves, sample after
 * sample. The task's end is no error and leaves nothing behind. */
static void test_move_live_child(void **state)
{
	struct live *l = *state;

	for (int i = 0; i < 2; i++) {
		assert_int_equal(place(l), 0);
		assert_false(l->s.exited);
		assert_true(l->s.large >= 1);
		assert_int_equal(l->s.at_allocation, 1);
		assert_int_equal(l->s.kept, l->s.large - 1);
		assert_int_equal(l->s.placed, 0);
		assert_int_equal(l->s.moved, 0);
		assert_int_equal(l->m.nplaced, 0);
	}
	live_end(l);
	assert_int_equal(place(l), 0);
	assert_true(l->s.exited);
	assert_int_equal(l->s.placed, 0);
}

/* With min_region 0 (a child's whole memory) every mapping off the plan is balanced on
 * its own, as a policy spreads each: the minimum planned is the sum of each mapping's
 * own (the two 3-page ones over weights 1:1 each keep a page more on node 0 than one
 * walk of both would). As one whole, a rank the VM tier's mpi
 * check saw placed after it filled its array kept the array off the weights while its
 * total matched them. */
static void test_each_mapping_on_its_own(void **state)
{
	struct live *l = *state;
	struct smpol_rebalance_opts alone;
	struct smpol_rebalance_result r;
	struct smpol_region *now = NULL;
	uint64_t sum = 0;
	int n = 0;

	l->o.min_region = 0;
	l->o.move.weight[1] = 1;
	l->o.move.dry_run = true;         /* this machine may have no node 1: plan only */
	alone = l->o.move;
	alone.backend = SMPOL_BACKEND_MOVE_PAGES;
	alone.slack_permille = SMPOL_REGION_SLACK_PERMILLE;
	assert_int_equal(smpol_pages_regions(l->pid, true, &now, &n, l->err, sizeof(l->err)), 0);
	for (int i = 0; i < n; i++) {
		if (now[i].start == l->big)
			continue;       /* its policy is the plan's: left as allocated */
		assert_int_equal(smpol_rebalance_some(&l->t, &alone, &now[i], 1, &r, l->err, sizeof(l->err)), 0);
		sum += r.minimum;
	}
	free(now);
	assert_int_equal(place(l), 0);
	assert_int_equal(l->s.minimum, sum);
	assert_int_equal(l->s.at_allocation, 1);
	assert_true(l->s.placed >= 3);  /* the 64 KiB and the two 3-page mappings at least */
}

/* A pid that names another process now: the pinned task is gone, nothing is read. */
static void test_recycled_pid(void **state)
{
	struct live *l = *state;

	live_end(l);
	/* as if the pid now named this process (another start time): refused as gone */
	l->t.pid = getpid();
	assert_int_equal(place(l), 0);
	assert_true(l->s.exited);
	assert_int_equal(l->m.nplaced, 0);
}

/* process_mbind where the kernel has none (syscall 500 here): the sentence names it,
 * nothing is remembered, so the next sample tries again; no path at all is refused.
 * (The plan is weighted interleave here: the child's mapping lacks its policy.) */
static void test_policy_refused(void **state)
{
	struct live *l = *state;

	l->o.by = SMPOL_REGIONS_POLICY;
	l->o.weighted = true;
	l->o.move.pmbind_nr = 500;
	l->o.move.pmbind_mode = 3;         /* MPOL_INTERLEAVE */
	l->o.move.pmbind_mask[0] = 1;
	for (int i = 0; i < 2; i++) {
		assert_int_equal(place(l), -ENOSYS);
		assert_non_null(strstr(l->err, "process_mbind over ranges 0-"));
		assert_non_null(strstr(l->err, " failed: Function not implemented"));
		assert_int_equal(l->m.nplaced, 0);
		assert_int_equal(l->s.placed, 0);
	}
	l->o.by = SMPOL_REGIONS_NONE;
	assert_int_equal(place(l), -EINVAL);
	assert_non_null(strstr(l->err, "needs process_mbind or page moves"));
}

/* A task's options from the step's decision: weights per node, the plan's policy for
 * process_mbind; a step that is not region-aware has none. */
static void test_opts_for(void **state)
{
	struct smpol_plan p = { .initiator = 0, .nnodes = 2, .nodes = (int[]){ 0, 2 }, .weights = (unsigned[]){ 7, 2 },
				.shares = (double[2]){ 0 }, .bandwidth = (uint32_t[2]){ 0 },
				.sources = (enum smpol_bw_source[2]){ 0 } };
	struct smpol_placement pl = { .active = true, .path = SMPOL_PATH_WEIGHTED, .plans = &p, .nplans = 1,
				      .min_region_kb = 65536, .regions_by = SMPOL_REGIONS_POLICY };
	struct smpol_region_opts o;
	char err[SMPOL_ERRLEN] = "";

	(void)state;
	assert_int_equal(smpol_region_opts_for(&pl, &p, 500, &o, err, sizeof(err)), 0);
	assert_int_equal(o.by, SMPOL_REGIONS_POLICY);
	assert_int_equal(o.min_region, 64 * MIB);
	assert_int_equal(o.move.weight[0], 7);
	assert_int_equal(o.move.weight[1], 0);
	assert_int_equal(o.move.weight[2], 2);
	assert_int_equal(o.move.pmbind_nr, 500);
	assert_int_equal(o.move.pmbind_mode, 6);        /* MPOL_WEIGHTED_INTERLEAVE */
	assert_int_equal(o.move.pmbind_mask[0], 0x5);
	/* the policy a placed mapping shows in numa_maps */
	assert_true(o.weighted);
	assert_int_equal(smpol_bitmap_count(&o.nodes), 2);
	assert_true(smpol_bitmap_test(&o.nodes, 2));
	pl.regions_by = SMPOL_REGIONS_MOVE;
	assert_int_equal(smpol_region_opts_for(&pl, &p, 500, &o, err, sizeof(err)), 0);
	assert_int_equal(o.move.pmbind_nr, 0);
	assert_int_equal(o.move.pmbind_mode, 0);
	pl.path = SMPOL_PATH_INTERLEAVE;         /* a kernel without weighted interleave: equal */
	assert_int_equal(smpol_region_opts_for(&pl, &p, 500, &o, err, sizeof(err)), 0);
	assert_int_equal(o.move.weight[0], 1);
	assert_int_equal(o.move.weight[2], 1);
	pl.path = SMPOL_PATH_WEIGHTED;
	pl.regions_by = SMPOL_REGIONS_NONE;
	assert_int_equal(smpol_region_opts_for(&pl, &p, 500, &o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not placed"));
	pl.regions_by = SMPOL_REGIONS_POLICY;
	pl.path = SMPOL_PATH_NONE;
	assert_int_equal(smpol_region_opts_for(&pl, &p, 500, &o, err, sizeof(err)), -EINVAL);
	pl.min_region_kb = 0;
	assert_int_equal(smpol_region_opts_for(&pl, &p, 500, &o, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_slices),
		cmocka_unit_test(test_opts_for),
		cmocka_unit_test_setup_teardown(test_move_live_child, live_setup, live_teardown),
		cmocka_unit_test_setup_teardown(test_each_mapping_on_its_own, live_setup, live_teardown),
		cmocka_unit_test_setup_teardown(test_recycled_pid, live_setup, live_teardown),
		cmocka_unit_test_setup_teardown(test_policy_refused, live_setup, live_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
