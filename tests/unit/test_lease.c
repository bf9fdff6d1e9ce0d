/* test_lease.c - the weights lease on fake sysfs trees: journal, lock, crashes, races. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "fake_tree.h"
#include "lease.h"
#include "statedir.h"

#define ORIGINAL "0:7 1:7 2:2"

struct fixture {
	char *root;                /* the fake sysfs */
	char statedir[4200];
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	fx->root = fake_tree_new();
	snprintf(fx->statedir, sizeof(fx->statedir), "%s/state", fx->root);
	fake_tree_wi(fx->root, "auto", "true", ORIGINAL);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	fake_tree_free(fx->root);
	free(fx);
	return 0;
}

static struct smpol_lease_owner owner_of(uint32_t job, pid_t pid)
{
	struct smpol_lease_owner o = { .job_id = job, .step_id = 0, .uid = 1000 + job, .pid = pid };
	char err[SMPOL_ERRLEN];

	assert_int_equal(smpol_lease_owner_self(&o, err, sizeof(err)), 0);
	return o;
}

/* Weights 9 on node 0 and 3 on node 2 (the job's plan). */
static void job_weights(struct smpol_wi_table *t, struct smpol_bitmap *which, unsigned w0)
{
	memset(t, 0, sizeof(*t));
	smpol_bitmap_clear(which);
	smpol_bitmap_set(which, 0);
	smpol_bitmap_set(which, 2);
	t->weight[0] = (uint8_t)w0;
	t->weight[2] = 3;
}

static void assert_original(const char *root)
{
	assert_string_equal(fake_tree_read(root, FAKE_WI_DIR "/node0"), "7");
	assert_string_equal(fake_tree_read(root, FAKE_WI_DIR "/node1"), "7");
	assert_string_equal(fake_tree_read(root, FAKE_WI_DIR "/node2"), "2");
	assert_string_equal(fake_tree_read(root, FAKE_WI_DIR "/auto"), "true");
}

static const char *journal_text(const struct fixture *fx)
{
	return fake_tree_read(fx->statedir, "/weights.journal");
}

static pid_t dead_pid(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static void test_acquire_release(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_owner me = owner_of(1, 0);
	struct smpol_lease_state st;
	struct smpol_wi_table w;
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN];
	bool auto_failed = true;

	job_weights(&w, &which, 9);
	assert_int_equal(smpol_lease_acquire(fake_host(fx->root, fx->statedir), &me, &w, &which, err, sizeof(err)), 0);
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node0"), "9");
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node2"), "3");
	assert_int_equal(smpol_lease_inspect(fake_host(NULL, fx->statedir), &st, err, sizeof(err)), 0);
	assert_true(st.held);
	assert_true(st.holder_alive);
	assert_int_equal(st.owner.job_id, 1);
	assert_int_equal(st.saved.auto_enabled, 1);
	assert_int_equal(st.saved.weight[0], 7);
	/* The same step again: weights rewritten, the first journal kept. */
	job_weights(&w, &which, 11);
	assert_int_equal(smpol_lease_acquire(fake_host(fx->root, fx->statedir), &me, &w, &which, err, sizeof(err)), 0);
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node0"), "11");
	assert_int_equal(smpol_lease_release(fake_host(fx->root, fx->statedir), &me, &auto_failed, err, sizeof(err)), 0);
	assert_false(auto_failed);
	assert_original(fx->root);
	assert_string_equal(journal_text(fx), "<missing>");
	assert_int_equal(smpol_lease_release(fake_host(fx->root, fx->statedir), &me, NULL, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no weights lease is held"));
}

/* Seconds since start (CLOCK_MONOTONIC). */
static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

/* The lock held by someone else: acquire and release each give up after lock_timeout
 * (the wait is measured: 0.2 s asked must not become the 5 s default), say what
 * happened, and leave the table and the journal consistent (the alarm fails an
 * unbounded wait). */
static void test_lock_held_too_long(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_owner me = owner_of(1, 0);
	struct smpol_host h = { 0 };
	struct smpol_wi_table w;
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN];
	int held;

	struct timespec start;
	double waited;

	assert_int_equal(smpol_host_copy(&h, fake_host(fx->root, fx->statedir)), 0);
	h.lock_timeout_ms = 200;
	job_weights(&w, &which, 9);
	assert_int_equal(smpol_statedir_lock(&h, "lock", true, LOCK_EX, &held, err, sizeof(err)), 0);
	alarm(20);
	clock_gettime(CLOCK_MONOTONIC, &start);
	assert_int_equal(smpol_lease_acquire(&h, &me, &w, &which, err, sizeof(err)), -ETIMEDOUT);
	waited = seconds_since(&start);
	assert_true(waited >= 0.19);
	assert_true(waited < 1.0);
	assert_non_null(strstr(err, "held it for longer than 0.200 s (lock_timeout=); 'lslocks' names the holder; "
				    "nothing was written"));
	assert_original(fx->root);
	close(held);
	assert_int_equal(smpol_lease_acquire(&h, &me, &w, &which, err, sizeof(err)), 0);
	assert_int_equal(smpol_statedir_lock(&h, "lock", true, LOCK_EX, &held, err, sizeof(err)), 0);
	assert_int_equal(smpol_lease_release(&h, &me, NULL, err, sizeof(err)), -ETIMEDOUT);
	alarm(0);
	assert_non_null(strstr(err, "the weights stay as journaled until the next step or 'mpolctl recover' "
				    "restores them"));
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node0"), "9");
	assert_string_not_equal(journal_text(fx), "<missing>");
	close(held);
	assert_int_equal(smpol_lease_release(&h, &me, NULL, err, sizeof(err)), 0);
	assert_original(fx->root);
	smpol_host_free(&h);
}

static void test_live_holder_refuses(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_owner me = owner_of(1, 0), other = me;
	struct smpol_lease_state st;
	struct smpol_wi_table w;
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN];

	job_weights(&w, &which, 9);
	assert_int_equal(smpol_lease_acquire(fake_host(fx->root, fx->statedir), &me, &w, &which, err, sizeof(err)), 0);
	other.job_id = 2;
	other.uid = 1002;
	job_weights(&w, &which, 40);
	assert_int_equal(smpol_lease_acquire(fake_host(fx->root, fx->statedir), &other, &w, &which, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "held by job 1 step 0 (uid 1001"));
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node0"), "9");
	/* Neither may another step release it, nor recover take it while it lives. */
	assert_int_equal(smpol_lease_release(fake_host(fx->root, fx->statedir), &other, NULL, err, sizeof(err)), -EPERM);
	assert_int_equal(smpol_lease_recover(fake_host(fx->root, fx->statedir), false, &st, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "still running"));
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node0"), "9");
	assert_int_equal(smpol_lease_recover(fake_host(fx->root, fx->statedir), true, &st, err, sizeof(err)), 0);
	assert_true(st.restored);
	assert_original(fx->root);
}

/* A holder killed after writing the weights: the next acquire restores first. */
static void test_holder_killed_after_write(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_owner next = owner_of(5, 0);
	struct smpol_lease_state st;
	struct smpol_wi_table w;
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN], c;
	int ready[2];
	pid_t child;

	assert_int_equal(pipe(ready), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct smpol_lease_owner o = owner_of(4, 0);

		job_weights(&w, &which, 50);
		if (smpol_lease_acquire(fake_host(fx->root, fx->statedir), &o, &w, &which, err, sizeof(err)) < 0)
			_exit(1);
		c = 'x';
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node0"), "50");
	assert_int_equal(smpol_lease_inspect(fake_host(NULL, fx->statedir), &st, err, sizeof(err)), 0);
	assert_true(st.held);
	assert_false(st.holder_alive);
	/* The next step's journal must hold the original table, not the dead step's. */
	job_weights(&w, &which, 9);
	assert_int_equal(smpol_lease_acquire(fake_host(fx->root, fx->statedir), &next, &w, &which, err, sizeof(err)), 0);
	assert_int_equal(smpol_lease_inspect(fake_host(NULL, fx->statedir), &st, err, sizeof(err)), 0);
	assert_int_equal(st.owner.job_id, 5);
	assert_int_equal(st.saved.weight[0], 7);
	assert_int_equal(smpol_lease_release(fake_host(fx->root, fx->statedir), &next, NULL, err, sizeof(err)), 0);
	assert_original(fx->root);
}

static void write_journal_by_hand(const struct fixture *fx, pid_t pid, unsigned long long start, const char *saved)
{
	char text[512];

	snprintf(text, sizeof(text), "slurm-mempolicy lease v1\nowner job=8 step=1 uid=1008 pid=%d start=%llu\nsaved %s\n",
		 (int)pid, start, saved);
	mkdir(fx->statedir, 0755);
	fake_tree_write(fx->statedir, "/weights.journal", text);
}

/* A holder that died between the journal's rename and the first weight write. */
static void test_crash_between_journal_and_write(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_state st;
	char err[SMPOL_ERRLEN];

	write_journal_by_hand(fx, dead_pid(), 1, "auto=1 0:7 1:7 2:2");
	assert_int_equal(smpol_lease_recover(fake_host(fx->root, fx->statedir), false, &st, err, sizeof(err)), 0);
	assert_true(st.held);
	assert_false(st.holder_alive);
	assert_true(st.restored);
	assert_int_equal(st.owner.job_id, 8);
	assert_original(fx->root);
	assert_string_equal(journal_text(fx), "<missing>");
	/* Nothing left: recover is a no-op that says so. */
	assert_int_equal(smpol_lease_recover(fake_host(fx->root, fx->statedir), false, &st, err, sizeof(err)), 0);
	assert_false(st.held);
}

/* Our own pid with another start time: the pid was recycled, the holder is gone. */
static void test_recycled_pid(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_owner me = owner_of(1, 0);
	struct smpol_lease_state st;
	char err[SMPOL_ERRLEN];

	fake_tree_wi(fx->root, NULL, NULL, "0:60 2:30");
	write_journal_by_hand(fx, me.pid, (unsigned long long)me.pid_start + 1, "auto=1 0:7 1:7 2:2");
	assert_int_equal(smpol_lease_inspect(fake_host(NULL, fx->statedir), &st, err, sizeof(err)), 0);
	assert_false(st.holder_alive);
	assert_int_equal(smpol_lease_recover(fake_host(fx->root, fx->statedir), false, &st, err, sizeof(err)), 0);
	assert_original(fx->root);
}

static bool wait_for_zombie(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 400; i++) {
		const char *stat = fake_tree_read("", path);
		const char *paren = strrchr(stat, ')');

		if (paren && !strncmp(paren, ") Z", 3))
			return true;
		usleep(5000);
	}
	return false;
}

/* A holder killed but not yet reaped (a zombie) holds nothing. */
static void test_zombie_holder(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_state st;
	char err[SMPOL_ERRLEN];
	struct smpol_lease_owner zombie = { .job_id = 3 };
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	zombie.pid = pid;
	/* Its start time (a zombie keeps it), once it has exited and is not reaped. */
	assert_int_equal(smpol_lease_owner_self(&zombie, err, sizeof(err)), 0);
	assert_true(wait_for_zombie(pid));
	write_journal_by_hand(fx, pid, (unsigned long long)zombie.pid_start, "auto=1 0:7 1:7 2:2");
	assert_false(smpol_lease_owner_alive(&zombie));
	assert_int_equal(smpol_lease_recover(fake_host(fx->root, fx->statedir), false, &st, err, sizeof(err)), 0);
	assert_true(st.restored);
	waitpid(pid, NULL, 0);
}

static void test_malformed_journal(void **state)
{
	static const char *const bad[] = {
		"garbage",
		"slurm-mempolicy lease v1\nowner job=8 step=1 uid=1 pid=1 start=1\n",
		"slurm-mempolicy lease v1\nowner job=x step=1 uid=1 pid=1 start=1\nsaved auto=1 0:7\n",
		"slurm-mempolicy lease v1\nowner job=8 step=1 uid=1 pid=1 start=1\nsaved auto=1 0:700\n",
		"slurm-mempolicy lease v9\nowner job=8 step=1 uid=1 pid=1 start=1\nsaved auto=1 0:7\n",
	};
	struct fixture *fx = *state;
	struct smpol_lease_owner me = owner_of(1, 0);
	struct smpol_lease_state st;
	struct smpol_wi_table w;
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN], before[512];

	mkdir(fx->statedir, 0755);
	job_weights(&w, &which, 9);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fake_tree_write(fx->statedir, "/weights.journal", bad[i]);
		snprintf(before, sizeof(before), "%s", journal_text(fx));
		assert_int_equal(smpol_lease_acquire(fake_host(fx->root, fx->statedir), &me, &w, &which, err, sizeof(err)), -EBADMSG);
		assert_non_null(strstr(err, "is malformed"));
		assert_non_null(strstr(err, "nothing was changed"));
		assert_int_equal(smpol_lease_recover(fake_host(fx->root, fx->statedir), true, &st, err, sizeof(err)), -EBADMSG);
		assert_original(fx->root);
		assert_string_equal(journal_text(fx), before);
	}
}

static void test_vanished_node(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_owner me = owner_of(1, 0);
	struct smpol_wi_table w;
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN], path[4200];

	/* Asked for a node without a file: nothing written, no journal. */
	job_weights(&w, &which, 9);
	smpol_bitmap_set(&which, 3);
	w.weight[3] = 1;
	assert_int_equal(smpol_lease_acquire(fake_host(fx->root, fx->statedir), &me, &w, &which, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "node 3"));
	assert_original(fx->root);
	assert_string_equal(journal_text(fx), "<missing>");
	/* Node 1 removed while the lease is held: the rest is still restored. */
	smpol_bitmap_unset(&which, 3);
	assert_int_equal(smpol_lease_acquire(fake_host(fx->root, fx->statedir), &me, &w, &which, err, sizeof(err)), 0);
	snprintf(path, sizeof(path), "%s" FAKE_WI_DIR "/node1", fx->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(smpol_lease_release(fake_host(fx->root, fx->statedir), &me, NULL, err, sizeof(err)), 0);
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node0"), "7");
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node2"), "2");
	assert_string_equal(journal_text(fx), "<missing>");
}

/* Node 2 refuses the write after node 0 was written: node 0 is put back, no journal left. */
static void test_write_fails_midway(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_owner me = owner_of(1, 0);
	struct smpol_wi_table w;
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN], path[4200];

	/* A small number that even root cannot write (mode 0444 sysctl). */
	snprintf(path, sizeof(path), "%s" FAKE_WI_DIR "/node2", fx->root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink("/proc/sys/kernel/cap_last_cap", path), 0);
	job_weights(&w, &which, 9);
	assert_true(smpol_lease_acquire(fake_host(fx->root, fx->statedir), &me, &w, &which, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "node2"));
	assert_string_equal(fake_tree_read(fx->root, FAKE_WI_DIR "/node0"), "7");
	assert_string_equal(journal_text(fx), "<missing>");
}

/* Two steps acquire at the same moment: exactly one wins, the other writes nothing. */
static void test_concurrent_acquire(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_state st;
	char err[SMPOL_ERRLEN], c;
	int go[2], done[2], won = 0, busy = 0;
	pid_t kids[2];

	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	for (int k = 0; k < 2; k++) {
		kids[k] = fork();
		assert_true(kids[k] >= 0);
		if (kids[k] == 0) {
			struct smpol_lease_owner o = owner_of(10 + (uint32_t)k, 0);
			struct smpol_wi_table w;
			struct smpol_bitmap which;
			int rc;

			close(go[1]);
			job_weights(&w, &which, 20 + (unsigned)k);
			if (read(go[0], &c, 1) != 0)   /* EOF: the parent let both go */
				_exit(3);
			rc = smpol_lease_acquire(fake_host(fx->root, fx->statedir), &o, &w, &which, err, sizeof(err));
			c = rc == 0 ? 'W' : rc == -EBUSY ? 'B' : 'E';
			if (write(done[1], &c, 1) != 1)
				_exit(3);
			pause();   /* stay alive: a live holder keeps the lease */
			_exit(0);
		}
	}
	close(go[0]);
	close(go[1]);
	close(done[1]);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(read(done[0], &c, 1), 1);
		won += c == 'W';
		busy += c == 'B';
	}
	close(done[0]);
	assert_int_equal(won, 1);
	assert_int_equal(busy, 1);
	assert_int_equal(smpol_lease_inspect(fake_host(NULL, fx->statedir), &st, err, sizeof(err)), 0);
	assert_int_equal(st.saved.weight[0], 7);
	assert_int_equal(atoi(fake_tree_read(fx->root, FAKE_WI_DIR "/node0")), 20 + (int)(st.owner.job_id - 10));
	for (int k = 0; k < 2; k++) {
		kill(kids[k], SIGKILL);
		waitpid(kids[k], NULL, 0);
	}
	assert_int_equal(smpol_lease_recover(fake_host(fx->root, fx->statedir), false, &st, err, sizeof(err)), 0);
	assert_true(st.restored);
	assert_original(fx->root);
}

static void test_no_kernel_support(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_owner me = owner_of(1, 0);
	struct smpol_wi_table w;
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN];
	char *old = fake_tree_new();     /* a 6.1 kernel: no weighted_interleave directory */
	char statedir[4200];

	snprintf(statedir, sizeof(statedir), "%s/state", old);
	(void)fx;
	job_weights(&w, &which, 9);
	assert_int_equal(smpol_lease_acquire(fake_host(old, statedir), &me, &w, &which, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "needs Linux 6.9"));
	assert_string_equal(fake_tree_read(statedir, "/weights.journal"), "<missing>");
	fake_tree_free(old);
}

static void test_statedir_unusable(void **state)
{
	struct fixture *fx = *state;
	struct smpol_lease_owner me = owner_of(1, 0);
	struct smpol_wi_table w;
	struct smpol_bitmap which;
	char err[SMPOL_ERRLEN], statedir[4200];

	snprintf(statedir, sizeof(statedir), "%s/no/such/dir", fx->root);
	job_weights(&w, &which, 9);
	assert_int_equal(smpol_lease_acquire(fake_host(fx->root, statedir), &me, &w, &which, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot create the state directory"));
	assert_original(fx->root);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_acquire_release),
		T(test_lock_held_too_long),
		T(test_live_holder_refuses),
		T(test_holder_killed_after_write),
		T(test_crash_between_journal_and_write),
		T(test_recycled_pid),
		T(test_zombie_holder),
		T(test_malformed_journal),
		T(test_vanished_node),
		T(test_write_fails_midway),
		T(test_concurrent_acquire),
		T(test_no_kernel_support),
		T(test_statedir_unusable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
