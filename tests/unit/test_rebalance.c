/* test_rebalance.c - the rebalance machinery that does not need several NUMA nodes:
 * pinned tasks (exited, recycled pids), maps parsing, page queries and moves on a
 * child, the backend choice and the process_mbind refusals, scontrol listpids
 * parsing, uevent parsing and the settle logic of the hotplug listener. */
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "cpuset.h"
#include "error.h"
#include "hotplug.h"
#include "job_id.h"
#include "job_pids.h"
#include "pages.h"
#include "pmbind.h"
#include "proc_stat.h"
#include "rebalance.h"
#include "task_ref.h"

/* A child that touches `pages` pages of anonymous memory, tells us where, and waits. */
struct child {
	pid_t pid;
	uintptr_t addr;
};

static void child_start(struct child *c, size_t pages)
{
	int fds[2];

	assert_int_equal(pipe(fds), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		size_t len = pages * (size_t)sysconf(_SC_PAGESIZE);
		char *p;

		/* A test that fails or aborts must not leave us waiting for ever. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			_exit(1);
		madvise(p, len, MADV_NOHUGEPAGE);
		memset(p, 1, len);
		if (write(fds[1], &p, sizeof(p)) != sizeof(p))
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c->addr, sizeof(c->addr)), sizeof(c->addr));
	close(fds[0]);
}

static void child_stop(struct child *c)
{
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
}

static void test_pin_live_and_exited(void **state)
{
	struct smpol_task_ref t;
	struct child c;
	char err[SMPOL_ERRLEN];

	(void)state;
	child_start(&c, 4);
	assert_int_equal(smpol_task_pin(c.pid, 0, &t, err, sizeof(err)), 0);
	assert_true(t.start > 0);
	assert_int_equal(t.uid, getuid());
	assert_int_equal(smpol_task_check(&t, err, sizeof(err)), 0);
	child_stop(&c);
	/* Reaped: the pidfd says so even before the pid is reused. */
	assert_int_equal(smpol_task_check(&t, err, sizeof(err)), -ESRCH);
	assert_non_null(strstr(err, "has exited"));
	smpol_task_unpin(&t);
	smpol_task_unpin(&t);
	assert_int_equal(smpol_task_pin(c.pid, 0, &t, err, sizeof(err)), -ESRCH);
	assert_int_equal(smpol_task_pin(0, 0, &t, err, sizeof(err)), -EINVAL);
	assert_int_equal(smpol_task_pin(-5, 0, &t, err, sizeof(err)), -EINVAL);
}

/* A pid whose start time is not the one seen earlier is a recycled pid: refused. */
static void test_pin_recycled_pid(void **state)
{
	struct smpol_task_ref t;
	uint64_t start;
	char err[SMPOL_ERRLEN], comm[32];

	(void)state;
	assert_int_equal(smpol_proc_stat(getpid(), &start, NULL, comm, sizeof(comm)), 0);
	assert_int_equal(smpol_task_pin(getpid(), start + 1, &t, err, sizeof(err)), -ESTALE);
	assert_non_null(strstr(err, "reused"));
	assert_int_equal(t.pidfd, -1);
	assert_int_equal(smpol_task_pin(getpid(), start, &t, err, sizeof(err)), 0);
	smpol_task_unpin(&t);
}

static void test_regions_parse(void **state)
{
	const char *maps =
		"00400000-00452000 r-xp 00000000 08:02 173521 /usr/bin/prog\n"
		"00e03000-00e24000 rw-p 00000000 00:00 0 [heap]\n"
		"7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \n"
		"7f0000100000-7f0000101000 ---p 00000000 00:00 0 \n"
		"7f0000200000-7f0000300000 rw-s 00000000 00:05 12 /dev/zero (deleted)\n"
		"7f0000300000-7f0000400000 rw-p 00000000 00:00 0 [anon:scratch]\n"
		"7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0 [stack]\n"
		"7ffc000fe000-7ffc00100000 r-xp 00000000 00:00 0 [vdso]\n";
	struct smpol_region *r;
	char err[SMPOL_ERRLEN];
	int n;

	(void)state;
	assert_int_equal(smpol_pages_regions_parse(maps, &r, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(r[0].start, 0xe03000);
	assert_int_equal(r[1].end, 0x7f0000100000);
	assert_int_equal(r[2].start, 0x7f0000300000);
	assert_int_equal(r[3].start, 0x7ffc00000000);
	assert_int_equal(r[3].rss_kb, 0);       /* maps has no Rss */
	free(r);
	/* smaps: a mapping with no resident page is dropped, attribute lines skipped. */
	assert_int_equal(smpol_pages_regions_parse(
		"00e03000-00e24000 rw-p 00000000 00:00 0 [heap]\nSize: 132 kB\nRss: 0 kB\nVmFlags: rd wr\n"
		"7f0000000000-7f0000100000 rw-p 00000000 00:00 0 \nSize: 1024 kB\nRss: 8 kB\nAnonymous: 8 kB\n"
		"7f0000100000-7f0000200000 r-xp 00000000 08:02 17 /lib/x.so\nRss: 0 kB\n", &r, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].start, 0x7f0000000000);
	assert_int_equal(r[0].rss_kb, 8);       /* the sampler re-balances a mapping when it changes */
	free(r);
	assert_int_equal(smpol_pages_regions_parse("", &r, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(smpol_pages_regions_parse("zzz-1 rw-p\n", &r, &n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line 1"));
	assert_int_equal(smpol_pages_regions_parse("2000-1000 rw-p 0 0 0\n", &r, &n, err, sizeof(err)), -EINVAL);
}

/* On this kernel: the child's pages are found, counted on a node, and a move to the
 * node they are on is a no-op. */
static void test_query_and_move_child(void **state)
{
	struct child c;
	struct smpol_region *r;
	char err[SMPOL_ERRLEN];
	void *addrs[8];
	int status[8], nodes[8], n, found = 0;

	(void)state;
	child_start(&c, 8);
	assert_int_equal(smpol_pages_regions(c.pid, true, &r, &n, err, sizeof(err)), 0);
	for (int i = 0; i < n; i++)
		found = found || (r[i].start <= c.addr && c.addr < r[i].end);
	assert_true(found);
	free(r);
	for (int i = 0; i < 8; i++)
		addrs[i] = (void *)(c.addr + (uintptr_t)i * (uintptr_t)sysconf(_SC_PAGESIZE));
	assert_int_equal(smpol_pages_query(c.pid, addrs, 8, status, err, sizeof(err)), 0);
	for (int i = 0; i < 8; i++) {
		assert_true(status[i] >= 0);
		nodes[i] = status[i];
	}
	assert_int_equal(smpol_pages_move(c.pid, addrs, nodes, 8, status, err, sizeof(err)), 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(status[i], nodes[i]);
	child_stop(&c);
	assert_int_equal(smpol_pages_query(c.pid, addrs, 8, status, err, sizeof(err)), -ESRCH);
	assert_non_null(strstr(err, "has exited"));
	assert_int_equal(smpol_pages_regions(c.pid, true, &r, &n, err, sizeof(err)), -ESRCH);
}

/* The whole walk on a child, all pages already where the one-node plan wants them. */
static void test_rebalance_child_one_node(void **state)
{
	struct smpol_rebalance_opts o;
	struct smpol_rebalance_result *r = malloc(sizeof(*r));
	struct smpol_task_ref t;
	struct child c;
	char err[SMPOL_ERRLEN];
	int node;

	(void)state;
	assert_non_null(r);
	child_start(&c, 64);
	assert_int_equal(smpol_task_pin(c.pid, 0, &t, err, sizeof(err)), 0);
	{
		void *a = (void *)c.addr;

		assert_int_equal(smpol_pages_query(c.pid, &a, 1, &node, err, sizeof(err)), 0);
	}
	memset(&o, 0, sizeof(o));
	o.backend = SMPOL_BACKEND_MOVE_PAGES;
	o.batch = 7;
	o.weight[node] = 1;
	assert_int_equal(smpol_rebalance_task(&t, &o, r, err, sizeof(err)), 0);
	assert_true(r->pages >= 64);
	assert_int_equal(r->minimum, 0);
	assert_int_equal(r->planned, 0);
	assert_int_equal(r->moved, 0);
	assert_false(r->exited);
	assert_int_equal(r->after[node], r->before[node]);
	child_stop(&c);
	/* Exited before the run: reported as exited, nothing done. */
	assert_int_equal(smpol_rebalance_task(&t, &o, r, err, sizeof(err)), 0);
	assert_true(r->exited);
	assert_int_equal(r->pages, 0);
	smpol_task_unpin(&t);
	free(r);
}

/* A raised stop flag ends the walk after the first batch and says so. */
static void test_rebalance_stop_flag(void **state)
{
	static volatile sig_atomic_t stop = 1;
	struct smpol_rebalance_opts o;
	struct smpol_rebalance_result *r = malloc(sizeof(*r));
	struct smpol_task_ref t;
	struct child c;
	char err[SMPOL_ERRLEN];

	(void)state;
	child_start(&c, 64);
	assert_int_equal(smpol_task_pin(c.pid, 0, &t, err, sizeof(err)), 0);
	memset(&o, 0, sizeof(o));
	o.backend = SMPOL_BACKEND_MOVE_PAGES;
	o.batch = 8;
	o.stop = &stop;
	o.weight[0] = 1;
	assert_int_equal(smpol_rebalance_task(&t, &o, r, err, sizeof(err)), 0);
	assert_true(r->interrupted);
	assert_true(r->pages <= 8);
	child_stop(&c);
	smpol_task_unpin(&t);
	free(r);
}

static void test_backend_choice(void **state)
{
	enum smpol_backend b;
	char err[SMPOL_ERRLEN], why[512];

	(void)state;
	assert_int_equal(smpol_backend_parse("move_pages", &b, err, sizeof(err)), 0);
	assert_int_equal(b, SMPOL_BACKEND_MOVE_PAGES);
	assert_string_equal(smpol_backend_name(SMPOL_BACKEND_PROCESS_MBIND), "process_mbind");
	assert_int_equal(smpol_backend_parse("mbind", &b, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "migrate_pages"));
	assert_int_equal(smpol_backend_choose(SMPOL_BACKEND_AUTO, 0, &b, why, sizeof(why), err, sizeof(err)), 0);
	assert_int_equal(b, SMPOL_BACKEND_MOVE_PAGES);
	assert_non_null(strstr(why, "not configured"));
	/* A configured number that is statmount: refused, and auto says why it fell back. */
	assert_int_equal(smpol_backend_choose(SMPOL_BACKEND_AUTO, 457, &b, why, sizeof(why), err, sizeof(err)), 0);
	assert_int_equal(b, SMPOL_BACKEND_MOVE_PAGES);
	assert_non_null(strstr(why, "statmount"));
	assert_int_equal(smpol_backend_choose(SMPOL_BACKEND_PROCESS_MBIND, 0, &b, why, sizeof(why), err, sizeof(err)),
			 -EINVAL);
}

/* 457 and 458 and every upstream number are refused without a call; a free number
 * this kernel does not implement answers ENOSYS to the probe. */
static void test_pmbind_probe(void **state)
{
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_pmbind_probe(457, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "statmount"));
	assert_int_equal(smpol_pmbind_probe(458, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "listmount"));
	assert_int_equal(smpol_pmbind_probe(3, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a free number"));
	assert_int_equal(smpol_pmbind_probe(4000, err, sizeof(err)), -ENOSYS);
	assert_non_null(strstr(err, "not implemented"));
}

static void test_listpids_parse(void **state)
{
	const char *out =
		"PID      JOBID    STEPID   LOCALID GLOBALID\n"
		"4242     17       0        0       0\n"
		"4243     17       0        1       1\n"
		"4300     17       batch    0       0\n"
		"4301     17       extern   -       -\n";
	struct job_pid *p;
	char err[SMPOL_ERRLEN];
	int n;

	(void)state;
	assert_int_equal(job_pids_parse(out, &p, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 4);
	assert_int_equal(p[1].pid, 4243);
	assert_int_equal(p[1].local_id, 1);
	assert_string_equal(p[2].step, "batch");
	assert_int_equal(p[3].local_id, -1);
	free(p);
	assert_int_equal(job_pids_parse("PID JOBID\n12 x 0 0 0\n", &p, &n, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "row 2"));
	/* found by tests/fuzz: 4294967290 wrapped to pid -6, 4294967297 to pid 1 */
	assert_int_equal(job_pids_parse("4294967290 17 0 0 0\n", &p, &n, err, sizeof(err)), -EBADMSG);
	assert_int_equal(job_pids_parse("4294967297 17 0 0 0\n", &p, &n, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "row 1"));
	assert_int_equal(job_pids_parse("", &p, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
}

/* One parser of job ids for every verb: report takes array tasks, rebalance does not. */
static void test_job_id(void **state)
{
	static const char *const bad[] = { "0", "-1", "+1", "12a", "99999999999", "4294967296", "5.", "17.x",
					   "17.-1", ".0", "", " 17", "17 ", "0x11", "17_", "_7", "17_7_1", "17.4294967295",
					   "00000000000017" };
	struct job_id id;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(job_id_parse("17.batch", false, &id, err, sizeof(err)), 0);
	assert_int_equal(id.job, 17);
	assert_string_equal(id.job_text, "17");
	assert_string_equal(id.step, "batch");
	assert_int_equal(job_id_parse("4294967295", false, &id, err, sizeof(err)), 0);
	assert_string_equal(id.step, "");
	assert_int_equal(job_id_parse("216_7.0", true, &id, err, sizeof(err)), 0);
	assert_true(id.array);
	assert_int_equal(id.job, 216);
	assert_int_equal(id.array_task, 7);
	assert_string_equal(id.job_text, "216_7");
	assert_string_equal(id.step, "0");
	assert_int_equal(job_id_parse("216_7", false, &id, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'216_7' is an array task: give its own job id (squeue -o %A"));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (job_id_parse(bad[i], true, &id, err, sizeof(err)) != -EINVAL || !err[0])
			fail_msg("'%s' was accepted as a job id", bad[i]);
	}
}

#define UEV(s) s, sizeof(s)

static void test_uevent_parse(void **state)
{
	struct smpol_uevent ev;

	(void)state;
	assert_int_equal(smpol_uevent_parse(UEV("online@/devices/system/memory/memory40\0ACTION=online\0"
					       "DEVPATH=/devices/system/memory/memory40\0SUBSYSTEM=memory\0SEQNUM=9\0"), &ev), 0);
	assert_true(smpol_uevent_is_hotplug(&ev));
	assert_int_equal(ev.node, -1);
	assert_int_equal(smpol_uevent_parse(UEV("add@/devices/system/node/node3\0ACTION=add\0"
					       "DEVPATH=/devices/system/node/node3\0SUBSYSTEM=node\0"), &ev), 0);
	assert_true(smpol_uevent_is_hotplug(&ev));
	assert_int_equal(ev.node, 3);
	/* Offline, other subsystems, udev's own messages and garbage are not hotplug. */
	assert_int_equal(smpol_uevent_parse(UEV("offline@/devices/system/memory/memory40\0ACTION=offline\0"
					       "DEVPATH=/devices/system/memory/memory40\0SUBSYSTEM=memory\0"), &ev), 0);
	assert_false(smpol_uevent_is_hotplug(&ev));
	assert_int_equal(smpol_uevent_parse(UEV("add@/devices/virtual/net/lo\0ACTION=add\0"
					       "DEVPATH=/devices/virtual/net/lo\0SUBSYSTEM=net\0"), &ev), 0);
	assert_false(smpol_uevent_is_hotplug(&ev));
	assert_int_equal(smpol_uevent_parse(UEV("libudev\0\xfe\xed\xca\xfe"), &ev), -EINVAL);
	assert_int_equal(smpol_uevent_parse(UEV("add@/x\0ACTION=add\0"), &ev), -EINVAL);
	assert_int_equal(smpol_uevent_parse("", 0, &ev), -EINVAL);
	assert_int_equal(smpol_uevent_parse(UEV("add@/devices/system/node/nodeX\0ACTION=add\0"
					       "DEVPATH=/devices/system/node/nodeX\0SUBSYSTEM=node\0"), &ev), 0);
	assert_false(smpol_uevent_is_hotplug(&ev));
}

static volatile sig_atomic_t stop_flag;

static void raise_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void send_event(int fd, const char *msg, size_t len)
{
	assert_int_equal(send(fd, msg, len, 0), (ssize_t)len);
}

/* Eight memory blocks and a node in one burst: one report; noise alone: none. */
static void test_hotplug_burst_settles(void **state)
{
	struct smpol_hotplug_burst b;
	char err[SMPOL_ERRLEN];
	int sv[2];
	pid_t pid;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct timespec gap = { 0, 20 * 1000 * 1000 };

		send_event(sv[1], UEV("add@/devices/virtual/net/lo\0ACTION=add\0DEVPATH=/devices/virtual/net/lo\0SUBSYSTEM=net\0"));
		for (int i = 0; i < 8; i++) {
			send_event(sv[1], UEV("online@/devices/system/memory/memory40\0ACTION=online\0"
					      "DEVPATH=/devices/system/memory/memory40\0SUBSYSTEM=memory\0"));
			nanosleep(&gap, NULL);
		}
		send_event(sv[1], UEV("add@/devices/system/node/node3\0ACTION=add\0"
				      "DEVPATH=/devices/system/node/node3\0SUBSYSTEM=node\0"));
		_exit(0);
	}
	assert_int_equal(smpol_hotplug_wait(sv[0], 300, -1, false, &stop_flag, &b, err, sizeof(err)), 0);
	waitpid(pid, NULL, 0);
	assert_int_equal(b.events, 9);
	assert_int_equal(b.memory_blocks, 8);
	assert_true(smpol_bitmap_test(&b.nodes, 3));
	assert_int_equal(smpol_bitmap_count(&b.nodes), 1);
	/* kernel_only: a message from a process (not netlink port 0) is ignored, so the
	 * wait goes on until the alarm raises the stop flag. */
	send_event(sv[1], UEV("add@/devices/system/node/node2\0ACTION=add\0"
			      "DEVPATH=/devices/system/node/node2\0SUBSYSTEM=node\0"));
	stop_flag = 0;
	signal(SIGALRM, raise_stop);
	alarm(1);
	assert_int_equal(smpol_hotplug_wait(sv[0], 100, -1, true, &stop_flag, &b, err, sizeof(err)), 1);
	assert_int_equal(b.events, 0);
	/* No event for the idle time: 2, the watcher's cue for its periodic scan. */
	stop_flag = 0;
	assert_int_equal(smpol_hotplug_wait(sv[0], 100, 200, false, &stop_flag, &b, err, sizeof(err)), 2);
	assert_int_equal(b.events, 0);
	close(sv[0]);
	close(sv[1]);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *read_file(const char *path)
{
	static char buf[256];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return "<missing>";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/* Explicit lists widen parents first, an inheriting (empty) one is left alone, the
 * root is never written, a dry run writes nothing, a malformed list is an error. */
static void test_cpuset_grow(void **state)
{
	char root[] = "/tmp/test_cpuset.XXXXXX", dir[512], path[512];
	struct smpol_cpuset_change ch[SMPOL_CPUSET_MAX_CHANGES];
	struct smpol_bitmap nodes;
	char err[SMPOL_ERRLEN];
	int n;

	(void)state;
	assert_non_null(mkdtemp(root));
	snprintf(dir, sizeof(dir), "%s/slurm/job_7/step_0", root);
	snprintf(path, sizeof(path), "%s/slurm", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/slurm/job_7", root);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/cpuset.mems", root);
	write_file(path, "0-2\n");
	snprintf(path, sizeof(path), "%s/slurm/cpuset.mems", root);
	write_file(path, "\n");
	snprintf(path, sizeof(path), "%s/slurm/job_7/cpuset.mems", root);
	write_file(path, "0-2\n");
	snprintf(path, sizeof(path), "%s/slurm/job_7/step_0/cpuset.mems", root);
	write_file(path, "0,2\n");
	smpol_bitmap_clear(&nodes);
	smpol_bitmap_set(&nodes, 0);
	smpol_bitmap_set(&nodes, 2);
	smpol_bitmap_set(&nodes, 3);

	assert_int_equal(smpol_cpuset_grow(root, dir, &nodes, true, ch, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_string_equal(read_file(path), "0,2");
	assert_int_equal(smpol_cpuset_grow(root, dir, &nodes, false, ch, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_non_null(strstr(ch[0].path, "job_7/cpuset.mems"));
	assert_string_equal(ch[0].before, "0-2");
	assert_string_equal(ch[0].after, "0-3");
	assert_non_null(strstr(ch[1].path, "step_0/cpuset.mems"));
	assert_string_equal(ch[1].after, "0,2-3");
	assert_string_equal(read_file(path), "0,2-3");
	snprintf(path, sizeof(path), "%s/slurm/cpuset.mems", root);
	assert_string_equal(read_file(path), "");
	snprintf(path, sizeof(path), "%s/cpuset.mems", root);
	assert_string_equal(read_file(path), "0-2");
	/* Already wide enough: nothing to do. */
	assert_int_equal(smpol_cpuset_grow(root, dir, &nodes, false, ch, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	snprintf(path, sizeof(path), "%s/slurm/job_7/cpuset.mems", root);
	write_file(path, "zero\n");
	assert_int_equal(smpol_cpuset_grow(root, dir, &nodes, false, ch, &n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a node list"));
	assert_int_equal(smpol_cpuset_grow(root, "/elsewhere", &nodes, false, ch, &n, err, sizeof(err)), -EINVAL);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	assert_int_equal(system(path), 0);
}

/* /proc/PID/cgroup: the v1 cpuset hierarchy wins, else the v2 path (no fake tree:
 * /sys/fs/cgroup/unified is absent, so v2 is at /sys/fs/cgroup). */
static void test_cpuset_dir_parse(void **state)
{
	char dir[4096], root[2048], err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_cpuset_dir_parse("0::/system.slice/slurmstepd.scope/job_7/step_0/user/task_0\n",
					       "/nonexistent", dir, sizeof(dir), root, sizeof(root), err, sizeof(err)), 0);
	assert_string_equal(root, "/nonexistent/sys/fs/cgroup");
	assert_string_equal(dir, "/nonexistent/sys/fs/cgroup/system.slice/slurmstepd.scope/job_7/step_0/user/task_0");
	assert_int_equal(smpol_cpuset_dir_parse("12:memory:/x\n4:cpu,cpuset:/slurm/uid_0/job_7/step_0\n0::/\n",
					       "/r", dir, sizeof(dir), root, sizeof(root), err, sizeof(err)), 0);
	assert_string_equal(root, "/r/sys/fs/cgroup/cpuset");
	assert_string_equal(dir, "/r/sys/fs/cgroup/cpuset/slurm/uid_0/job_7/step_0");
	assert_int_equal(smpol_cpuset_dir_parse("3:memory:/x\n", NULL, dir, sizeof(dir), root, sizeof(root), err,
					       sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "no cgroup with a cpuset"));
	assert_int_equal(smpol_cpuset_dir_parse("garbage\n", NULL, dir, sizeof(dir), root, sizeof(root), err,
					       sizeof(err)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pin_live_and_exited),
		cmocka_unit_test(test_pin_recycled_pid),
		cmocka_unit_test(test_regions_parse),
		cmocka_unit_test(test_query_and_move_child),
		cmocka_unit_test(test_rebalance_child_one_node),
		cmocka_unit_test(test_rebalance_stop_flag),
		cmocka_unit_test(test_backend_choice),
		cmocka_unit_test(test_pmbind_probe),
		cmocka_unit_test(test_listpids_parse),
		cmocka_unit_test(test_job_id),
		cmocka_unit_test(test_uevent_parse),
		cmocka_unit_test(test_hotplug_burst_settles),
		cmocka_unit_test(test_cpuset_grow),
		cmocka_unit_test(test_cpuset_dir_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
