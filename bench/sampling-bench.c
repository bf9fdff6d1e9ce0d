/* sampling-bench.c - what placement sampling costs (bench/sampling).
 *
 * A child process touches MIB MiB and then streams over it for a fixed number of
 * passes. Part 1: the time of one sample (smpol_numa_maps_read_tree of the child, what
 * slurmstepd's sampler does per task) at that size, and per GiB resident. Part 2: the
 * child's run time with no sampler and with a sampler every INTERVAL ms, alternated
 * ROUNDS times; the ratio of the medians is the slowdown the task sees. Both in one
 * run, on this machine. A ratio over runs the sampler barely touched measures nothing:
 * the passes are raised until an unsampled run lasts MIN_SAMPLES intervals and more,
 * and no ratio is printed when a sampled run still took fewer than MIN_SAMPLES samples.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "error.h"
#include "number.h"
#include "numa_maps.h"

#define MIN_SAMPLES 5        /* per sampled run, for its time to say anything */
#define MAX_PASSES 1000000

/* The child: touch, say so on the pipe, wait for the go byte, stream, exit. */
static void child(size_t bytes, int passes, int ready, int go)
{
	volatile unsigned char *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
					   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long sum = 0;
	char c = 'r';

	if (mem == MAP_FAILED)
		_exit(2);
	for (size_t i = 0; i < bytes; i += 4096)
		mem[i] = 1;
	if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
		_exit(3);
	for (int p = 0; p < passes; p++)
		for (size_t i = 0; i < bytes; i += 64)
			sum += mem[i]++;
	_exit(sum == 0 ? 4 : 0);
}

/* Start a child and wait until its memory is touched. */
static pid_t start_child(size_t bytes, int passes, int *go_fd)
{
	int ready[2], go[2];
	pid_t pid;
	char c;

	if (pipe(ready) || pipe(go))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		child(bytes, passes, ready[1], go[0]);
	}
	close(ready[1]);
	close(go[0]);
	if (pid < 0 || read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		close(go[1]);
		return -1;
	}
	close(ready[0]);
	*go_fd = go[1];
	return pid;
}

/* One timed run of the child's streaming; every interval_ms it is sampled when sample
 * is set (*samples counts this run's). Both kinds of run wait the same way, so only the
 * samples differ. */
static double timed_run(size_t bytes, int passes, int interval_ms, bool sample, int *samples,
			struct smpol_numa_usage *u)
{
	int go, status;
	double t0, next;
	pid_t pid = start_child(bytes, passes, &go);

	if (pid < 0)
		return -1;
	*samples = 0;
	t0 = bench_now();
	next = t0 + interval_ms / 1e3;
	if (write(go, "g", 1) != 1)
		return -1;
	close(go);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		char err[SMPOL_ERRLEN];

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		if (bench_now() >= next) {
			smpol_numa_usage_init(u);
			if (sample && smpol_numa_maps_read_tree(NULL, pid, 256, u, err, sizeof(err)) == 0)
				(*samples)++;
			next += interval_ms / 1e3;
		}
		usleep(1000);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return bench_now() - t0;
}

int main(int argc, char **argv)
{
	int mib = 1024, passes = 8, interval_ms = 1000, rounds = 5, opt, go, reps = 20, samples, fewest = -1;
	struct smpol_numa_usage *u = malloc(sizeof(*u));
	double cost[64], with[16], without[16], c, t, needed;
	char err[SMPOL_ERRLEN];
	size_t bytes;
	pid_t pid;

	while ((opt = getopt(argc, argv, "m:p:i:r:h")) != -1) {
		switch (opt) {
		case 'm': mib = bench_whole_arg("sampling-bench", "-m", optarg, 1 << 20); break;
		case 'p': passes = bench_whole_arg("sampling-bench", "-p", optarg, MAX_PASSES); break;
		case 'i': interval_ms = bench_whole_arg("sampling-bench", "-i", optarg, 3600000); break;
		case 'r': rounds = bench_whole_arg("sampling-bench", "-r", optarg, 16); break;
		default:
			fprintf(opt == 'h' ? stdout : stderr,
				"usage: sampling-bench [-m MIB] [-p PASSES] [-i INTERVAL_MS] [-r ROUNDS]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!u)
		return 1;
	bytes = (size_t)mib << 20;

	/* Part 1: one sample of a task holding MIB MiB */
	pid = start_child(bytes, 0, &go);
	if (pid < 0) {
		fprintf(stderr, "sampling-bench: cannot start a child with %d MiB\n", mib);
		return 1;
	}
	for (int i = 0; i < reps; i++) {
		double t0 = bench_now();

		smpol_numa_usage_init(u);
		if (smpol_numa_maps_read_tree(NULL, pid, 256, u, err, sizeof(err)) < 0) {
			fprintf(stderr, "sampling-bench: %s\n", err);
			return 1;
		}
		cost[i] = bench_now() - t0;
	}
	printf("resident (anonymous): %llu MiB under %d policies\n",
	       (unsigned long long)(smpol_numa_usage_anon_total(u) * SMPOL_PAGE_KIB / 1024), u->npolicies);
	if (write(go, "g", 1) != 1)
		return 1;
	close(go);
	waitpid(pid, NULL, 0);
	c = bench_median(cost, reps);
	printf("one sample of a %d MiB task: median %.3f ms over %d (%.3f ms per GiB)\n",
	       mib, c * 1e3, reps, c * 1e3 * 1024 / mib);
	printf("duty at the default interval (30 s): %.6f%% of one CPU per task\n", 100 * c / 30);

	/* Part 2: the task must run long enough for the sampler to work in it */
	needed = (MIN_SAMPLES + 1) * interval_ms / 1e3;
	t = timed_run(bytes, passes, interval_ms, false, &samples, u);
	if (t < 0) {
		fprintf(stderr, "sampling-bench: a timed run failed\n");
		return 1;
	}
	if (t < needed) {
		double more = (double)passes * needed * 1.25 / t;

		printf("%d passes run %.3f s, too short for %d samples at %d ms: ", passes, t, MIN_SAMPLES,
		       interval_ms);
		passes = more > MAX_PASSES ? MAX_PASSES : (int)more + 1;
		printf("%d passes instead\n", passes);
	}
	/* ... then its run time with and without a sampler, alternated */
	for (int r = 0; r < rounds; r++) {
		without[r] = timed_run(bytes, passes, interval_ms, false, &samples, u);
		with[r] = timed_run(bytes, passes, interval_ms, true, &samples, u);
		if (without[r] < 0 || with[r] < 0) {
			fprintf(stderr, "sampling-bench: a timed run failed\n");
			return 1;
		}
		fewest = fewest < 0 || samples < fewest ? samples : fewest;
	}
	{
		double a = bench_median(without, rounds), b = bench_median(with, rounds);

		printf("task run time (%d passes over %d MiB), median of %d: without sampling %.3f s, "
		       "sampled every %d ms %.3f s (at least %d samples per sampled run)\n",
		       passes, mib, rounds, a, interval_ms, b, fewest);
		if (fewest < MIN_SAMPLES) {
			printf("no ratio: a sampled run took %d samples, under the %d that make its time mean "
			       "something; give more passes (-p) or a shorter interval (-i)\n", fewest, MIN_SAMPLES);
			free(u);
			return 1;
		}
		printf("ratio sampled/unsampled: %.4f; one sample / task run time: %.6f\n", b / a, c / a);
	}
	free(u);
	return 0;
}
