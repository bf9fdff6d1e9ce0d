/* interpose-check - the interposer (mem_interleave_regions.so) from inside a program.
 *
 *   interpose-check LARGE_POLICY SMALL_POLICY [DL_LIBRARY]
 * Run with the interposer preloaded and SLURM_MEM_INTERLEAVE_REGION_POLICY saying 8 MiB:
 * every way of allocating 16 MiB must land in a mapping whose numa_maps policy is
 * LARGE_POLICY ("weighted interleave:0") before it is touched, everything below the
 * minimum in one whose policy is SMALL_POLICY (the task's own, "default" here), and
 * what the program computes must not change (contents kept, zeroed memory zero).
 * Prints "ok NAME" or "FAIL NAME: why" per check, and "done" at the end; the exit
 * status is the number of failures. Checks: every allocation function, mmap and
 * mremap, realloc across the minimum both ways, free and malloc again at the same
 * address 10 times, a fork child's allocations, threads, a dlopen'ed library's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../vm/src/pages-where.h"

#define MIB (1024 * 1024)
#define LARGE (16 * MIB)
#define SMALL (64 * 1024)
/* glibc maps this size on its own, yet it is below the minimum */
#define MIDDLE (4 * MIB)

static const char *want_large, *want_small;
static int failures;

static void report(const char *name, const char *why)
{
	if (why)
		failures++;
	printf(why ? "FAIL %s: %s\n" : "ok %s\n", name, why);
	fflush(stdout);
}

/* The numa_maps policy of the mapping holding addr, or "(unmapped)". */
static const char *policy_of(const void *addr, char *buf, size_t len)
{
	unsigned long cnt[WHERE_MAX_NODES];
	uintptr_t start = mapping_start(addr);

	if (!start || where_numa_maps(0, (const void *)start, buf, len, cnt) < 0)
		snprintf(buf, len, "(unmapped)");
	return buf;
}

/* Write every page (as a program's first write would; the contents stay), then
 * compare the policy. */
static void expect_policy(const char *name, void *p, size_t len, const char *want)
{
	char got[128], why[256];

	if (!p) {
		snprintf(why, sizeof(why), "the allocation failed: %s", strerror(errno));
		report(name, why);
		return;
	}
	for (size_t i = 0; i < len; i += 4096)
		((volatile char *)p)[i] = ((volatile char *)p)[i];
	if (strcmp(policy_of(p, got, sizeof(got)), want)) {
		snprintf(why, sizeof(why), "policy '%s', not '%s' (%zu bytes at %p)", got, want, len, p);
		report(name, why);
	} else {
		report(name, NULL);
	}
}

static void check_functions(void)
{
	void *p = NULL;

	expect_policy("malloc-large", malloc(LARGE), LARGE, want_large);
	expect_policy("malloc-small", malloc(SMALL), SMALL, want_small);
	expect_policy("malloc-middle", malloc(MIDDLE), MIDDLE, want_small);
	p = calloc(LARGE / 4096, 4096);
	if (p && (((char *)p)[0] || ((char *)p)[LARGE - 1]))
		report("calloc-large-zero", "calloc's memory is not zero");
	expect_policy("calloc-large", p, LARGE, want_large);
	expect_policy("calloc-small", calloc(1, SMALL), SMALL, want_small);
	p = NULL;
	if (posix_memalign(&p, 2 * MIB, LARGE) == 0 && ((uintptr_t)p & (2 * MIB - 1)))
		report("posix_memalign-aligned", "not aligned to 2 MiB");
	expect_policy("posix_memalign-large", p, LARGE, want_large);
	expect_policy("aligned_alloc-large", aligned_alloc(4096, LARGE), LARGE, want_large);
	expect_policy("memalign-large", memalign(64, LARGE), LARGE, want_large);
	expect_policy("valloc-large", valloc(LARGE), LARGE, want_large);
	expect_policy("pvalloc-large", pvalloc(LARGE - 100), LARGE, want_large);
	p = malloc(LARGE);
	if (p && malloc_usable_size(p) < LARGE)
		report("usable-size", "malloc_usable_size is below what was asked");
	expect_policy("mmap-anonymous-large", mmap(NULL, LARGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
						    -1, 0), LARGE, want_large);
	expect_policy("mmap-anonymous-small", mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
						    -1, 0), MIB, want_small);
	p = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	((char *)p)[0] = 1;
	p = mremap(p, MIB, LARGE, MREMAP_MAYMOVE);
	expect_policy("mremap-grown-large", p == MAP_FAILED ? NULL : p, LARGE, want_large);
}

/* Across the minimum and back: the contents stay, the placement follows the size. */
static void check_realloc(void)
{
	unsigned char *p = malloc(SMALL), *q;
	int intact = 1;

	for (size_t i = 0; p && i < SMALL; i++)
		p[i] = (unsigned char)(i * 7);
	q = realloc(p, LARGE);
	for (size_t i = 0; q && i < SMALL; i++)
		intact &= q[i] == (unsigned char)(i * 7);
	report("realloc-grow-keeps-contents", q && intact ? NULL : "the first 64 KiB changed");
	expect_policy("realloc-grow-large", q, LARGE, want_large);
	q[LARGE - 1] = 0x5a;
	p = realloc(q, 2 * LARGE);
	report("realloc-large-keeps-contents", p && p[LARGE - 1] == 0x5a && p[7] == 49 ? NULL : "contents changed");
	expect_policy("realloc-larger-large", p, 2 * LARGE, want_large);
	q = realloc(p, SMALL);
	for (size_t i = 0; q && i < SMALL; i++)
		intact &= q[i] == (unsigned char)(i * 7);
	report("realloc-shrink-keeps-contents", q && intact ? NULL : "the first 64 KiB changed");
	expect_policy("realloc-shrink-small", q, SMALL, want_small);
	free(q);
}

/* An iterative code's array: freed and allocated again, 10 times; each time a new
 * mapping at the same address, placed again. */
static void check_free_again(void)
{
	char why[256], got[128];
	uintptr_t first = 0, start;
	int same = 0, placed = 0;

	for (int i = 0; i < 10; i++) {
		char *p = malloc(LARGE);

		if (!p)
			break;
		memset(p, i, LARGE);
		/* the array's mapping: at the same address each time */
		start = mapping_start(p);
		first = first ? first : start;
		same += start == first;
		placed += !strcmp(policy_of(p, got, sizeof(got)), want_large);
		free(p);
		if (i == 0)
			report("free-unmaps", mapping_start((void *)start) == start ?
			       "the freed array's mapping is still there" : NULL);
	}
	snprintf(why, sizeof(why), "%d of 10 at the first address", same);
	report("free-malloc-same-address-10", same == 10 ? NULL : why);
	snprintf(why, sizeof(why), "%d of 10 with policy '%s'", placed, want_large);
	report("free-malloc-placed-10", placed == 10 ? NULL : why);
}

static void check_fork(void)
{
	void *inherited = malloc(LARGE);
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		failures = 0;
		expect_policy("fork-child-large", malloc(LARGE), LARGE, want_large);
		expect_policy("fork-child-small", malloc(SMALL), SMALL, want_small);
		expect_policy("fork-child-inherited", inherited, LARGE, want_large);
		free(inherited);
		_exit(failures);
	}
	waitpid(pid, &status, 0);
	report("fork-child-exit", WIFEXITED(status) && WEXITSTATUS(status) == 0 ? NULL : "the child failed or crashed");
	free(inherited);
}

/* Each thread allocates and frees concurrently with the others and keeps its last
 * pair; they are looked at once every thread is done (reading /proc/self/maps while
 * other threads map and unmap can miss a line). */
struct kept {
	void *large, *small;
};

static void *thread_allocates(void *arg)
{
	struct kept *k = arg;

	for (int i = 0; i < 20; i++) {
		void *p = malloc(LARGE), *s = malloc(SMALL);

		if (i == 19) {
			k->large = p;
			k->small = s;
			break;
		}
		free(p);
		free(s);
	}
	return NULL;
}

static void check_threads(void)
{
	struct kept kept[4] = { { 0 } };
	char name[32];
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, thread_allocates, &kept[i]);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "thread%d-large", i);
		expect_policy(name, kept[i].large, LARGE, want_large);
		snprintf(name, sizeof(name), "thread%d-small", i);
		expect_policy(name, kept[i].small, SMALL, want_small);
		free(kept[i].large);
		free(kept[i].small);
	}
}

static void check_dlopen(const char *path)
{
	void *(*dl_alloc)(size_t);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL), *p;

	if (!h || !(dl_alloc = (void *(*)(size_t))dlsym(h, "interpose_dl_alloc"))) {
		report("dlopen-large", dlerror());
		return;
	}
	p = dl_alloc(LARGE);
	expect_policy("dlopen-large", p, LARGE, want_large);
	free(p);
	dlclose(h);
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: interpose-check LARGE_POLICY SMALL_POLICY [DL_LIBRARY]\n");
		return 2;
	}
	want_large = argv[1];
	want_small = argv[2];
	check_functions();
	check_realloc();
	check_free_again();
	check_fork();
	check_threads();
	if (argc > 3)
		check_dlopen(argv[3]);
	printf("done\n");
	return failures;
}
