/* regions-bench.c - what region-aware placement costs slurmstepd's sampler (bench/regions).
 *
 * A child maps an array of MIB MiB (its own mapping, touched) and SMALL MiB of 32 KiB
 * malloc()s, then waits. One run measures, on this machine:
 *   first    the sample that places the array: its page walk (move_pages queries)
 *            and the moves onto the plan (every memory node, equal weights)
 *   move     a later sample on a kernel without process_mbind (/proc/PID/smaps,
 *            the array's resident size unchanged: nothing to walk)
 *   rewalk   a later sample after the array's resident size changed (walked again)
 *   policy   a later sample with process_mbind (/proc/PID/maps, nothing new)
 *   numa     the accounting sample the sampler takes anyway (/proc/PID/numa_maps)
 * each the median of ROUNDS, and prints the ratios to numa (what region-aware placement
 * adds to a sample) and the pages walked, the minimum to move and the pages moved.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "error.h"
#include "number.h"
#include "numa_maps.h"
#include "region_place.h"
#include "topology.h"

static pid_t child_start(size_t array, size_t small)
{
	int fds[2];
	char c;
	pid_t pid;

	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		char *a;

		prctl(PR_SET_PDEATHSIG, SIGKILL);     /* the bench may exit on an error */
		a = mmap(NULL, array, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (a == MAP_FAILED)
			_exit(1);
		madvise(a, array, MADV_NOHUGEPAGE);
		memset(a, 1, array);
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
	struct smpol_region_opts move = { .by = SMPOL_REGIONS_MOVE }, policy;
	struct smpol_region_memory m = { 0 }, mp = { 0 };
	struct smpol_region_sample s, first;
	struct smpol_numa_usage u;
	struct smpol_topology topo;
	struct smpol_host host;
	struct smpol_task_ref t;
	struct smpol_region *all = NULL;
	char err[SMPOL_ERRLEN];
	double tfirst, *tmove, *trewalk, *tpolicy, *tnuma;
	uint64_t mib, small, rounds;
	int nodes = 0, nall = 0;
	pid_t pid;

	if (argc != 4) {
		fprintf(stderr, "usage: regions-bench MIB SMALL_MIB ROUNDS\n");
		return 2;
	}
	mib = bench_whole_arg("regions-bench", "MIB", argv[1], 1 << 20);
	small = bench_whole_arg("regions-bench", "SMALL_MIB", argv[2], 1 << 20);
	rounds = bench_whole_arg("regions-bench", "ROUNDS", argv[3], 10000);
	smpol_host_default(&host);
	if (smpol_topology_read(&host, &topo, err, sizeof(err)) < 0) {
		fprintf(stderr, "regions-bench: %s\n", err);
		return 1;
	}
	for (int i = 0; i < topo.nnodes; i++)
		if (topo.nodes[i].has_memory) {
			move.move.weight[topo.nodes[i].id] = 1;
			nodes++;
		}
	move.min_region = mib << 20;   /* the array only */
	tmove = calloc(rounds, sizeof(double));
	trewalk = calloc(rounds, sizeof(double));
	tpolicy = calloc(rounds, sizeof(double));
	tnuma = calloc(rounds, sizeof(double));
	pid = child_start(mib << 20, small << 20);
	if (!tmove || !trewalk || !tpolicy || !tnuma || pid < 0 || smpol_task_pin(pid, 0, &t, err, sizeof(err)) < 0) {
		fprintf(stderr, "regions-bench: the child did not start: %s\n", pid < 0 ? strerror(errno) : err);
		return 1;
	}
	tfirst = timed(&t, &move, &m, &first);
	/* process_mbind's later samples: every large mapping already has its policy */
	policy = move;
	policy.by = SMPOL_REGIONS_POLICY;
	if (smpol_pages_regions(pid, false, &all, &nall, err, sizeof(err)) < 0) {
		fprintf(stderr, "regions-bench: %s\n", err);
		return 1;
	}
	mp.placed = all;
	mp.nplaced = nall;
	for (uint64_t r = 0; r < rounds; r++) {
		tmove[r] = timed(&t, &move, &m, &s);
		m.placed[0].rss_kb = 0;        /* as if it had grown: walked again */
		trewalk[r] = timed(&t, &move, &m, &s);
		tpolicy[r] = timed(&t, &policy, &mp, &s);
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
	double nm = bench_median(tnuma, (int)rounds), mv = bench_median(tmove, (int)rounds);
	double rw = bench_median(trewalk, (int)rounds), po = bench_median(tpolicy, (int)rounds);
	printf("array %llu MiB, small allocations %llu MiB, %d memory node(s), %llu rounds\n",
	       (unsigned long long)mib, (unsigned long long)small, nodes, (unsigned long long)rounds);
	printf("first sample: %llu pages walked, minimum to move %llu, moved %llu, %llu did not move\n",
	       (unsigned long long)first.pages, (unsigned long long)first.minimum, (unsigned long long)first.moved,
	       (unsigned long long)first.not_moved);
	printf("%-8s %12s %10s\n", "sample", "ms", "x numa");
	printf("%-8s %12.3f %10.2f\n", "first", tfirst * 1e3, tfirst / nm);
	printf("%-8s %12.3f %10.2f\n", "rewalk", rw * 1e3, rw / nm);
	printf("%-8s %12.3f %10.2f\n", "move", mv * 1e3, mv / nm);
	printf("%-8s %12.3f %10.2f\n", "policy", po * 1e3, po / nm);
	printf("%-8s %12.3f %10.2f\n", "numa", nm * 1e3, 1.0);
	smpol_task_unpin(&t);
	smpol_region_memory_free(&m);
	smpol_region_memory_free(&mp);
	smpol_topology_free(&topo);
	return 0;
}
