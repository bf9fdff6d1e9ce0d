/* regions-bench.c - what region-aware placement costs slurmstepd's sampler (bench/regions).
 *
 * A child maps two arrays of MIB MiB each and SMALL MiB of 32 KiB malloc()s, then
 * waits. The first array it binds to the plan before touching it, as the interposer
 * does (placed as allocated); the second it just touches (what a static program's
 * array looks like). The plan: plain interleave over every memory node. One run
 * measures, on this machine:
 *   first    the sample that places the second array: maps and numa_maps read, its
 *            page walk (move_pages queries) and the moves onto the plan
 *   steady   a later sample with nothing to do: maps and numa_maps read, each large
 *            mapping known by its policy (the first) or its pages (the second)
 *   numa     the accounting sample the sampler takes anyway (/proc/PID/numa_maps)
 * each the median of ROUNDS, and prints the ratios to numa (what region-aware placement
 * adds to a sample), the pages walked, the minimum to move, the pages moved, and the
 * large mappings by how they are placed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/mempolicy.h>

#include "bench_util.h"
#include "error.h"
#include "number.h"
#include "numa_maps.h"
#include "region_place.h"
#include "topology.h"

/* An array of `len` bytes, bound to interleave over `mask` first when mask is not NULL. */
static int array(size_t len, const unsigned long *mask)
{
	char *a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (a == MAP_FAILED)
		return -1;
	madvise(a, len, MADV_NOHUGEPAGE);
	if (mask && syscall(SYS_mbind, a, len, MPOL_INTERLEAVE, mask, (unsigned long)SMPOL_MAX_NODES + 1, 0) != 0)
		return -1;
	memset(a, 1, len);
	return 0;
}

static pid_t child_start(size_t len, size_t small, const unsigned long *mask)
{
	int fds[2];
	char c;
	pid_t pid;

	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);     /* the bench may exit on an error */
		if (array(len, mask) < 0 || array(len, NULL) < 0)
			_exit(1);
		for (size_t done = 0; done < small; done += 32 << 10) {
			char *p = malloc(32 << 10);

			if (!p)
				_exit(1);
			memset(p, 1, 32 << 10);
		}
		if (write(fds[1], "r", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &c, 1) != 1)
		pid = -1;
	close(fds[0]);
	return pid;
}

/* One timed sample; exits on an error (the bench measures nothing then). */
static double timed(const struct smpol_task_ref *t, const struct smpol_region_opts *o, struct smpol_region_memory *m,
		    struct smpol_region_sample *s)
{
	char err[SMPOL_ERRLEN];
	double t0 = bench_now();

	if (smpol_region_place_task(t, o, m, s, err, sizeof(err)) < 0 || s->exited) {
		fprintf(stderr, "regions-bench: %s\n", s->exited ? "the child exited" : err);
		exit(1);
	}
	return bench_now() - t0;
}

int main(int argc, char **argv)
{
	struct smpol_region_opts move = { .by = SMPOL_REGIONS_MOVE };
	struct smpol_region_memory m = { 0 };
	struct smpol_region_sample s, first;
	struct smpol_numa_usage u;
	struct smpol_topology topo;
	struct smpol_host host;
	struct smpol_task_ref t;
	unsigned long mask[SMPOL_MASK_LONGS];
	char err[SMPOL_ERRLEN];
	double tfirst, *tsteady, *tnuma;
	uint64_t mib, small, rounds;
	int nodes = 0;
	pid_t pid;

	if (argc != 4) {
		fprintf(stderr, "usage: regions-bench MIB SMALL_MIB ROUNDS\n");
		return 2;
	}
	mib = bench_whole_arg("regions-bench", "MIB", argv[1], 1 << 20);
	small = bench_whole_arg("regions-bench", "SMALL_MIB", argv[2], 1 << 20);
	rounds = bench_whole_arg("regions-bench", "ROUNDS", argv[3], 10000);
	if (smpol_host_default(&host) < 0 || smpol_topology_read(&host, &topo, err, sizeof(err)) < 0) {
		fprintf(stderr, "regions-bench: %s\n", err);
		return 1;
	}
	for (int i = 0; i < topo.nnodes; i++)
		if (topo.nodes[i].has_memory) {
			move.move.weight[topo.nodes[i].id] = 1;
			smpol_bitmap_set(&move.nodes, topo.nodes[i].id);
			nodes++;
		}
	smpol_bitmap_to_mask(&move.nodes, mask);
	move.min_region = mib << 20;   /* the arrays only */
	tsteady = calloc(rounds, sizeof(double));
	tnuma = calloc(rounds, sizeof(double));
	pid = child_start(mib << 20, small << 20, mask);
	if (!tsteady || !tnuma || pid < 0 || smpol_task_pin(pid, 0, &t, err, sizeof(err)) < 0) {
		fprintf(stderr, "regions-bench: the child did not start: %s\n", pid < 0 ? strerror(errno) : err);
		return 1;
	}
	tfirst = timed(&t, &move, &m, &first);
	for (uint64_t r = 0; r < rounds; r++) {
		tsteady[r] = timed(&t, &move, &m, &s);
		smpol_numa_usage_init(&u);
		double t0 = bench_now();
		if (smpol_numa_maps_read(NULL, pid, &u, err, sizeof(err)) < 0) {
			fprintf(stderr, "regions-bench: %s\n", err);
			return 1;
		}
		tnuma[r] = bench_now() - t0;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	double nm = bench_median(tnuma, (int)rounds), st = bench_median(tsteady, (int)rounds);
	printf("2 arrays of %llu MiB, small allocations %llu MiB, %d memory node(s), %llu rounds\n",
	       (unsigned long long)mib, (unsigned long long)small, nodes, (unsigned long long)rounds);
	printf("first sample: %d large mapping(s): %d placed as allocated, %d placed now, %d on the plan already; "
	       "%llu pages walked, minimum to move %llu, moved %llu, %llu did not move\n", first.large,
	       first.at_allocation, first.placed, first.kept, (unsigned long long)first.pages,
	       (unsigned long long)first.minimum, (unsigned long long)first.moved, (unsigned long long)first.not_moved);
	printf("%-8s %12s %10s\n", "sample", "ms", "x numa");
	printf("%-8s %12.3f %10.2f\n", "first", tfirst * 1e3, tfirst / nm);
	printf("%-8s %12.3f %10.2f\n", "steady", st * 1e3, st / nm);
	printf("%-8s %12.3f %10.2f\n", "numa", nm * 1e3, 1.0);
	smpol_task_unpin(&t);
	smpol_region_memory_free(&m);
	smpol_topology_free(&topo);
	smpol_host_free(&host);
	return 0;
}
