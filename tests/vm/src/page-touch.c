/* page-touch - map and touch memory, then say on which NUMA nodes its pages landed.
 *
 *   page-touch MIB [--reserve MIB] [--small MIB] [--hold]
 *
 * The pages follow whatever memory policy the process inherited (mpol-launch sets
 * it), so this program sets none. Per region it prints
 *   pages query region=R total=T N0=.. N2=..      (move_pages(2) with nodes == NULL)
 *   pages numa_maps region=R N0=.. N2=..          (/proc/self/numa_maps)
 *   policy region=R <the numa_maps policy field>
 * --reserve maps one more region of its own at start and leaves it untouched (the
 * heap a program has mapped and not used yet: someone else may set its policy).
 * --small touches MIB of 32 KiB malloc()s (a program's small objects: the heap) and
 * reports where their pages are as region=small (move_pages query over their span).
 * With --hold it then prints "ready PID" and waits: SIGUSR1 reports every region
 * again, SIGUSR2 maps and touches one more region and reports it, SIGHUP touches the
 * reserved region and reports it as region=reserve, SIGTERM exits; each handled
 * signal ends with "ack N". Raw syscalls: the guest has no libnuma.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pages-where.h"

#define MAX_REGIONS 16

struct region {
	char *addr;
	size_t len;
};

static volatile sig_atomic_t pending_report, pending_touch, pending_reserve, pending_exit;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		pending_report = 1;
	else if (sig == SIGUSR2)
		pending_touch = 1;
	else if (sig == SIGHUP)
		pending_reserve = 1;
	else
		pending_exit = 1;
}

static void print_counts(const char *source, const char *name, const unsigned long *cnt, const char *extra)
{
	printf("pages %s region=%s%s", source, name, extra);
	for (int n = 0; n < WHERE_MAX_NODES; n++)
		if (cnt[n])
			printf(" N%d=%lu", n, cnt[n]);
	printf("\n");
}

/* Where each page is now (a move_pages query). */
static int report_query(const struct region *r, const char *name)
{
	unsigned long cnt[WHERE_MAX_NODES], other;
	char extra[64];

	if (where_query(0, r->addr, r->len, cnt, &other) != 0) {
		fprintf(stderr, "page-touch: move_pages query failed: %s\n", strerror(errno));
		return -1;
	}
	snprintf(extra, sizeof(extra), " total=%zu", r->len / (size_t)sysconf(_SC_PAGESIZE));
	print_counts("query", name, cnt, extra);
	if (other)
		printf("pages query region=%s not-present=%lu\n", name, other);
	return 0;
}

/* The region's numa_maps line: its policy and per-node counts. */
static int report_numa_maps(const struct region *r, const char *name)
{
	unsigned long cnt[WHERE_MAX_NODES];
	char policy[256];

	if (where_numa_maps(0, r->addr, policy, sizeof(policy), cnt) != 0) {
		fprintf(stderr, "page-touch: region %s (%p) not read from /proc/self/numa_maps: %s\n", name,
			(void *)r->addr, strerror(errno));
		return -1;
	}
	printf("policy region=%s %s\n", name, policy);
	print_counts("numa_maps", name, cnt, "");
	return 0;
}

/* Map a region of its own, its pages not yet touched. */
static int map_region(struct region *r, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	/* A PROT_NONE guard page after the region keeps it a VMA of its own: the kernel
	 * would merge adjacent regions into one numa_maps line. */
	r->addr = mmap(NULL, len + pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->addr == MAP_FAILED || mprotect(r->addr, len, PROT_READ | PROT_WRITE) != 0) {
		fprintf(stderr, "page-touch: mmap of %zu bytes failed: %s\n", len, strerror(errno));
		return -1;
	}
	r->len = len;
	/* Count base pages: a THP would put 512 pages on one node at once. */
	if (madvise(r->addr, len, MADV_NOHUGEPAGE) != 0) {
		fprintf(stderr, "page-touch: madvise(MADV_NOHUGEPAGE) failed: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* MIB of 32 KiB allocations, touched; span = the page range they lie in. */
static int touch_small(struct region *span, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), chunk = 32 << 10;
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	for (size_t done = 0; done < len; done += chunk) {
		char *p = malloc(chunk);

		if (!p) {
			fprintf(stderr, "page-touch: malloc of %zu bytes failed\n", chunk);
			return -1;
		}
		memset(p, 1, chunk);
		lo = (uintptr_t)p < lo ? (uintptr_t)p : lo;
		hi = (uintptr_t)p + chunk > hi ? (uintptr_t)p + chunk : hi;
	}
	span->addr = (char *)(lo & ~(pg - 1));
	span->len = ((hi + pg - 1) & ~(pg - 1)) - (lo & ~(pg - 1));
	return 0;
}

static void touch(const struct region *r)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	for (size_t off = 0; off < r->len; off += pg)
		r->addr[off] = 1;
}

static int touch_region(struct region *r, size_t len)
{
	if (map_region(r, len) != 0)
		return -1;
	touch(r);
	return 0;
}

static int report_region(const struct region *r, const char *name)
{
	int rc = report_query(r, name);
	if (report_numa_maps(r, name) != 0)
		rc = -1;
	fflush(stdout);
	return rc;
}

static int report_nth(const struct region *r, int idx)
{
	char name[16];

	snprintf(name, sizeof(name), "%d", idx);
	return report_region(r, name);
}

/* A size in MiB from 1 to 1048576, or 0 (the message is printed). */
static size_t mib_arg(const char *text)
{
	char *end;
	unsigned long mib;

	errno = 0;
	mib = strtoul(text, &end, 10);
	if (errno || *end || mib == 0 || mib > (1UL << 20) || text[0] < '0' || text[0] > '9') {
		fprintf(stderr, "page-touch: bad size '%s': give MiB as a number from 1 to 1048576\n", text);
		return 0;
	}
	return (size_t)mib << 20;
}

int main(int argc, char **argv)
{
	struct region regions[MAX_REGIONS], reserve = { 0 }, small = { 0 };
	int nregions = 0, hold = 0, acks = 0, reserve_touched = 0;
	size_t len = 0, reserve_len = 0, small_len = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--hold")) {
			hold = 1;
		} else if (!strcmp(argv[i], "--reserve") && i + 1 < argc && !reserve_len) {
			if (!(reserve_len = mib_arg(argv[++i])))
				return 2;
		} else if (!strcmp(argv[i], "--small") && i + 1 < argc && !small_len) {
			if (!(small_len = mib_arg(argv[++i])))
				return 2;
		} else if (argv[i][0] != '-' && !len) {
			if (!(len = mib_arg(argv[i])))
				return 2;
		} else {
			len = 0;
			break;
		}
	}
	if (!len) {
		fprintf(stderr, "usage: page-touch MIB [--reserve MIB] [--small MIB] [--hold]\n");
		return 2;
	}

	/* Block the signals before announcing readiness, so none is lost. */
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* The heap of small allocations cannot be advised before malloc touches it: no
	 * THP in this process at all (a 2 MiB page would put 512 pages on one node). */
	if (small_len && prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) {
		fprintf(stderr, "page-touch: prctl(PR_SET_THP_DISABLE) failed: %s\n", strerror(errno));
		return 1;
	}
	if (reserve_len && map_region(&reserve, reserve_len) != 0)
		return 1;
	if (touch_region(&regions[nregions], len) != 0 || report_nth(&regions[nregions], nregions) != 0)
		return 1;
	nregions++;
	if (small_len && (touch_small(&small, small_len) != 0 || report_query(&small, "small") != 0))
		return 1;
	fflush(stdout);
	if (!hold)
		return 0;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;) {
		while (!pending_report && !pending_touch && !pending_reserve && !pending_exit)
			sigsuspend(&old);
		if (pending_exit)
			break;
		int rc = 0;
		if (pending_touch) {
			pending_touch = 0;
			if (nregions == MAX_REGIONS) {
				fprintf(stderr, "page-touch: already %d regions\n", MAX_REGIONS);
				rc = -1;
			} else if ((rc = touch_region(&regions[nregions], len)) == 0) {
				rc = report_nth(&regions[nregions], nregions);
				nregions++;
			}
		}
		if (pending_reserve) {
			pending_reserve = 0;
			if (!reserve_len) {
				fprintf(stderr, "page-touch: no --reserve region to touch\n");
				rc = -1;
			} else {
				touch(&reserve);
				reserve_touched = 1;
				rc = report_region(&reserve, "reserve");
			}
		}
		if (pending_report) {
			pending_report = 0;
			for (int i = 0; i < nregions; i++)
				if (report_nth(&regions[i], i) != 0)
					rc = -1;
			if (reserve_touched && report_region(&reserve, "reserve") != 0)
				rc = -1;
			if (small_len && report_query(&small, "small") != 0)
				rc = -1;
		}
		printf("ack %d%s\n", ++acks, rc ? " failed" : "");
		fflush(stdout);
	}
	return 0;
}
