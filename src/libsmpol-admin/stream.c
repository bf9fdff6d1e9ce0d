/* stream.c - STREAM-style bandwidth under a memory policy (see stream.h). Raw
 * syscalls, no libnuma. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "stream.h"
#include "sysfs.h"

#define MIB (1024UL * 1024)
#define MAX_REPEATS 1000

struct shared {
	double *a, *b, *c;
	size_t n;                      /* elements per array */
	int nthreads;
	pthread_barrier_t start, done;
	enum smpol_stream_pass pass;
	int init;                      /* the pass is the first touch */
	int stop;
	int gate;                      /* 0: wait, 1: every thread started, -1: give up */
	pthread_cond_t opened;
	double sink;                   /* the read pass's sums, so they are not optimized away */
	pthread_mutex_t lock;
};

struct worker {
	struct shared *s;
	int index;
	int cpu;
	int rc;                        /* pinning: 0 or -errno */
	pthread_t thread;
};

static const char *const pass_names[SMPOL_STREAM_PASSES] = { "read", "write", "copy", "triad" };
static const double pass_bytes[SMPOL_STREAM_PASSES] = { 8, 8, 16, 24 };

const char *smpol_stream_pass_name(enum smpol_stream_pass p)
{
	return (unsigned)p < SMPOL_STREAM_PASSES ? pass_names[p] : "unknown";
}

static void run_pass(struct shared *s, size_t lo, size_t hi)
{
	double *a = s->a, *b = s->b, *c = s->c, sum = 0;
	const double scalar = 3.0;

	if (s->init) {
		for (size_t i = lo; i < hi; i++) {
			a[i] = 1.0;
			b[i] = 2.0;
			c[i] = 0.0;
		}
		return;
	}
	switch (s->pass) {
	case SMPOL_STREAM_READ: {
		/* independent sums, so the loop is bound by memory, not by one add chain */
		double part[8] = { 0 };
		size_t i = lo;

		for (; i + 8 <= hi; i += 8)
			for (int k = 0; k < 8; k++)
				part[k] += a[i + k];
		for (; i < hi; i++)
			sum += a[i];
		for (int k = 0; k < 8; k++)
			sum += part[k];
		pthread_mutex_lock(&s->lock);
		s->sink += sum;
		pthread_mutex_unlock(&s->lock);
		break;
	}
	case SMPOL_STREAM_WRITE:
		for (size_t i = lo; i < hi; i++)
			a[i] = scalar;
		break;
	case SMPOL_STREAM_COPY:
		for (size_t i = lo; i < hi; i++)
			c[i] = a[i];
		break;
	case SMPOL_STREAM_TRIAD:
		for (size_t i = lo; i < hi; i++)
			a[i] = b[i] + scalar * c[i];
		break;
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct shared *s = w->s;
	size_t lo = s->n * (size_t)w->index / (size_t)s->nthreads, hi = s->n * (size_t)(w->index + 1) / (size_t)s->nthreads;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	w->rc = -pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	/* the barriers count every thread: pass them only once all were started */
	pthread_mutex_lock(&s->lock);
	while (!s->gate)
		pthread_cond_wait(&s->opened, &s->lock);
	pthread_mutex_unlock(&s->lock);
	if (s->gate < 0)
		return NULL;
	for (;;) {
		pthread_barrier_wait(&s->start);
		if (s->stop)
			break;
		if (!w->rc)
			run_pass(s, lo, hi);
		pthread_barrier_wait(&s->done);
	}
	return NULL;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One pass by every thread; its seconds. */
static double timed(struct shared *s, enum smpol_stream_pass pass, int init)
{
	double t0;

	s->pass = pass;
	s->init = init;
	pthread_barrier_wait(&s->start);
	t0 = now();
	pthread_barrier_wait(&s->done);
	return now() - t0;
}

/* mmap an array and give it the policy before anything touches it. */
static int map_array(const struct smpol_stream_opts *o, double **out, char *err, size_t errlen)
{
	unsigned long mask[SMPOL_MAX_NODES / (8 * sizeof(unsigned long))] = { 0 };
	void *p;

	for (int n = smpol_bitmap_next(&o->nodes, 0); n >= 0; n = smpol_bitmap_next(&o->nodes, n + 1))
		mask[n / (8 * sizeof(unsigned long))] |= 1UL << (n % (8 * sizeof(unsigned long)));
	p = mmap(NULL, o->array_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return smpol_fail(err, errlen, errno, "cannot map %zu MiB: %s", o->array_bytes / MIB, strerror(errno));
	if (syscall(SYS_mbind, p, o->array_bytes, o->mode, mask, (unsigned long)SMPOL_MAX_NODES + 1, 0UL) != 0) {
		int e = errno;

		munmap(p, o->array_bytes);
		return smpol_fail(err, errlen, e, "the kernel refused memory policy %d over the nodes asked for: %s%s",
				  o->mode, strerror(e), e == EINVAL && o->mode == 6 ?
				  " (weighted interleave needs Linux 6.9)" : "");
	}
	*out = p;
	return 0;
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

static int check_opts(const struct smpol_stream_opts *o, char *err, size_t errlen)
{
	if (smpol_cpus_empty(&o->cpus))
		return smpol_fail(err, errlen, EINVAL, "no CPU to run the measuring threads on");
	if (smpol_bitmap_empty(&o->nodes))
		return smpol_fail(err, errlen, EINVAL, "no memory node to place the arrays on");
	if (o->array_bytes < MIB)
		return smpol_fail(err, errlen, EINVAL, "arrays of %zu bytes are too small to measure memory", o->array_bytes);
	if (o->repeats < 1 || o->repeats > MAX_REPEATS)
		return smpol_fail(err, errlen, EINVAL, "repeats %d is outside 1-%d", o->repeats, MAX_REPEATS);
	return 0;
}

/* Start one pinned thread per CPU, run every pass `repeats` times, stop them. */
static int measure(struct shared *s, const struct smpol_stream_opts *o, struct smpol_stream_result *r,
		   char *err, size_t errlen)
{
	struct worker *w = calloc((size_t)s->nthreads, sizeof(*w));
	double *secs = calloc((size_t)o->repeats, sizeof(*secs));
	int started = 0, rc = 0;

	if (!w || !secs) {
		free(w);
		free(secs);
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	}
	pthread_barrier_init(&s->start, NULL, (unsigned)s->nthreads + 1);
	pthread_barrier_init(&s->done, NULL, (unsigned)s->nthreads + 1);
	for (int cpu = smpol_cpus_next(&o->cpus, 0); cpu >= 0; cpu = smpol_cpus_next(&o->cpus, cpu + 1)) {
		w[started] = (struct worker){ s, started, cpu, 0, 0 };
		if (pthread_create(&w[started].thread, NULL, work, &w[started])) {
			rc = smpol_fail(err, errlen, EAGAIN, "cannot start a measuring thread for CPU %d", cpu);
			break;
		}
		started++;
	}
	pthread_mutex_lock(&s->lock);
	s->gate = rc ? -1 : 1;
	pthread_cond_broadcast(&s->opened);
	pthread_mutex_unlock(&s->lock);
	if (!rc) {
		timed(s, SMPOL_STREAM_READ, 1);   /* first touch, by the threads that use each slice */
		for (int i = 0; i < started && !rc; i++)
			if (w[i].rc)
				rc = smpol_fail(err, errlen, -w[i].rc, "cannot run a thread on CPU %d: %s", w[i].cpu,
						strerror(-w[i].rc));
	}
	for (int p = 0; !rc && p < SMPOL_STREAM_PASSES; p++) {
		double mb = pass_bytes[p] * (double)s->n / 1e6;

		for (int k = 0; k < o->repeats; k++)
			secs[k] = timed(s, (enum smpol_stream_pass)p, 0);
		qsort(secs, (size_t)o->repeats, sizeof(*secs), by_value);
		r->best[p] = mb / secs[0];
		r->median[p] = mb / secs[o->repeats / 2];
	}
	if (s->gate > 0) {
		s->stop = 1;
		pthread_barrier_wait(&s->start);
	}
	for (int i = 0; i < started; i++)
		pthread_join(w[i].thread, NULL);
	pthread_barrier_destroy(&s->start);
	pthread_barrier_destroy(&s->done);
	free(w);
	free(secs);
	return rc;
}

int smpol_stream_run(const struct smpol_stream_opts *o, struct smpol_stream_result *r, char *err, size_t errlen)
{
	struct shared s = { 0 };
	int rc = check_opts(o, err, errlen);

	memset(r, 0, sizeof(*r));
	if (rc)
		return rc;
	s.n = o->array_bytes / sizeof(double);
	s.nthreads = smpol_cpus_count(&o->cpus);
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.opened, NULL);
	rc = map_array(o, &s.a, err, errlen);
	if (!rc)
		rc = map_array(o, &s.b, err, errlen);
	if (!rc)
		rc = map_array(o, &s.c, err, errlen);
	if (!rc)
		rc = measure(&s, o, r, err, errlen);
	if (s.a)
		munmap(s.a, o->array_bytes);
	if (s.b)
		munmap(s.b, o->array_bytes);
	if (s.c)
		munmap(s.c, o->array_bytes);
	pthread_cond_destroy(&s.opened);
	pthread_mutex_destroy(&s.lock);
	return rc;
}

/* A cache size file: "32K", "1024K", "32M". */
static uint64_t cache_bytes(const char *path)
{
	char text[32], *end;
	uint64_t v;

	if (smpol_read_text(path, text, sizeof(text)))
		return 0;
	v = strtoull(text, &end, 10);
	if (*end == 'K')
		return v * 1024;
	if (*end == 'M')
		return v * MIB;
	return *end ? 0 : v;
}

size_t smpol_stream_array_bytes(const char *fsroot, unsigned factor)
{
	char dir[PATH_MAX], path[PATH_MAX + 300];
	uint64_t largest = 0, want;
	struct dirent *de;
	DIR *d;

	if (!smpol_fs_path(fsroot, dir, sizeof(dir), "/sys/devices/system/cpu/cpu0/cache") && (d = opendir(dir))) {
		while ((de = readdir(d))) {
			uint64_t b;

			if (strncmp(de->d_name, "index", 5))
				continue;
			snprintf(path, sizeof(path), "%s/%s/size", dir, de->d_name);
			b = cache_bytes(path);
			if (b > largest)
				largest = b;
		}
		closedir(d);
	}
	want = largest * factor;
	if (want < 64 * MIB)
		want = 64 * MIB;
	return (size_t)((want + MIB - 1) / MIB * MIB);
}
