/* regions-task.c - the task of bench/regions -S: one job step of the comparison of
 * region-aware placements under Slurm.
 *
 *   regions-task MIB SMALL_MIB WAIT_S HOLD_S [--memkind]
 *
 * It allocates three arrays of MIB MiB with malloc() (a0, a1, a2) and writes each, then
 * SMALL_MIB MiB of 4 KiB objects, and reports how long each array took from its
 * malloc() until its pages matched the target within 1 % (polling every 20 ms, at most
 * WAIT_S seconds), where the pages of the arrays and of the small objects are, and the
 * lines bench/regions reads; it lives at least HOLD_S seconds, so that the sampler
 * looks at it (and finds nothing to do where the arrays were placed as allocated):
 *   job 12 step 0
 *   target weighted 0:7 2:2              (the plan: SLURM_MEM_INTERLEAVE_NODES/WEIGHTS)
 *   array a0 placed_ms 4.1 N0=12743 N2=3641    or    array a0 unplaced N0=16384
 *   small N0=2048
 * The judge is the minimal-move planner's (movement.h): an array is placed when the
 * pages that would have to move to match the weights are at most 1 % of its pages.
 * It sets no policy: what it gets is the step's (whole-task interleave), the
 * interposer's (dynamic build) or the sampler's (the static build, regions-task-static).
 * With --memkind the target is memkind's high-bandwidth memory instead, judged by
 * memkind's own hbw_verify_memory_region(): the arrays go through memkind's autohbw
 * when it is preloaded (libautohbw.so in LD_PRELOAD), else through the call autohbw makes,
 * hbw_malloc() of libmemkind.so.0; where memkind finds no high-bandwidth memory it
 * prints "unplaced memkind: WHY" and no number, and exits 3.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "bench_util.h"
#include "bitmap.h"
#include "movement.h"
#include "pages.h"

#define ARRAYS 3
#define SMALL_OBJECT 4096
#define POLL_S 0.02
#define BATCH 1024

/* memkind's calls, found at run time: the bench needs no memkind to build. */
struct memkind_calls {
	int (*check_available)(void);
	int (*verify)(void *addr, size_t size, int flags);
	void *(*hbw_malloc)(size_t size);   /* NULL when autohbw intercepts malloc() */
};

struct target {
	unsigned weight[SMPOL_MAX_NODES];   /* the plan; unused with memkind */
	int top;                            /* highest node with a weight */
	const struct memkind_calls *mk;     /* memkind's high-bandwidth memory instead */
};

/* count[node] += the pages of addrs[0..n) on node (pages not present are not counted). */
static int count_batch(void **addrs, unsigned long n, uint64_t *count)
{
	int status[BATCH];

	if (smpol_pages_query(0, addrs, n, status, NULL, 0) < 0)
		return -1;
	for (unsigned long i = 0; i < n; i++)
		if (status[i] >= 0 && status[i] < SMPOL_MAX_NODES)
			count[status[i]]++;
	return 0;
}

/* count[node] = pages of addrs[0..n) on node; -1 when the query fails. */
static int count_pages(void **addrs, size_t n, uint64_t *count)
{
	memset(count, 0, SMPOL_MAX_NODES * sizeof(*count));
	for (size_t done = 0; done < n; done += BATCH)
		if (count_batch(addrs + done, n - done < BATCH ? n - done : BATCH, count) < 0)
			return -1;
	return 0;
}

/* count[node] = pages of [p, p + len) on node. */
static int count_range(char *p, size_t len, uint64_t *count)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), np = len / pg;
	void *addrs[BATCH];

	memset(count, 0, SMPOL_MAX_NODES * sizeof(*count));
	for (size_t done = 0; done < np; done += BATCH) {
		unsigned long n = np - done < BATCH ? np - done : BATCH;

		for (unsigned long i = 0; i < n; i++)
			addrs[i] = p + (done + i) * pg;
		if (count_batch(addrs, n, count) < 0)
			return -1;
	}
	return 0;
}

/* Whether the pages of [p, p + len) match the target within 1 %. */
static int on_target(const struct target *t, char *p, size_t len)
{
	uint64_t count[SMPOL_MAX_NODES], total = 0;
	struct smpol_movement mv;
	int top = t->top, within;

	if (t->mk)
		return t->mk->verify(p, len, 0) == 0;
	if (count_range(p, len, count) < 0)
		return 0;
	for (int n = 0; n < SMPOL_MAX_NODES; n++) {
		total += count[n];
		top = count[n] && n > top ? n : top;
	}
	if (smpol_movement_init(&mv, count, top, t->weight, NULL, 0) < 0)
		return 0;
	within = mv.minimum * 100 <= total;
	smpol_movement_free(&mv);
	return within;
}

static void print_counts(int rc, const uint64_t *count)
{
	if (rc < 0)
		printf(" unreadable");
	for (int n = 0; rc == 0 && n < SMPOL_MAX_NODES; n++)
		if (count[n])
			printf(" N%d=%llu", n, (unsigned long long)count[n]);
	printf("\n");
}

/* The plan the plugin exported to the task ("0,2" and "7:2"; no weights: equal). */
static int plan_target(struct target *t)
{
	const char *nodes = getenv("SLURM_MEM_INTERLEAVE_NODES"), *w = getenv("SLURM_MEM_INTERLEAVE_WEIGHTS");
	char err[SMPOL_ERRLEN];
	struct smpol_bitmap set;

	if (!nodes || smpol_bitmap_parse_list(nodes, SMPOL_MAX_NODES, &set, err, sizeof(err)) < 0 ||
	    smpol_bitmap_empty(&set)) {
		fprintf(stderr, "regions-task: no plan in SLURM_MEM_INTERLEAVE_NODES ('%s'): run it under "
			"srun --mem-interleave=...\n", nodes ? nodes : "");
		return -1;
	}
	printf("target %s", w ? "weighted" : "interleave");
	for (int n = smpol_bitmap_next(&set, 0); n >= 0; n = smpol_bitmap_next(&set, n + 1)) {
		uint64_t v = 1;
		size_t len = w ? strcspn(w, ":") : 0;

		if (w && (len == 0 || smpol_number_parse_span(w, len, 0, 1, 255, &v, err, sizeof(err)) < 0)) {
			fprintf(stderr, "\nregions-task: SLURM_MEM_INTERLEAVE_WEIGHTS does not match the nodes\n");
			return -1;
		}
		w = w ? w + len + (w[len] == ':') : NULL;
		t->weight[n] = (unsigned)v;
		t->top = n;
		printf(" %d:%llu", n, (unsigned long long)v);
	}
	printf("\n");
	return 0;
}

/* memkind as autohbw uses it, or why it cannot place (printed; -1). */
static int memkind_target(struct memkind_calls *mk)
{
	void *lib = RTLD_DEFAULT;
	int rc;

	mk->check_available = (int (*)(void))dlsym(RTLD_DEFAULT, "hbw_check_available");
	if (!mk->check_available) {     /* autohbw is not preloaded: memkind's own library */
		lib = dlopen("libmemkind.so.0", RTLD_NOW);
		if (!lib) {
			printf("unplaced memkind is not installed (%s)\n", dlerror());
			return -1;
		}
		mk->check_available = (int (*)(void))dlsym(lib, "hbw_check_available");
		mk->hbw_malloc = (void *(*)(size_t))dlsym(lib, "hbw_malloc");
	}
	mk->verify = (int (*)(void *, size_t, int))dlsym(lib, "hbw_verify_memory_region");
	if (!mk->check_available || !mk->verify || (lib != RTLD_DEFAULT && !mk->hbw_malloc)) {
		printf("unplaced memkind lacks hbw_check_available, hbw_verify_memory_region or hbw_malloc\n");
		return -1;
	}
	rc = mk->check_available();
	if (rc != 0) {
		printf("unplaced memkind found no high-bandwidth memory for this task's CPUs "
		       "(hbw_check_available() = %s)\n", strerror(rc));
		return -1;
	}
	printf("target memkind high-bandwidth memory, by %s\n",
	       mk->hbw_malloc ? "hbw_malloc() (libautohbw.so is not preloaded)" : "autohbw");
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const names[ARRAYS] = { "a0", "a1", "a2" };
	struct memkind_calls mk = { 0 };
	struct target t = { .top = -1 };
	uint64_t count[SMPOL_MAX_NODES];
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	char *array[ARRAYS];
	double start = bench_now(), t0[ARRAYS], placed[ARRAYS], wait, hold;
	size_t len, small, nsmall = 0;
	void **small_pages;

	if (argc < 5 || argc > 6 || (argc == 6 && strcmp(argv[5], "--memkind"))) {
		fprintf(stderr, "usage: regions-task MIB SMALL_MIB WAIT_S HOLD_S [--memkind]\n");
		return 2;
	}
	len = (size_t)bench_whole_arg("regions-task", "MIB", argv[1], 1 << 20) << 20;
	small = (size_t)bench_whole_arg("regions-task", "SMALL_MIB", argv[2], 1 << 20) << 20;
	wait = (double)bench_whole_arg("regions-task", "WAIT_S", argv[3], 3600);
	hold = (double)bench_whole_arg("regions-task", "HOLD_S", argv[4], 3600);
	/* pages count one by one, as the interposer's and the sampler's do */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) {
		fprintf(stderr, "regions-task: prctl(PR_SET_THP_DISABLE) failed: %s\n", strerror(errno));
		return 1;
	}
	printf("job %s step %s\n", getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "none",
	       getenv("SLURM_STEP_ID") ? getenv("SLURM_STEP_ID") : "none");
	if (argc == 6 ? memkind_target(&mk) < 0 : plan_target(&t) < 0) {
		fflush(stdout);
		return argc == 6 ? 3 : 2;
	}
	t.mk = argc == 6 ? &mk : NULL;
	for (int i = 0; i < ARRAYS; i++) {
		t0[i] = bench_now();
		array[i] = mk.hbw_malloc ? mk.hbw_malloc(len) : malloc(len);
		if (!array[i]) {
			fprintf(stderr, "regions-task: allocating %zu bytes failed\n", len);
			return 1;
		}
		memset(array[i], 1, len);
		placed[i] = on_target(&t, array[i], len) ? bench_now() - t0[i] : -1;
	}
	/* the pages the small objects lie on (each object's first and last): they may
	 * be spread over an allocator's mappings, so no span is walked */
	small_pages = calloc(small / SMALL_OBJECT * 2, sizeof(*small_pages));
	for (size_t done = 0; small_pages && done < small; done += SMALL_OBJECT) {
		char *p = malloc(SMALL_OBJECT);

		if (!p)
			break;
		memset(p, 1, SMALL_OBJECT);
		for (uintptr_t a = (uintptr_t)p & ~(pg - 1); a < (uintptr_t)p + SMALL_OBJECT; a += pg)
			if (nsmall == 0 || small_pages[nsmall - 1] != (void *)a)
				small_pages[nsmall++] = (void *)a;
	}
	if (!small_pages || nsmall < small / SMALL_OBJECT) {
		fprintf(stderr, "regions-task: a small allocation failed\n");
		return 1;
	}
	/* the sampler places the arrays later: wait for it, at most WAIT_S */
	for (int left = ARRAYS; left > 0 && bench_now() - t0[0] < wait;) {
		usleep((useconds_t)(POLL_S * 1e6));
		left = 0;
		for (int i = 0; i < ARRAYS; i++) {
			if (placed[i] < 0 && on_target(&t, array[i], len))
				placed[i] = bench_now() - t0[i];
			left += placed[i] < 0;
		}
	}
	for (int i = 0; i < ARRAYS; i++) {
		if (placed[i] < 0)
			printf("array %s unplaced", names[i]);
		else
			printf("array %s placed_ms %.1f", names[i], placed[i] * 1e3);
		print_counts(count_range(array[i], len, count), count);
	}
	printf("small");
	print_counts(count_pages(small_pages, nsmall, count), count);
	fflush(stdout);
	free(small_pages);
	while (bench_now() - start < hold)
		usleep((useconds_t)(POLL_S * 1e6));
	return 0;
}
