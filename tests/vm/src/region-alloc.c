/* region-alloc - a program's arrays and small objects as malloc() gives them, for
 * region-aware placement (min_region=) under the interposer or the sampler.
 *
 *   region-alloc MIB [--hold]
 *
 * Allocates three arrays of MIB MiB with malloc() and writes them (a0, a1, a2), 8 MiB
 * of 4 KiB objects (small: the span they lie in), then frees an array of MIB MiB and
 * allocates it again 10 times, writing it each time, and prints
 *   same-address N of 10       (how often it came back where the first one was)
 * keeping the last (again); then forks a child that allocates and writes one more
 * (child) and reports it before it exits. Per region it prints where the pages are:
 *   pages query region=R total=T N0=.. N2=..      (move_pages(2) with nodes == NULL)
 *   policy region=R <the numa_maps policy of the mapping holding it>
 * It sets no policy: what it gets is the interposer's (dynamic build) or the
 * sampler's (the static build, region-alloc-static, which LD_PRELOAD cannot reach).
 * Transparent huge pages are off, so that pages count one by one. With --hold it then
 * prints "ready PID" and waits: SIGUSR1 reports every region again ("ack N" after),
 * SIGTERM exits.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pages-where.h"

#define NREGIONS 5

struct region {
	const char *name;
	char *addr;         /* page-aligned */
	size_t len;
};

static volatile sig_atomic_t pending_report, pending_exit;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		pending_report = 1;
	else
		pending_exit = 1;
}

/* The pages holding [p, p + len). */
static struct region pages_of(const char *name, const void *p, size_t len)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE), lo = (uintptr_t)p & ~(pg - 1);
	uintptr_t hi = ((uintptr_t)p + len + pg - 1) & ~(pg - 1);

	return (struct region){ .name = name, .addr = (char *)lo, .len = hi - lo };
}

static int report(const struct region *r)
{
	unsigned long cnt[WHERE_MAX_NODES], other;
	char policy[256];

	if (where_query(0, r->addr, r->len, cnt, &other) != 0) {
		fprintf(stderr, "region-alloc: move_pages query failed: %s\n", strerror(errno));
		return -1;
	}
	printf("pages query region=%s total=%zu", r->name, r->len / (size_t)sysconf(_SC_PAGESIZE));
	for (int n = 0; n < WHERE_MAX_NODES; n++)
		if (cnt[n])
			printf(" N%d=%lu", n, cnt[n]);
	printf("\n");
	if (other)
		printf("pages query region=%s not-present=%lu\n", r->name, other);
	if (where_numa_maps(0, (const void *)mapping_start(r->addr), policy, sizeof(policy), cnt) == 0)
		printf("policy region=%s %s\n", r->name, policy);
	fflush(stdout);
	return 0;
}

/* An array of len bytes, written (as a program's first loop would). */
static char *array(size_t len)
{
	char *p = malloc(len);

	if (!p) {
		fprintf(stderr, "region-alloc: malloc of %zu bytes failed\n", len);
		exit(1);
	}
	memset(p, 1, len);
	return p;
}

int main(int argc, char **argv)
{
	static const char *const names[3] = { "a0", "a1", "a2" };
	struct region r[NREGIONS];
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	size_t len, small = 4096;
	char *first = NULL, *again = NULL;
	int same = 0, status, acks = 0, rc = 0;
	pid_t pid;

	if (argc < 2 || !(len = strtoull(argv[1], NULL, 10) << 20)) {
		fprintf(stderr, "usage: region-alloc MIB [--hold]\n");
		return 2;
	}
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) {
		fprintf(stderr, "region-alloc: prctl(PR_SET_THP_DISABLE) failed: %s\n", strerror(errno));
		return 1;
	}
	for (int i = 0; i < 3; i++)
		r[i] = pages_of(names[i], array(len), len);
	for (size_t done = 0; done < (8 << 20); done += small) {
		char *p = array(small);

		lo = (uintptr_t)p < lo ? (uintptr_t)p : lo;
		hi = (uintptr_t)p + small > hi ? (uintptr_t)p + small : hi;
	}
	r[3] = pages_of("small", (void *)lo, hi - lo);
	for (int i = 0; i < 10; i++) {
		free(again);
		again = array(len);
		first = first ? first : again;
		same += again == first;
	}
	printf("same-address %d of 10\n", same);
	r[4] = pages_of("again", again, len);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct region c = pages_of("child", array(len), len);

		_exit(report(&c) ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "region-alloc: the child failed\n");
		return 1;
	}
	for (int i = 0; i < NREGIONS; i++)
		rc |= report(&r[i]);
	if (rc || argc < 3 || strcmp(argv[2], "--hold"))
		return rc ? 1 : 0;
	signal(SIGUSR1, on_signal);
	signal(SIGTERM, on_signal);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!pending_exit) {
		pause();
		if (pending_report) {
			pending_report = 0;
			for (int i = 0; i < NREGIONS; i++)
				rc |= report(&r[i]);
			printf("ack %d%s\n", ++acks, rc ? " failed" : "");
			fflush(stdout);
		}
	}
	return 0;
}
