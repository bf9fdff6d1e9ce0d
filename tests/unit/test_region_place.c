/* test_region_place.c - region-aware placement at each sample: which mappings a
 * sample places (on captured-style smaps text), and one sample of a live child on
 * this kernel: placed once, not again; gone, recycled or refused without a trace. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "pages.h"
#include "proc_stat.h"
#include "region_place.h"
#include "task_ref.h"

#define MIB (1024ULL * 1024)

/* A heap, a 64 MiB mapping, a 1 MiB one, a 256 MiB array, and what is never a task's
 * own (shared, file, no access) however large. */
static const char smaps[] =
	"00e03000-00e24000 rw-p 00000000 00:00 0 [heap]\nRss: 100 kB\n"
	"7f0000000000-7f0004000000 rw-p 00000000 00:00 0 \nSize: 65536 kB\nRss: 65536 kB\n"
	"7f0004000000-7f0004100000 rw-p 00000000 00:00 0 \nRss: 1024 kB\n"
	"7f1000000000-7f1010000000 rw-p 00000000 00:00 0 [anon:array]\nRss: 8 kB\n"
	"7f2000000000-7f2010000000 rw-s 00000000 00:05 12 /dev/zero (deleted)\nRss: 4 kB\n"
	"7f3000000000-7f3010000000 r-xp 00000000 08:02 17 /lib/x.so\nRss: 4 kB\n"
	"7f4000000000-7f4010000000 ---p 00000000 00:00 0 \nRss: 0 kB\n";

static void select_from(const char *text, uint64_t min_region, enum smpol_regions_by by,
			const struct smpol_region_memory *m, struct smpol_region *todo, int *ntodo, int *nlarge)
{
	struct smpol_region *now;
	char err[SMPOL_ERRLEN];
	int n;

	assert_int_equal(smpol_pages_regions_parse(text, &now, &n, err, sizeof(err)), 0);
	smpol_regions_to_place(now, n, min_region, by, m, todo, ntodo, nlarge);
	free(now);
}

static void test_select(void **state)
{
	struct smpol_region todo[8], placed[2] = {
		{ 0x7f0000000000, 0x7f0004000000, 65536 }, { 0x7f1000000000, 0x7f1010000000, 8 },
	};
	struct smpol_region_memory m = { 0 };
	char *grown, *at;
	int ntodo, nlarge;

	(void)state;
	/* nothing placed yet: the two of at least 64 MiB, in address order */
	select_from(smaps, 64 * MIB, SMPOL_REGIONS_MOVE, &m, todo, &ntodo, &nlarge);
	assert_int_equal(nlarge, 2);
	assert_int_equal(ntodo, 2);
	assert_int_equal(todo[0].start, 0x7f0000000000);
	assert_int_equal(todo[1].rss_kb, 8);
	/* one page less than 64 MiB is small: only the array */
	select_from(smaps, 64 * MIB + 4096, SMPOL_REGIONS_POLICY, &m, todo, &ntodo, &nlarge);
	assert_int_equal(nlarge, 1);
	assert_int_equal(todo[0].start, 0x7f1000000000);
	/* both placed as they are now: nothing to do on either path */
	m.placed = placed;
	m.nplaced = 2;
	select_from(smaps, 64 * MIB, SMPOL_REGIONS_MOVE, &m, todo, &ntodo, &nlarge);
	assert_int_equal(ntodo, 0);
	assert_int_equal(nlarge, 2);
	select_from(smaps, 64 * MIB, SMPOL_REGIONS_POLICY, &m, todo, &ntodo, &nlarge);
	assert_int_equal(ntodo, 0);
	/* the array faulted more pages: moved again; a policy already governs them */
	placed[1].rss_kb = 4;
	select_from(smaps, 64 * MIB, SMPOL_REGIONS_MOVE, &m, todo, &ntodo, &nlarge);
	assert_int_equal(ntodo, 1);
	assert_int_equal(todo[0].start, 0x7f1000000000);
	select_from(smaps, 64 * MIB, SMPOL_REGIONS_POLICY, &m, todo, &ntodo, &nlarge);
	assert_int_equal(ntodo, 0);
	/* the 64 MiB mapping grew (same start, new end): a new mapping to both paths */
	grown = strdup(smaps);
	assert_non_null(grown);
	at = strstr(grown, "7f0000000000-7f0004000000");
	assert_non_null(at);
	memcpy(at, "7f0000000000-7f0004001000", 25);
	select_from(grown, 64 * MIB, SMPOL_REGIONS_POLICY, &m, todo, &ntodo, &nlarge);
	assert_int_equal(ntodo, 1);
	assert_int_equal(todo[0].end, 0x7f0004001000);
	free(grown);
	/* no mappings at all */
	select_from("", 64 * MIB, SMPOL_REGIONS_MOVE, &m, todo, &ntodo, &nlarge);
	assert_int_equal(ntodo + nlarge, 0);
}

/* A child with a 4 MiB mapping (touched), a 64 KiB one and two of 3 pages (guard pages
 * keep them apart); it waits for SIGKILL. *big = where the 4 MiB are (a sanitizer's
 * runtime adds large mappings of its own). */
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
		odd = mmap(NULL, 9 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (big == MAP_FAILED || small == MAP_FAILED || odd == MAP_FAILED ||
		    mprotect(odd + page, 3 * page, PROT_READ | PROT_WRITE) ||
		    mprotect(odd + 5 * page, 3 * page, PROT_READ | PROT_WRITE))
			_exit(1);
		memset(odd + page, 1, 3 * page);
		memset(odd + 5 * page, 1, 3 * page);
		madvise(big, 4 * MIB, MADV_NOHUGEPAGE);
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

/* A live child pinned, with empty placement memory; page moves onto node 0 (every
 * machine has it) for mappings of at least 1 MiB. */
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

/* The 4 MiB mapping among those placed. */
static bool big_placed(const struct live *l)
{
	for (int i = 0; i < l->m.nplaced; i++)
		if (l->m.placed[i].start == l->big && l->m.placed[i].end == l->big + 4 * MIB)
			return true;
	return false;
}

/* Page moves: the large mappings are walked once (the 4 MiB among them), then not
 * while they hold the same pages; the task's end is no error and leaves nothing behind. */
static void test_move_live_child(void **state)
{
	struct live *l = *state;

	assert_int_equal(place(l), 0);
	assert_false(l->s.exited);
	assert_true(l->s.large >= 1);
	assert_int_equal(l->s.placed, l->s.large);
	assert_int_equal(l->s.policies, 0);
	assert_true(l->s.pages >= 4 * MIB / (uint64_t)sysconf(_SC_PAGESIZE));
	/* the planner chose the minimum, each page moved or counted (one node: 0) */
	assert_int_equal(l->s.moved + l->s.not_moved, l->s.minimum);
	assert_int_equal(l->m.nplaced, l->s.large);
	assert_true(big_placed(l));
	assert_int_equal(place(l), 0);
	assert_int_equal(l->s.placed, 0);
	assert_int_equal(l->s.pages, 0);
	assert_true(big_placed(l));
	live_end(l);
	assert_int_equal(place(l), 0);
	assert_true(l->s.exited);
	assert_int_equal(l->s.placed, 0);
}

/* Every mapping is balanced on its own (min_region 0: all take part), as a policy
 * spreads each: the minimum planned is the sum of each mapping's own (the two 3-page
 * ones over weights 1:1 each keep a page more on node 0 than one walk of the whole
 * would). As one whole, a rank the VM tier's mpi check saw placed after it filled its
 * array kept the array off the weights while its total matched. */
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
	assert_int_equal(smpol_pages_regions(l->pid, true, &now, &n, l->err, sizeof(l->err)), 0);
	for (int i = 0; i < n; i++) {
		assert_int_equal(smpol_rebalance_some(&l->t, &alone, &now[i], 1, &r, l->err, sizeof(l->err)), 0);
		sum += r.minimum;
	}
	free(now);
	assert_int_equal(place(l), 0);
	assert_int_equal(l->s.placed, n);
	assert_int_equal(l->s.minimum, sum);
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
 * nothing is remembered, so the next sample tries again; no path at all is refused. */
static void test_policy_refused(void **state)
{
	struct live *l = *state;

	l->o.by = SMPOL_REGIONS_POLICY;
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
	struct smpol_plan p = { .initiator = 0, .nnodes = 2, .nodes = { 0, 2 }, .weights = { 7, 2 } };
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
		cmocka_unit_test(test_opts_for),
		cmocka_unit_test_setup_teardown(test_move_live_child, live_setup, live_teardown),
		cmocka_unit_test_setup_teardown(test_each_mapping_on_its_own, live_setup, live_teardown),
		cmocka_unit_test_setup_teardown(test_recycled_pid, live_setup, live_teardown),
		cmocka_unit_test_setup_teardown(test_policy_refused, live_setup, live_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
