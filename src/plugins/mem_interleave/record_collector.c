/* record_collector.c - the step's record collector thread (see record_collector.h). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "mi_log.h"
#include "record_collector.h"
#include "record_gather.h"

/* After the last sender is cut off, connections it already made are taken for this
 * long: slurmd connects and writes within one call. */
#define DRAIN_MS 50

struct record_collector {
	struct smpol_gather *sock;
	uint32_t job, expected;
	char step[32];
	pthread_t thread;
	bool running;
	int wake[2];            /* a byte here stops the thread */
	pthread_mutex_t lock;
	pthread_cond_t arrived;
	json_object *entries;   /* {NODE:ENTRY} so far */
	int deliveries;         /* messages taken */
	int handed_on;          /* deliveries whose entries this node handed on */
	void (*on_delivery)(void *);
	void *on_delivery_arg;
};

static void take(struct record_collector *g)
{
	char err[SMPOL_ERRLEN];
	int rc, before, taken;

	pthread_mutex_lock(&g->lock);
	before = g->deliveries;
	while ((rc = smpol_gather_accept(g->sock, g->entries, err, sizeof(err))) != -EAGAIN) {
		if (rc < 0)
			slurm_error(MI_LOG "job %u step %s: %s", g->job, g->step, err);
		else
			g->deliveries++;
		pthread_cond_broadcast(&g->arrived);
	}
	taken = g->deliveries - before;
	pthread_mutex_unlock(&g->lock);
	if (taken > 0 && g->on_delivery)
		g->on_delivery(g->on_delivery_arg);
}

static void *gather_thread(void *arg)
{
	struct record_collector *g = arg;
	struct pollfd p[2] = { { .fd = smpol_gather_fd(g->sock), .events = POLLIN },
			       { .fd = g->wake[0], .events = POLLIN } };

	for (;;) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		if (p[0].revents)
			take(g);
	}
	return NULL;
}

int record_collector_start(const struct smpol_host *h, uint32_t job, const char *step, uint32_t expected,
		      void (*on_delivery)(void *), void *on_delivery_arg, struct record_collector **gp,
		      char *err, size_t errlen)
{
	struct record_collector *g = calloc(1, sizeof(*g));
	int rc;

	*gp = NULL;
	if (!g || !(g->entries = json_object_new_object())) {
		free(g);
		return smpol_fail(err, errlen, ENOMEM, "out of memory starting the record collector");
	}
	g->job = job;
	g->expected = expected;
	g->on_delivery = on_delivery;
	g->on_delivery_arg = on_delivery_arg;
	snprintf(g->step, sizeof(g->step), "%s", step);
	g->wake[0] = g->wake[1] = -1;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->arrived, NULL);
	rc = smpol_gather_open(h, job, step, &g->sock, err, errlen);
	if (rc == 0 && pipe2(g->wake, O_CLOEXEC) < 0)
		rc = smpol_fail(err, errlen, errno, "cannot start the record collector: %s", strerror(errno));
	if (rc == 0 && (rc = pthread_create(&g->thread, NULL, gather_thread, g)) != 0)
		rc = smpol_fail(err, errlen, rc, "cannot start the record collector thread: %s", strerror(rc));
	if (rc != 0) {
		record_collector_free(g);
		return rc;
	}
	g->running = true;
	*gp = g;
	return 0;
}

static void stop_thread(struct record_collector *g)
{
	if (!g->running)
		return;
	if (write(g->wake[1], "x", 1) != 1)
		pthread_cancel(g->thread);
	pthread_join(g->thread, NULL);
	g->running = false;
}

/* {NODE:ENTRY} holding what entries holds and this node's own entry (NULL: none). */
static json_object *with_own(json_object *entries, const char *node, json_object *own)
{
	json_object *all = json_object_new_object();

	if (!all)
		return NULL;
	json_object_object_foreach(entries, name, entry)
		json_object_object_add(all, name, json_object_get(entry));
	if (own)
		json_object_object_add(all, node, json_object_get(own));
	return all;
}

json_object *record_collector_peek(struct record_collector *g, const char *node, json_object *own, bool *complete,
			      int *mark)
{
	json_object *all;

	pthread_mutex_lock(&g->lock);
	all = with_own(g->entries, node, own);
	*complete = all && (uint32_t)json_object_object_length(all) >= g->expected;
	*mark = g->deliveries;
	pthread_mutex_unlock(&g->lock);
	return all;
}

void record_collector_handed_on(struct record_collector *g, int mark)
{
	pthread_mutex_lock(&g->lock);
	if (mark > g->handed_on)
		g->handed_on = mark;
	pthread_mutex_unlock(&g->lock);
}

int record_collector_new_deliveries(struct record_collector *g)
{
	int n;

	pthread_mutex_lock(&g->lock);
	n = g->deliveries - g->handed_on;
	pthread_mutex_unlock(&g->lock);
	return n;
}

json_object *record_collector_finish(struct record_collector *g, const char *node, json_object *own, int wait_ms,
				struct record_collector_end *end)
{
	struct timespec deadline;
	json_object *entries;
	int n;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += wait_ms / 1000;
	deadline.tv_nsec += (wait_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&g->lock);
	end->early = json_object_object_length(g->entries);
	if (own)
		json_object_object_add(g->entries, node, json_object_get(own));
	while ((uint32_t)json_object_object_length(g->entries) < g->expected &&
	       pthread_cond_timedwait(&g->arrived, &g->lock, &deadline) != ETIMEDOUT)
		;
	pthread_mutex_unlock(&g->lock);
	stop_thread(g);
	smpol_gather_stop(g->sock);
	/* a sender that found the socket before it was unlinked is still taken */
	if ((uint32_t)json_object_object_length(g->entries) < g->expected)
		usleep(DRAIN_MS * 1000);
	take(g);
	entries = g->entries;
	g->entries = NULL;
	n = json_object_object_length(entries);
	end->missing = (uint32_t)n < g->expected ? (int)(g->expected - (uint32_t)n) : 0;
	end->deliveries = g->deliveries;
	end->new_deliveries = g->deliveries - g->handed_on;
	return entries;
}

void record_collector_free(struct record_collector *g)
{
	if (!g)
		return;
	stop_thread(g);
	smpol_gather_close(g->sock);
	if (g->wake[0] >= 0)
		close(g->wake[0]);
	if (g->wake[1] >= 0)
		close(g->wake[1]);
	json_object_put(g->entries);
	pthread_cond_destroy(&g->arrived);
	pthread_mutex_destroy(&g->lock);
	free(g);
}
