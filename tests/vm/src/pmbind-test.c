/* pmbind-test - process_mbind(2) at the system call level, against the ABI of
 * tests/vm/kernel/process_mbind.patch:
 *
 *   long process_mbind(int pidfd, const struct iovec *vec, size_t vlen,
 *                      unsigned long mode, const unsigned long *nmask, unsigned int flags)
 *
 * with nmask always PMBIND_MAXNODE (1024) bits. Usage:
 *
 *   pmbind-test NR enosys            NR answers ENOSYS (a kernel without the patch)
 *   pmbind-test NR probe             the calls smpol_pmbind_probe (src/libsmpol/pages/pmbind.c) makes:
 *                                    the identify call, MPOL_LOCAL on a page of its own
 *   pmbind-test NR faults NODES      a target's untouched region gets weighted interleave
 *                                    over NODES; then the target touches it
 *   pmbind-test NR move NODES        a target's touched region (on node 0) gets weighted
 *                                    interleave over NODES with MPOL_MF_MOVE
 *   pmbind-test NR cpuset CGROUP     targets in cgroup CGROUP (a cpuset): the nodes are
 *                                    taken within the target's cpuset, not the caller's
 *   pmbind-test NR narrow DIR        a caller in a narrower cpuset than its target's: DIR/target
 *                                    (mems 1-2), DIR/caller-0 (mems 0), DIR/caller-01 (mems 0-1)
 *   pmbind-test NR perms             users, CAP_SYS_NICE, MPOL_MF_MOVE_ALL, local policies
 *   pmbind-test NR exited            pidfds of exited processes, a recycled pid
 *   pmbind-test NR exit-mid-call     targets that exit (SIGKILL, exit) while a move runs
 *   pmbind-test NR input             bad vectors, ranges, node masks, modes and flags
 *
 * Output, one line each: "PASS CASE", "FAIL CASE -- REASON", "SKIP CASE -- REASON"
 * for what the program judges itself (errno values, whether a policy changed), and
 * "pages CASE query|numa_maps N0=.. N2=.." and "policy CASE <numa_maps policy>" for
 * what the check compares with the weights and the topology. Exit 0 when the
 * scenario ran to its end, 1 when it could not run, 2 on bad usage. Raw system
 * calls: the guest has no libnuma. Run as root (it changes users itself).
 * _GNU_SOURCE (setresuid, CPU_SET) comes from config.h, as for the other programs.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pages-where.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#define PMBIND_MAXNODE 1024
#define MASK_LONGS (PMBIND_MAXNODE / (8 * sizeof(unsigned long)))
#define UIO_MAX 1024              /* UIO_MAXIOV: the most ranges in one call */

/* <linux/mempolicy.h>, spelled out: the guest build has no libnuma headers. */
enum { MPOL_DEFAULT, MPOL_PREFERRED, MPOL_BIND, MPOL_INTERLEAVE, MPOL_LOCAL,
       MPOL_PREFERRED_MANY, MPOL_WEIGHTED_INTERLEAVE, MPOL_MAX };
#define MPOL_F_STATIC_NODES (1 << 15)
#define MPOL_F_RELATIVE_NODES (1 << 14)
#define MPOL_MF_STRICT (1 << 0)
#define MPOL_MF_MOVE (1 << 1)
#define MPOL_MF_MOVE_ALL (1 << 2)
#define MPOL_MF_LAZY (1 << 3)
#define MPOL_F_ADDR (1 << 1)         /* get_mempolicy */
#define PROCESS_MBIND_IDENTIFY (1U << 24)

#define UNPRIV 1000               /* the guest's ordinary users */
#define UNPRIV2 1001

static long nr;
static size_t pg;

static void result(const char *kind, const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s %s", kind, name);
	if (fmt) {
		printf(" -- ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
	fflush(stdout);
}

static long pmbind(int pidfd, const struct iovec *iov, size_t vlen, unsigned long mode,
		   const unsigned long *mask, unsigned int flags)
{
	return syscall(nr, pidfd, iov, vlen, mode, mask, flags);
}

/* 0 or the errno of the call, so that cases compare one number. */
static int pmbind_err(int pidfd, const struct iovec *iov, size_t vlen, unsigned long mode,
		      const unsigned long *mask, unsigned int flags)
{
	return pmbind(pidfd, iov, vlen, mode, mask, flags) == 0 ? 0 : errno;
}

static const char *errname(int e)
{
	static char buf[32];

	switch (e) {
	case 0: return "success";
	case EPERM: return "EPERM";
	case ESRCH: return "ESRCH";
	case EBADF: return "EBADF";
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case ENOSYS: return "ENOSYS";
	case ENOMEM: return "ENOMEM";
	case EIO: return "EIO";
	default: snprintf(buf, sizeof(buf), "errno %d", e); return buf;
	}
}

static void expect_err(const char *name, int want, int got)
{
	if (want == got)
		result("PASS", name, NULL);
	else
		result("FAIL", name, "expected %s, got %s", errname(want), errname(got));
}

/* "0,2" or "0-2" -> mask; -1 on a bad list. */
static int parse_nodes(const char *list, unsigned long *mask)
{
	const char *p = list;
	char *end;

	memset(mask, 0, MASK_LONGS * sizeof(*mask));
	while (*p) {
		long a = strtol(p, &end, 10), b = a;
		if (end == p || a < 0 || a >= PMBIND_MAXNODE)
			return -1;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b >= PMBIND_MAXNODE)
				return -1;
		}
		for (long n = a; n <= b; n++)
			mask[n / (8 * sizeof(long))] |= 1UL << (n % (8 * sizeof(long)));
		if (*end == ',')
			end++;
		else if (*end)
			return -1;
		p = end;
	}
	return 0;
}

static int pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* Move this process into a cgroup v2 directory (a cpuset); 0 or -1. */
static int join_cgroup(const char *dir)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	if (fprintf(f, "%d\n", (int)getpid()) < 0) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

/* ---- target processes: a child that maps a region and does what it is told ---- */

struct target {
	pid_t pid;
	int pidfd;
	int cmd, ack;                /* pipes: commands to the child, its answers */
	char *addr;
	size_t len;
};

struct target_opts {
	size_t len;
	uid_t uid;                   /* 0: stays root */
	int cpu;                     /* -1: any */
	bool touch;                  /* touch the region before reporting it */
	const char *cgroup;          /* join this cgroup v2 directory first */
};

static void child_reply(int fd, const void *buf, size_t n)
{
	if (write(fd, buf, n) != (ssize_t)n)
		_exit(3);
}

static void touch_all(char *addr, size_t len)
{
	for (size_t off = 0; off < len; off += pg)
		addr[off] = 1;
}

static void target_main(const struct target_opts *o, int cmd, int ack)
{
	char c;

	/* Other targets' pipe ends would keep them from seeing their EOF. */
	for (int fd = 3; fd < 1024; fd++)
		if (fd != cmd && fd != ack)
			close(fd);
	if (o->cgroup && join_cgroup(o->cgroup) != 0)
		_exit(4);
	if (o->cpu >= 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(o->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) != 0)
			_exit(5);
	}
	if (o->uid && (setgroups(0, NULL) != 0 || setresgid(o->uid, o->uid, o->uid) != 0 ||
		       setresuid(o->uid, o->uid, o->uid) != 0))
		_exit(6);
	/* A change of uid makes a process undumpable, and then even its own user
	 * could not ptrace-read it: what an ordinary process of that user is. */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	/* A PROT_NONE guard page keeps the region a VMA (a numa_maps line) of its own. */
	char *addr = mmap(NULL, o->len + pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (addr == MAP_FAILED || mprotect(addr, o->len, PROT_READ | PROT_WRITE) != 0 ||
	    madvise(addr, o->len, MADV_NOHUGEPAGE) != 0)
		_exit(7);
	if (o->touch)
		touch_all(addr, o->len);
	child_reply(ack, &addr, sizeof(addr));
	while (read(cmd, &c, 1) == 1) {
		if (c == 'T')
			touch_all(addr, o->len);
		else if (c == 'Q')
			break;
		child_reply(ack, &c, 1);
	}
	_exit(0);
}

static int target_start(struct target *t, const struct target_opts *o)
{
	int cmd[2], ack[2];

	memset(t, 0, sizeof(*t));
	t->pidfd = -1;
	if (pipe(cmd) != 0 || pipe(ack) != 0)
		return -1;
	t->pid = fork();
	if (t->pid < 0)
		return -1;
	if (t->pid == 0) {
		close(cmd[1]);
		close(ack[0]);
		target_main(o, cmd[0], ack[1]);
	}
	close(cmd[0]);
	close(ack[1]);
	t->cmd = cmd[1];
	t->ack = ack[0];
	t->len = o->len;
	if (read(t->ack, &t->addr, sizeof(t->addr)) != (ssize_t)sizeof(t->addr)) {
		int st;
		waitpid(t->pid, &st, 0);
		fprintf(stderr, "pmbind-test: the target did not start (exit %d)\n",
			WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return -1;
	}
	t->pidfd = pidfd_open(t->pid);
	return t->pidfd >= 0 ? 0 : -1;
}

/* Ask the target to touch every page of its region; 0 once it has. */
static int target_touch(struct target *t)
{
	char c = 'T';
	return write(t->cmd, &c, 1) == 1 && read(t->ack, &c, 1) == 1 ? 0 : -1;
}

static void target_stop(struct target *t)
{
	if (t->pid <= 0)
		return;
	close(t->cmd);
	close(t->ack);
	if (t->pidfd >= 0)
		close(t->pidfd);
	waitpid(t->pid, NULL, 0);
	t->pid = 0;
}

static struct iovec region(const struct target *t)
{
	return (struct iovec){ .iov_base = t->addr, .iov_len = t->len };
}

/* ---- where the target's pages are (pages-where.h) ---- */

static void print_counts(const char *name, const char *source, const unsigned long *cnt)
{
	printf("pages %s %s", name, source);
	for (int n = 0; n < WHERE_MAX_NODES; n++)
		if (cnt[n])
			printf(" N%d=%lu", n, cnt[n]);
	printf("\n");
}

/* "pages CASE query ...", "pages CASE numa_maps ...", "policy CASE ...". */
static int report(const char *name, const struct target *t)
{
	unsigned long q[WHERE_MAX_NODES], m[WHERE_MAX_NODES], absent;
	char policy[256];

	if (where_query(t->pid, t->addr, t->len, q, &absent) != 0 ||
	    where_numa_maps(t->pid, t->addr, policy, sizeof(policy), m) != 0) {
		result("FAIL", name, "cannot count the pages of pid %d: %s", (int)t->pid, strerror(errno));
		return -1;
	}
	print_counts(name, "query", q);
	if (absent)
		printf("pages %s absent %lu\n", name, absent);
	print_counts(name, "numa_maps", m);
	printf("policy %s %s\n", name, policy);
	fflush(stdout);
	return 0;
}

/* The region's numa_maps policy, "?" when it cannot be read. */
static const char *policy_of(const struct target *t)
{
	static char policy[256];
	unsigned long cnt[WHERE_MAX_NODES];

	if (where_numa_maps(t->pid, t->addr, policy, sizeof(policy), cnt) != 0)
		snprintf(policy, sizeof(policy), "?");
	return policy;
}

static void expect_policy(const char *name, const struct target *t, const char *want)
{
	const char *got = policy_of(t);
	if (!strcmp(got, want))
		result("PASS", name, NULL);
	else
		result("FAIL", name, "the region's policy is '%s', expected '%s'", got, want);
}

/* Every page of the region present and on a node of `nodes` (a list such as "1-2"). */
static void expect_pages_on(const char *name, const struct target *t, const char *nodes)
{
	unsigned long q[WHERE_MAX_NODES], absent, mask[MASK_LONGS], off = 0;

	parse_nodes(nodes, mask);
	if (where_query(t->pid, t->addr, t->len, q, &absent) != 0) {
		result("FAIL", name, "cannot count the pages of pid %d: %s", (int)t->pid, strerror(errno));
		return;
	}
	print_counts(name, "query", q);
	for (int n = 0; n < WHERE_MAX_NODES; n++)
		if (!(mask[n / (8 * sizeof(long))] & (1UL << (n % (8 * sizeof(long))))))
			off += q[n];
	if (!absent && !off) {
		result("PASS", name, NULL);
		return;
	}
	char got[256] = "";
	for (int n = 0, len = 0; n < WHERE_MAX_NODES && len < (int)sizeof(got); n++)
		if (q[n])
			len += snprintf(got + len, sizeof(got) - len, " N%d=%lu", n, q[n]);
	result("FAIL", name, "expected all %zu pages on nodes %s, got%s, %lu absent", t->len / pg, nodes, got, absent);
}

/* ---- a caller with other credentials: a child that makes one call ---- */

struct creds {
	uid_t uid;                   /* 0: root */
	bool drop_nice;              /* without CAP_SYS_NICE */
	bool only_nice;              /* (with uid) keeps CAP_SYS_NICE, and only it */
	const char *cgroup;          /* joins this cgroup v2 directory (a cpuset) first */
};

/* CAP_SYS_NICE out of the effective and permitted sets, or (only) into them. */
static int set_cap_sys_nice(bool only)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	unsigned int bit = 1U << (CAP_SYS_NICE % 32);

	if (syscall(SYS_capget, &hdr, data) != 0)
		return -1;
	if (only)
		memset(data, 0, sizeof(data));
	for (int i = 0; i < 2; i++)
		data[i].inheritable = 0;
	data[CAP_SYS_NICE / 32].effective = only ? bit : data[CAP_SYS_NICE / 32].effective & ~bit;
	data[CAP_SYS_NICE / 32].permitted = only ? bit : data[CAP_SYS_NICE / 32].permitted & ~bit;
	return (int)syscall(SYS_capset, &hdr, data);
}

/* process_mbind as another caller; 0 or its errno, -1 when the caller could not be set up. */
static int call_as(const struct creds *c, int pidfd, const struct iovec *iov, size_t vlen,
		   unsigned long mode, const unsigned long *mask, unsigned int flags)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (c->cgroup && join_cgroup(c->cgroup) != 0)
			_exit(255);
		if (c->drop_nice && set_cap_sys_nice(false) != 0)
			_exit(255);
		/* Capabilities survive the change of uid only when asked to. */
		if (c->only_nice && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) != 0)
			_exit(255);
		if (c->uid && (setgroups(0, NULL) != 0 || setresgid(c->uid, c->uid, c->uid) != 0 ||
			       setresuid(c->uid, c->uid, c->uid) != 0))
			_exit(255);
		if (c->only_nice && set_cap_sys_nice(true) != 0)
			_exit(255);
		_exit(pmbind_err(pidfd, iov, vlen, mode, mask, flags));
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) == 255)
		return -1;
	return WEXITSTATUS(st);
}

/* ---- scenarios ---- */

static int scenario_enosys(void)
{
	int self = pidfd_open(getpid());
	unsigned long mask[MASK_LONGS] = { 1 };

	expect_err("enosys-bad-pidfd", ENOSYS, pmbind_err(-1, NULL, 0, 0, NULL, 0));
	expect_err("enosys-identify", ENOSYS, pmbind_err(-1, NULL, 0, 0, NULL, PROCESS_MBIND_IDENTIFY));
	expect_err("enosys-valid-call", ENOSYS, pmbind_err(self, NULL, 0, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	close(self);
	return 0;
}

/* What smpol_pmbind_probe() relies on: the identify call answers the node mask size,
 * and only when every other argument is "nothing"; MPOL_LOCAL set on a page of the
 * caller's own through its pidfd shows in get_mempolicy. */
static int scenario_probe(void)
{
	unsigned long mask[MASK_LONGS] = { 1 };
	const unsigned int id = PROCESS_MBIND_IDENTIFY;
	int self = pidfd_open(getpid()), mode = -1;
	char *page = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct iovec iov = { .iov_base = page, .iov_len = pg };
	long answer;

	if (self < 0 || page == MAP_FAILED) {
		result("FAIL", "probe", "pidfd_open(self) or mmap: %s", strerror(errno));
		return 1;
	}
	answer = pmbind(-1, NULL, 0, 0, NULL, id);
	if (answer == PMBIND_MAXNODE)
		result("PASS", "probe-identify-answers-1024", NULL);
	else
		result("FAIL", "probe-identify-answers-1024", "answered %ld (%s)", answer,
		       answer < 0 ? errname(errno) : "a value");
	expect_err("identify-with-pidfd-einval", EINVAL, pmbind_err(self, NULL, 0, 0, NULL, id));
	expect_err("identify-with-vector-einval", EINVAL, pmbind_err(-1, &iov, 1, 0, NULL, id));
	expect_err("identify-with-vlen-einval", EINVAL, pmbind_err(-1, NULL, 1, 0, NULL, id));
	expect_err("identify-with-mode-einval", EINVAL, pmbind_err(-1, NULL, 0, MPOL_LOCAL, NULL, id));
	expect_err("identify-with-mask-einval", EINVAL, pmbind_err(-1, NULL, 0, 0, mask, id));
	expect_err("identify-with-move-einval", EINVAL, pmbind_err(-1, NULL, 0, 0, NULL, id | MPOL_MF_MOVE));
	expect_err("probe-own-page-local", 0, pmbind_err(self, &iov, 1, MPOL_LOCAL, NULL, 0));
	if (syscall(SYS_get_mempolicy, &mode, NULL, 0, page, MPOL_F_ADDR) == 0 && mode == MPOL_LOCAL)
		result("PASS", "probe-own-page-local-shows", NULL);
	else
		result("FAIL", "probe-own-page-local-shows", "get_mempolicy(MPOL_F_ADDR) gives mode %d, expected "
		       "MPOL_LOCAL (%d)", mode, MPOL_LOCAL);
	munmap(page, pg);
	close(self);
	return 0;
}

#define REGION (64UL << 20)

/* NODES into mask and a target on CPU 0 (node 0): 0, or the exit status to return. */
static int start_on_node0(const char *nodes, unsigned long *mask, bool touch, struct target *t)
{
	struct target_opts o = { .len = REGION, .cpu = 0, .touch = touch };

	if (parse_nodes(nodes, mask) != 0) {
		fprintf(stderr, "pmbind-test: bad node list '%s'\n", nodes);
		return 2;
	}
	return target_start(t, &o) == 0 ? 0 : 1;
}

static int scenario_faults(const char *nodes)
{
	unsigned long mask[MASK_LONGS], q[WHERE_MAX_NODES], absent;
	struct target t;
	int rc = start_on_node0(nodes, mask, false, &t);

	if (rc)
		return rc;
	struct iovec iov = region(&t);
	if (where_query(t.pid, t.addr, t.len, q, &absent) == 0 && absent == t.len / pg)
		result("PASS", "faults-region-untouched-before", NULL);
	else
		result("FAIL", "faults-region-untouched-before", "%lu of %zu pages absent", absent, t.len / pg);
	expect_err("faults-set-policy", 0, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	/* The target only touches its memory: the policy it faults under is ours. */
	if (target_touch(&t) != 0) {
		result("FAIL", "faults", "the target did not touch its region");
	} else {
		report("faults", &t);
	}
	target_stop(&t);
	return 0;
}

static int scenario_move(const char *nodes)
{
	unsigned long mask[MASK_LONGS];
	struct target t;
	int rc = start_on_node0(nodes, mask, true, &t);

	if (rc)
		return rc;
	struct iovec iov = region(&t);
	report("move-before", &t);
	expect_err("move-call", 0, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, MPOL_MF_MOVE));
	report("move-after", &t);
	target_stop(&t);
	return 0;
}

/* A target in cgroup dir, whose cpuset.mems the check has narrowed. */
static int scenario_cpuset(const char *cgroup)
{
	unsigned long all[MASK_LONGS], low[MASK_LONGS], first[MASK_LONGS], wide[MASK_LONGS];
	struct target_opts o = { .len = REGION, .cgroup = cgroup };
	struct target t;

	parse_nodes("0-2", all);
	parse_nodes("0-1", low);
	parse_nodes("0", first);
	parse_nodes("0-3", wide);
	if (target_start(&t, &o) != 0)
		return 1;
	struct iovec iov = region(&t);
	expect_err("cpuset-set-policy", 0, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, all, 0));
	printf("policy cpuset-plain %s\n", policy_of(&t));
	if (target_touch(&t) == 0)
		report("cpuset-faults", &t);
	expect_err("cpuset-relative", 0,
		   pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE | MPOL_F_RELATIVE_NODES, low, 0));
	printf("policy cpuset-relative %s\n", policy_of(&t));
	expect_err("cpuset-static", 0,
		   pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE | MPOL_F_STATIC_NODES, wide, 0));
	printf("policy cpuset-static %s\n", policy_of(&t));
	fflush(stdout);
	target_stop(&t);
	/* Only nodes outside the target's cpuset: nothing is left to interleave over. */
	if (target_start(&t, &o) != 0)
		return 1;
	iov = region(&t);
	expect_err("cpuset-outside-einval", EINVAL, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, first, 0));
	expect_policy("cpuset-outside-unchanged", &t, "default");
	target_stop(&t);
	return 0;
}

static int scenario_perms(void)
{
	unsigned long mask[MASK_LONGS], none[MASK_LONGS] = { 0 };
	const struct creds user = { .uid = UNPRIV }, user_nice = { .uid = UNPRIV, .only_nice = true }, root = { 0 },
			   root_nonice = { .drop_nice = true };
	struct target_opts ro = { .len = 1UL << 20 }, uo = { .len = 1UL << 20, .uid = UNPRIV },
			   u2o = { .len = 1UL << 20, .uid = UNPRIV2 };
	struct target rt, ut, u2t;
	const char *wi = "weighted interleave:0-1";
	struct iovec iov;

	parse_nodes("0-1", mask);
	if (target_start(&rt, &ro) != 0 || target_start(&ut, &uo) != 0 || target_start(&u2t, &u2o) != 0)
		return 1;

	/* Another user's process: no ptrace access. */
	iov = region(&rt);
	expect_err("user-on-root-process-eperm", EPERM, call_as(&user, rt.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	expect_policy("user-on-root-process-unchanged", &rt, "default");
	iov = region(&u2t);
	expect_err("user-on-other-user-eperm", EPERM, call_as(&user, u2t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	expect_err("user-on-other-user-empty-vector-eperm", EPERM, call_as(&user, u2t.pidfd, NULL, 0, 0, NULL, 0));
	expect_err("cap-sys-nice-on-other-user-eperm", EPERM,
		   call_as(&user_nice, u2t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	expect_policy("user-on-other-user-unchanged", &u2t, "default");

	/* Another process of the same user: ptrace access, but the call also needs
	 * CAP_SYS_NICE, as process_madvise(2) does. */
	iov = region(&ut);
	expect_err("same-uid-without-cap-sys-nice-eperm", EPERM,
		   call_as(&user, ut.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	expect_err("same-uid-without-cap-sys-nice-move-eperm", EPERM,
		   call_as(&user, ut.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, MPOL_MF_MOVE));
	expect_err("same-uid-without-cap-sys-nice-empty-vector-eperm", EPERM, call_as(&user, ut.pidfd, NULL, 0, 0, NULL, 0));
	expect_err("user-move-all-eperm", EPERM,
		   call_as(&user, ut.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, MPOL_MF_MOVE_ALL));
	expect_policy("same-uid-without-cap-sys-nice-unchanged", &ut, "default");
	expect_err("same-uid-with-cap-sys-nice", 0, call_as(&user_nice, ut.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	expect_policy("same-uid-with-cap-sys-nice-set", &ut, wi);
	expect_err("same-uid-with-cap-sys-nice-move", 0,
		   call_as(&user_nice, ut.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, MPOL_MF_MOVE));

	expect_err("root-on-user-process", 0, call_as(&root, u2t.pidfd, &iov, 0, MPOL_DEFAULT, NULL, 0));
	iov = region(&u2t);
	expect_err("root-on-user-process-set", 0, call_as(&root, u2t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	expect_policy("root-on-user-process-policy", &u2t, wi);
	expect_err("root-move-all", 0,
		   call_as(&root, u2t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, MPOL_MF_MOVE_ALL));

	/* Root without CAP_SYS_NICE: no other process at all, its own uid's included. */
	iov = region(&ut);
	expect_err("no-cap-sys-nice-on-user-process-eperm", EPERM,
		   call_as(&root_nonice, ut.pidfd, &iov, 1, MPOL_BIND, mask, 0));
	iov = region(&rt);
	expect_err("no-cap-sys-nice-same-owner-eperm", EPERM, call_as(&root_nonice, rt.pidfd, &iov, 1, MPOL_BIND, mask, 0));
	expect_err("no-cap-sys-nice-move-all-eperm", EPERM,
		   call_as(&root_nonice, rt.pidfd, &iov, 1, MPOL_BIND, mask, MPOL_MF_MOVE_ALL));
	expect_policy("no-cap-sys-nice-same-owner-unchanged", &rt, "default");
	expect_err("root-on-own-uid-process", 0, pmbind_err(rt.pidfd, &iov, 1, MPOL_BIND, mask, 0));
	expect_policy("root-on-own-uid-process-set", &rt, "bind:0-1");

	/* A local policy names the node of the CPU that allocates: moving another
	 * process's pages under it would move them to the caller's node. */
	expect_err("move-under-default-policy-einval", EINVAL, pmbind_err(rt.pidfd, &iov, 1, MPOL_DEFAULT, NULL, MPOL_MF_MOVE));
	expect_err("move-under-local-policy-einval", EINVAL, pmbind_err(rt.pidfd, &iov, 1, MPOL_LOCAL, NULL, MPOL_MF_MOVE));
	expect_err("move-under-preferred-local-einval", EINVAL,
		   pmbind_err(rt.pidfd, &iov, 1, MPOL_PREFERRED, none, MPOL_MF_MOVE_ALL));
	expect_policy("move-under-local-policy-unchanged", &rt, "bind:0-1");
	expect_err("default-policy-without-move", 0, pmbind_err(rt.pidfd, &iov, 1, MPOL_DEFAULT, NULL, 0));
	expect_policy("default-policy-restored", &rt, "default");

	/* Its own memory needs nothing more than mbind(2) does. */
	{
		int st;
		pid_t pid = fork();
		if (pid == 0) {
			if (setgroups(0, NULL) != 0 || setresgid(UNPRIV, UNPRIV, UNPRIV) != 0 ||
			    setresuid(UNPRIV, UNPRIV, UNPRIV) != 0)
				_exit(255);
			char *a = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			int self = pidfd_open(getpid());
			struct iovec own = { .iov_base = a, .iov_len = 1 << 20 };
			if (a == MAP_FAILED || self < 0)
				_exit(255);
			_exit(pmbind_err(self, &own, 1, MPOL_WEIGHTED_INTERLEAVE, mask, MPOL_MF_MOVE));
		}
		waitpid(pid, &st, 0);
		expect_err("user-on-itself", 0, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	target_stop(&rt);
	target_stop(&ut);
	target_stop(&u2t);
	return 0;
}

/*
 * Callers whose cpuset is narrower than their target's (DIR/target: mems 1-2). Moved
 * pages are the caller's allocations: a move whose nodes the caller's cpuset lacks is
 * refused (EPERM) and leaves every page where it was, in the target's cpuset (the
 * allocator would have put them on the caller's node 0); nodes asked outside the
 * target's cpuset are dropped, as mbind(2) drops those outside the caller's; without
 * MPOL_MF_MOVE the caller's cpuset does not matter.
 */
static int scenario_narrow(const char *dir)
{
	char target_cg[512], c0_cg[512], c01_cg[512];
	unsigned long m1[MASK_LONGS], m2[MASK_LONGS], m12[MASK_LONGS], m01[MASK_LONGS];
	struct target_opts o = { .len = REGION / 4, .touch = true, .cgroup = target_cg };
	struct target t;

	snprintf(target_cg, sizeof(target_cg), "%s/target", dir);
	snprintf(c0_cg, sizeof(c0_cg), "%s/caller-0", dir);
	snprintf(c01_cg, sizeof(c01_cg), "%s/caller-01", dir);
	const struct creds c0 = { .cgroup = c0_cg }, c01 = { .cgroup = c01_cg };
	parse_nodes("1", m1);
	parse_nodes("2", m2);
	parse_nodes("1-2", m12);
	parse_nodes("0-1", m01);
	if (target_start(&t, &o) != 0)
		return 1;
	struct iovec iov = region(&t);
	/* Every page on node 2 first (by us, whose cpuset has every node). */
	expect_err("narrow-setup-move-to-node2", 0, pmbind_err(t.pidfd, &iov, 1, MPOL_BIND, m2, MPOL_MF_MOVE));
	expect_pages_on("narrow-setup-pages-on-node2", &t, "2");

	/* The caller may allocate on node 0 only: node 1 is not its. */
	expect_err("narrow-move-outside-callers-cpuset-eperm", EPERM,
		   call_as(&c0, t.pidfd, &iov, 1, MPOL_BIND, m1, MPOL_MF_MOVE));
	expect_pages_on("narrow-refused-pages-stay-on-node2", &t, "2");
	expect_policy("narrow-refused-policy-unchanged", &t, "bind:2");

	/* Nodes 1-2 for a caller of 0-1: node 2 is not the caller's. */
	expect_err("narrow-move-partly-outside-callers-cpuset-eperm", EPERM,
		   call_as(&c01, t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, m12, MPOL_MF_MOVE));
	expect_pages_on("narrow-partly-refused-pages-stay-on-node2", &t, "2");
	expect_policy("narrow-partly-refused-policy-unchanged", &t, "bind:2");

	/* Nodes 0-1 asked by a caller of 0-1: the target's cpuset leaves node 1, which
	 * both have; every page goes there, none to node 0. */
	expect_err("narrow-move-to-shared-node", 0, call_as(&c01, t.pidfd, &iov, 1, MPOL_BIND, m01, MPOL_MF_MOVE));
	expect_policy("narrow-shared-node-policy", &t, "bind:1");
	expect_pages_on("narrow-moved-pages-on-node1", &t, "1");

	/* A policy alone: the target faults its own pages, in its own cpuset. */
	expect_err("narrow-policy-without-move", 0, call_as(&c0, t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, m12, 0));
	expect_policy("narrow-policy-without-move-set", &t, "weighted interleave:1-2");
	target_stop(&t);
	return 0;
}

static int scenario_exited(void)
{
	unsigned long mask[MASK_LONGS];
	struct target_opts o = { .len = 1UL << 20 };
	struct target t, n;
	struct iovec iov;
	siginfo_t si;

	parse_nodes("0-1", mask);

	/* Exited, not yet reaped: a zombie has no memory to bind. */
	if (target_start(&t, &o) != 0)
		return 1;
	iov = region(&t);
	close(t.cmd);                /* EOF: the target exits */
	if (waitid(P_PID, t.pid, &si, WEXITED | WNOWAIT) != 0) {
		result("FAIL", "zombie-esrch", "waitid: %s", strerror(errno));
	} else {
		expect_err("zombie-esrch", ESRCH, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
		expect_err("zombie-empty-vector-esrch", ESRCH, pmbind_err(t.pidfd, NULL, 0, 0, NULL, 0));
	}
	waitpid(t.pid, NULL, 0);
	/* Reaped: the pid is free, the pidfd still names the old process. */
	expect_err("reaped-esrch", ESRCH, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	expect_err("reaped-empty-vector-esrch", ESRCH, pmbind_err(t.pidfd, NULL, 0, 0, NULL, 0));

	/* A new process gets the old pid (ns_last_pid): the old pidfd must not reach it. */
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	bool set = f && fprintf(f, "%d\n", (int)t.pid - 1) > 0;
	if (f && fclose(f) != 0)
		set = false;
	if (target_start(&n, &o) != 0)
		return 1;
	if (!set || n.pid != t.pid) {
		result("SKIP", "recycled-pid-untouched", "pid %d was not reused (got %d, ns_last_pid %s)",
		       (int)t.pid, (int)n.pid, set ? "written" : "not writable");
	} else {
		iov = region(&n);
		expect_err("recycled-pid-esrch", ESRCH, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
		expect_policy("recycled-pid-untouched", &n, "default");
	}
	close(t.pidfd);
	t.pidfd = -1;
	close(t.ack);
	target_stop(&n);
	return 0;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* The region as UIO_MAX ranges, so that a call goes range by range. */
static void split_region(const struct target *t, struct iovec *v)
{
	for (size_t i = 0; i < UIO_MAX; i++)
		v[i] = (struct iovec){ .iov_base = t->addr + i * (t->len / UIO_MAX), .iov_len = t->len / UIO_MAX };
}

/*
 * A move of a target's region (touched on node 0) onto node `to` while, after
 * delay_ms, a helper makes the target exit: SIGKILL, or 'Q' (it exits by itself).
 * The call must stop with ESRCH: the process it names is gone, and the ranges after
 * that are left alone. The kernel log is the pmbind check's to judge.
 */
static void exit_during_move(const char *name, const unsigned long *to, long delay_ms, bool sigkill, long calib_ms)
{
	struct target_opts o = { .len = REGION, .cpu = 0, .touch = true };
	struct iovec v[UIO_MAX];
	struct timespec t0;
	struct target t;
	char ended[128];
	long took;
	int e, st = 0;

	if (target_start(&t, &o) != 0) {
		result("FAIL", name, "the target did not start");
		return;
	}
	split_region(&t, v);
	pid_t helper = fork();
	if (helper == 0) {
		char q = 'Q';
		usleep((useconds_t)delay_ms * 1000);
		_exit(sigkill ? kill(t.pid, SIGKILL) != 0 : write(t.cmd, &q, 1) != 1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	e = pmbind_err(t.pidfd, v, UIO_MAX, MPOL_BIND, to, MPOL_MF_MOVE);
	took = ms_since(&t0);
	waitpid(helper, NULL, 0);
	printf("timing %s: the call took %ld ms, the target was told to exit after %ld ms (a whole move: %ld ms)\n",
	       name, took, delay_ms, calib_ms);
	if (e == ESRCH)
		result("PASS", name, NULL);
	else
		result("FAIL", name, "expected ESRCH, got %s (the call took %ld ms, the target was told to exit after "
		       "%ld ms)", errname(e), took, delay_ms);
	close(t.cmd);
	close(t.ack);
	close(t.pidfd);
	snprintf(ended, sizeof(ended), "%s-target-ended", name);
	if (waitpid(t.pid, &st, 0) == t.pid && (sigkill ? WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL :
						 WIFEXITED(st) && WEXITSTATUS(st) == 0))
		result("PASS", ended, NULL);
	else
		result("FAIL", ended, "the target ended with wait status 0x%x, expected %s", st,
		       sigkill ? "killed by SIGKILL" : "exit 0");
}

static int scenario_exit_mid_call(void)
{
	struct target_opts o = { .len = REGION, .cpu = 0, .touch = true };
	unsigned long n1[MASK_LONGS], n2[MASK_LONGS];
	struct iovec v[UIO_MAX];
	struct timespec t0;
	struct target t;
	long whole;

	parse_nodes("1", n1);
	parse_nodes("2", n2);
	/* How long a whole move of the region takes here, range by range. */
	if (target_start(&t, &o) != 0)
		return 1;
	split_region(&t, v);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	expect_err("exit-mid-call-whole-move", 0, pmbind_err(t.pidfd, v, UIO_MAX, MPOL_BIND, n1, MPOL_MF_MOVE));
	whole = ms_since(&t0);
	expect_pages_on("exit-mid-call-whole-move-on-node1", &t, "1");
	target_stop(&t);
	/* A quarter of the way in, the target exits: killed, then by itself. */
	exit_during_move("exit-mid-call-sigkill-esrch", n2, whole / 4, true, whole);
	exit_during_move("exit-mid-call-exit-esrch", n1, whole / 4, false, whole);
	return 0;
}

static int scenario_input(void)
{
	unsigned long mask[MASK_LONGS], bad[MASK_LONGS];
	struct target_opts o = { .len = (UIO_MAX + 1) * 4096UL };
	struct target t;
	struct iovec iov, two[2], *many;
	const char *unchanged = "default";
	int fd;

	parse_nodes("0-1", mask);
	if (target_start(&t, &o) != 0)
		return 1;
	iov = region(&t);

	/* The vector. */
	many = calloc(UIO_MAX + 1, sizeof(*many));
	if (!many)
		return 1;
	for (size_t i = 0; i <= UIO_MAX; i++)
		many[i] = (struct iovec){ .iov_base = t.addr + i * pg, .iov_len = pg };
	expect_err("vlen-above-uio-maxiov-einval", EINVAL,
		   pmbind_err(t.pidfd, many, UIO_MAX + 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	expect_err("vlen-huge-einval", EINVAL, pmbind_err(t.pidfd, many, SIZE_MAX, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	expect_policy("vlen-refused-unchanged", &t, unchanged);
	expect_err("vec-unreadable-efault", EFAULT,
		   pmbind_err(t.pidfd, (struct iovec *)8, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));

	/* Ranges: each vector has a good first range; the error must leave it alone. */
	two[0] = iov;
	two[1] = (struct iovec){ .iov_base = t.addr + 1, .iov_len = pg };
	expect_err("unaligned-start-einval", EINVAL, pmbind_err(t.pidfd, two, 2, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	two[1] = (struct iovec){ .iov_base = t.addr, .iov_len = SIZE_MAX - (uintptr_t)t.addr + 2 };
	expect_err("range-wraps-einval", EINVAL, pmbind_err(t.pidfd, two, 2, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	/* mbind(2) takes this one for empty: PAGE_ALIGN(SIZE_MAX) is 0. */
	two[1] = (struct iovec){ .iov_base = t.addr, .iov_len = SIZE_MAX };
	expect_err("range-length-rounds-to-zero-einval", EINVAL,
		   pmbind_err(t.pidfd, two, 2, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	two[1] = (struct iovec){ .iov_base = (void *)(uintptr_t)(-(intptr_t)pg), .iov_len = pg };
	expect_err("range-at-top-einval", EINVAL, pmbind_err(t.pidfd, two, 2, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	expect_policy("bad-range-unchanged", &t, unchanged);
	/* A range the process has not mapped (below where static programs load), as
	 * mbind(2) answers it. */
	iov = (struct iovec){ .iov_base = (void *)0x10000, .iov_len = 2 * pg };
	expect_err("unmapped-range-efault", EFAULT, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));

	/* Node masks: 1024 bits are read; nodes this kernel cannot have must be clear. */
	iov = region(&t);
	memset(bad, 0, sizeof(bad));
	bad[MASK_LONGS - 1] = 1UL << 63;
	expect_err("node-1023-einval", EINVAL, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, bad, 0));
	parse_nodes("0,64", bad);
	expect_err("node-64-einval", EINVAL, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, bad, 0));
	parse_nodes("9", bad);
	expect_err("absent-node-einval", EINVAL, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, bad, 0));
	parse_nodes("3", bad);
	expect_err("node-without-memory-einval", EINVAL, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, bad, 0));
	memset(bad, 0, sizeof(bad));
	expect_err("empty-mask-einval", EINVAL, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, bad, 0));
	expect_err("null-mask-einval", EINVAL, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, NULL, 0));
	expect_err("mask-unreadable-efault", EFAULT,
		   pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, (unsigned long *)8, 0));
	/* One long before an unmapped page: the kernel reads all 16. */
	{
		char *two_pages = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (two_pages == MAP_FAILED || munmap(two_pages + pg, pg) != 0) {
			result("FAIL", "short-mask-efault", "mmap: %s", strerror(errno));
		} else {
			unsigned long *tail = (unsigned long *)(two_pages + pg) - 1;
			*tail = 1;
			expect_err("short-mask-efault", EFAULT, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, tail, 0));
			munmap(two_pages, pg);
		}
	}
	expect_policy("bad-mask-unchanged", &t, unchanged);

	/* Modes and flags. */
	expect_err("mode-max-einval", EINVAL, pmbind_err(t.pidfd, &iov, 1, MPOL_MAX, mask, 0));
	expect_err("mode-upper-bits-einval", EINVAL,
		   pmbind_err(t.pidfd, &iov, 1, (1UL << 32) | MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	expect_err("static-and-relative-einval", EINVAL,
		   pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE | MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES, mask, 0));
	expect_err("flag-lazy-einval", EINVAL, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, MPOL_MF_LAZY));
	expect_err("flag-bit31-einval", EINVAL, pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 1U << 31));
	expect_policy("bad-mode-unchanged", &t, unchanged);

	/* pidfds. */
	fd = open("/proc/self/stat", O_RDONLY);
	expect_err("not-a-pidfd-ebadf", EBADF, pmbind_err(fd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	close(fd);
	expect_err("closed-fd-ebadf", EBADF, pmbind_err(fd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE, mask, 0));

	/* The boundary that is allowed: UIO_MAXIOV ranges, one page each; then the
	 * mode flags mbind(2) takes. */
	expect_err("vlen-uio-maxiov-accepted", 0, pmbind_err(t.pidfd, many, UIO_MAX, MPOL_WEIGHTED_INTERLEAVE, mask, 0));
	expect_err("static-nodes-accepted", 0,
		   pmbind_err(t.pidfd, &iov, 1, MPOL_WEIGHTED_INTERLEAVE | MPOL_F_STATIC_NODES, mask, 0));
	expect_policy("static-nodes-policy", &t, "weighted interleave=static:0-1");
	expect_err("strict-move-accepted", 0,
		   pmbind_err(t.pidfd, &iov, 1, MPOL_BIND, mask, MPOL_MF_STRICT | MPOL_MF_MOVE));
	free(many);
	target_stop(&t);
	return 0;
}

int main(int argc, char **argv)
{
	char *end;

	if (argc < 3)
		goto usage;
	errno = 0;
	nr = strtol(argv[1], &end, 10);
	if (errno || *end || nr <= 0)
		goto usage;
	pg = (size_t)sysconf(_SC_PAGESIZE);
	/* A target's pipe closing early must not kill the caller. */
	signal(SIGPIPE, SIG_IGN);
	const char *s = argv[2], *arg = argc > 3 ? argv[3] : NULL;
	if (!strcmp(s, "enosys") && !arg)
		return scenario_enosys();
	if (!strcmp(s, "probe") && !arg)
		return scenario_probe();
	if (!strcmp(s, "faults") && arg)
		return scenario_faults(arg);
	if (!strcmp(s, "move") && arg)
		return scenario_move(arg);
	if (!strcmp(s, "cpuset") && arg)
		return scenario_cpuset(arg);
	if (!strcmp(s, "perms") && !arg)
		return scenario_perms();
	if (!strcmp(s, "exited") && !arg)
		return scenario_exited();
	if (!strcmp(s, "narrow") && arg)
		return scenario_narrow(arg);
	if (!strcmp(s, "exit-mid-call") && !arg)
		return scenario_exit_mid_call();
	if (!strcmp(s, "input") && !arg)
		return scenario_input();
usage:
	fprintf(stderr, "usage: pmbind-test NR enosys|probe|perms|exited|exit-mid-call|input\n"
			"       pmbind-test NR faults|move NODES\n"
			"       pmbind-test NR cpuset|narrow CGROUP_DIR\n");
	return 2;
}
