/* record_courier.c - slurmd (root): the spool's courier thread (see record_courier.h). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "mi_log.h"
#include "record_courier.h"
#include "record_write.h"
#include "site_config.h"

/* How often the spool is looked at while it is empty, and the retries while records
 * wait: the first after COURIER_RETRY_MIN_S, doubling up to COURIER_IDLE_S. */
#define COURIER_IDLE_S 30
#define COURIER_RETRY_MIN_S 5

static struct {
	pthread_t thread;
	bool running;
	bool stop;
	bool atfork;            /* courier_forked is registered */
	pid_t owner;            /* the process whose courier this is */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct smpol_site_config site;
} courier = { .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER };

/* Wait s seconds, or less when told to stop (courier.lock held). false: stop. */
static bool nap(int s)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += s;
	while (!courier.stop && pthread_cond_timedwait(&courier.wake, &courier.lock, &until) != ETIMEDOUT)
		;
	return !courier.stop;
}

/* The wait before the next round after `refused` rounds in a row that slurmctld or
 * slurmdbd did not answer: 30 s while nothing waits, then 5, 10, 20, 30, 30 ... */
static int next_wait_s(int refused)
{
	int s = COURIER_RETRY_MIN_S;

	if (refused == 0)
		return COURIER_IDLE_S;
	for (int i = 1; i < refused && s < COURIER_IDLE_S; i++)
		s *= 2;
	return s < COURIER_IDLE_S ? s : COURIER_IDLE_S;
}

/* Whether this process delivers: the courier's own, or a fork of it whose forking
 * process has exited (slurmd daemonizing), which takes over. A child slurmd forked
 * for other work (it execs, or its slurmd still runs a courier) does nothing. */
static bool this_process_delivers(void)
{
	if (courier.owner == getpid())
		return true;
	if (kill(courier.owner, 0) == 0 || errno != ESRCH)
		return false;
	courier.owner = getpid();
	return true;
}

/* The wait before the next round: the spool's, or less when a record is due to be
 * looked at again (at `next`) before. */
static int round_wait_s(int refused, int64_t next)
{
	int64_t s = next_wait_s(refused), until = next - (int64_t)time(NULL);

	if (next && until < s)
		s = until > 1 ? until : 1;
	return (int)s;
}

static void *courier_main(void *arg)
{
	/* job 0 names no step: every spooled record is someone else's */
	struct record_write w = { .site = &courier.site, .run = { 0 }, .step = "", .step_nnodes = 1 };
	int64_t next = 0;
	int refused = 0;

	(void)arg;
	pthread_mutex_lock(&courier.lock);
	while (nap(round_wait_s(refused, next))) {
		int rc;

		if (!this_process_delivers())
			break;
		pthread_mutex_unlock(&courier.lock);
		rc = record_write_deliver_all(&w);
		/* the records to look at again after their job's end (record_recheck.h) */
		if (record_write_recheck(&w, &next) == -ECONNREFUSED)
			rc = -ECONNREFUSED;
		pthread_mutex_lock(&courier.lock);
		refused = rc == -ECONNREFUSED && refused < 8 ? refused + 1 : rc == -ECONNREFUSED ? refused : 0;
	}
	pthread_mutex_unlock(&courier.lock);
	return NULL;
}

/* Start the thread (signals blocked: slurmd's own threads take them). 0 or an errno. */
static int start_thread(void)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&courier.thread, NULL, courier_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	courier.running = rc == 0;
	return rc;
}

/* A fork's child has no threads but the forking one: slurmd 22.05 loads its plugins
 * before it daemonizes (later releases after), so the courier follows every fork and
 * acts only where the forking process has gone (this_process_delivers). */
static void courier_forked(void)
{
	if (!courier.running)
		return;
	pthread_mutex_init(&courier.lock, NULL);
	pthread_cond_init(&courier.wake, NULL);
	start_thread();
}

void record_courier_start(int ac, char **av)
{
	char err[SMPOL_ERRLEN];
	int rc;

	if (courier.running)
		return;
	smpol_config_free(&courier.site);   /* a start before that found no records to deliver */
	rc = smpol_config_default(&courier.site) < 0 ? smpol_fail(err, sizeof(err), ENOMEM, "out of memory")
						      : smpol_config_parse(ac, av, &courier.site, err, sizeof(err));
	if (rc < 0) {
		slurm_error(MI_LOG "plugstack.conf arguments: %s; spooled placement records wait for the node's "
			    "next step", err);
		return;
	}
	if (courier.site.record == SMPOL_RECORD_NONE)
		return;
	courier.stop = false;
	courier.owner = getpid();
	if (!courier.atfork && pthread_atfork(NULL, NULL, courier_forked) == 0)
		courier.atfork = true;
	rc = start_thread();
	if (rc != 0)
		slurm_error(MI_LOG "cannot start the courier of spooled placement records (%s): they wait for "
			    "the node's next step", strerror(rc));
}

void record_courier_stop(void)
{
	if (courier.running) {
		pthread_mutex_lock(&courier.lock);
		courier.stop = true;
		pthread_cond_signal(&courier.wake);
		pthread_mutex_unlock(&courier.lock);
		pthread_join(courier.thread, NULL);
		courier.running = false;
	}
	smpol_config_free(&courier.site);   /* read by a start that did not run the thread too */
}
