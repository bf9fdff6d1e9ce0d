/* record_courier.c - slurmd (root): the spool's courier thread (see record_courier.h). */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "courier_lock.h"
#include "error.h"
#include "mi_log.h"
#include "record_courier.h"
#include "record_write.h"
#include "site_config.h"
#include "statedir.h"

/* How often the spool is looked at while it is empty, and the retries while records
 * wait: the first after COURIER_RETRY_MIN_S, doubling up to COURIER_IDLE_S. */
#define COURIER_IDLE_S 30
#define COURIER_RETRY_MIN_S 5

static struct {
	pthread_t thread;
	bool running;
	bool atfork;            /* courier_forked is registered */
	pid_t owner;            /* the process whose courier this is */
	int lock_fd;            /* SMPOL_COURIER_LOCK, held shared */
	int notify_fd;          /* inotify on STATEDIR/spool: a record put there wakes it */
	int stop_fd;            /* eventfd: stop */
	struct smpol_site_config site;
} courier = { .lock_fd = -1, .notify_fd = -1, .stop_fd = -1 };

/* Watch STATEDIR/spool, made when missing, unless watched already (it is watched
 * again after an admin removed it). 0 or -errno with a sentence. */
static int watch_spool(char *err, size_t errlen)
{
	char path[4200];
	int rc;

	if (courier.notify_fd >= 0)
		return 0;
	rc = smpol_statedir_mkdir(&courier.site.host, "spool", err, errlen);
	if (rc < 0)
		return rc;
	smpol_statedir_path(&courier.site.host, "spool", path, sizeof(path));
	courier.notify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (courier.notify_fd < 0)
		return smpol_fail(err, errlen, errno, "cannot watch %s: %s", path, strerror(errno));
	/* a record is put there whole, by a rename */
	if (inotify_add_watch(courier.notify_fd, path, IN_MOVED_TO | IN_ONLYDIR | IN_DONT_FOLLOW) < 0) {
		rc = smpol_fail(err, errlen, errno, "cannot watch %s: %s", path, strerror(errno));
		close(courier.notify_fd);
		courier.notify_fd = -1;
	}
	return rc;
}

/* Read the spool's events: whether one asks for a round. A record of a run held back
 * by its pace does not: the round the pace sets (*due, lowered to it) takes it, and
 * the spool is not listed at every step of a fast workflow. A spool that was removed
 * is watched again at the next round. */
static bool drain_events(const struct record_pace *pace, int64_t *due)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int64_t now = record_pace_now_ms();
	bool round = false;
	ssize_t n;

	while ((n = read(courier.notify_fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n; p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len) {
			struct inotify_event *ev = (struct inotify_event *)p;

			if (ev->mask & IN_IGNORED) {
				close(courier.notify_fd);
				courier.notify_fd = -1;
				return true;
			}
			if (!ev->len || !record_write_paced(pace, ev->name, now, due))
				round = true;     /* a queue overflow has no name */
		}
	}
	return round;
}

/* Wait ms milliseconds, or less when a record comes into the spool that asks for a
 * round, or until its run's pace lets it go (drain_events). false: stop. */
static bool nap(int ms, const struct record_pace *pace)
{
	int64_t until = record_pace_now_ms() + ms;

	for (int64_t left = ms; left > 0; left = until - record_pace_now_ms()) {
		struct pollfd fds[2] = { { .fd = courier.stop_fd, .events = POLLIN },
					 { .fd = courier.notify_fd, .events = POLLIN } };
		int64_t due = 0;

		if (poll(fds, 2, (int)left) > 0) {
			if (fds[0].revents)
				return false;
			if (fds[1].revents && drain_events(pace, &due))
				return true;
			if (due && due < until)
				until = due;
		}
	}
	return true;
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

/* The wait before the next round, in ms: the spool's, or less when a record is due to
 * be looked at again (at `next`) before, or when a run held back by its pace may go
 * (in paced_ms; not while slurmctld and slurmdbd do not answer). */
static int round_wait_ms(int refused, int64_t next, int paced_ms)
{
	int64_t s = next_wait_s(refused), until = next - (int64_t)time(NULL);

	if (next && until < s)
		s = until > 1 ? until : 1;
	if (!refused && paced_ms && paced_ms < s * 1000)
		return paced_ms;
	return (int)s * 1000;
}

static void *courier_main(void *arg)
{
	/* job 0 names no step: every spooled record is someone else's */
	struct record_write w = { .site = &courier.site, .run = { 0 }, .step = "", .step_nnodes = 1 };
	struct pollfd stop = { .fd = courier.stop_fd, .events = POLLIN };
	struct record_pace pace = { 0 };
	char err[SMPOL_ERRLEN];
	int64_t next = 0;
	int refused = 0, paced_ms = 0;

	(void)arg;
	/* a fork's courier touches nothing it shares with the forking process's (the
	 * spool's events) until that process is gone; a fork whose slurmd still runs
	 * after COURIER_IDLE_S is not slurmd's daemon */
	for (int waited = 0; !this_process_delivers(); waited++)
		if (waited == COURIER_IDLE_S || poll(&stop, 1, 1000) > 0)
			return NULL;
	while (nap(round_wait_ms(refused, next, paced_ms), &pace)) {
		int rc = record_write_deliver_all(&w, refused == 0, &pace, &paced_ms);

		/* the records to look at again after their job's end (record_recheck.h) */
		if (record_write_recheck(&w, &next) == -ECONNREFUSED)
			rc = -ECONNREFUSED;
		refused = rc == -ECONNREFUSED && refused < 8 ? refused + 1 : rc == -ECONNREFUSED ? refused : 0;
		if (watch_spool(err, sizeof(err)) < 0)
			slurm_verbose(MI_LOG "%s; spooled placement records are looked at every %d s", err,
				      COURIER_IDLE_S);
	}
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

/* Whether the fork under way was made by the process's main thread (set in the
 * forking thread, read in the child's copy of it). */
static __thread bool forking_from_main;

static void courier_forking(void)
{
	forking_from_main = gettid() == getpid();
}

/* A fork's child has no threads but the forking one: slurmd 22.05 loads its plugins
 * before it daemonizes (later releases after), so the courier follows the forks of
 * slurmd's main thread, which daemonizes, and acts only where the forking process has
 * gone (this_process_delivers). The forks of its other threads (a step's slurmstepd,
 * twice per step, scripts) start none, nor do their children: a thread per fork on
 * every step's way to its slurmstepd. */
static void courier_forked(void)
{
	if (!forking_from_main)
		courier.running = false;
	else if (courier.running)
		start_thread();
}

static void close_fds(void)
{
	int *fds[] = { &courier.lock_fd, &courier.notify_fd, &courier.stop_fd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}

/* Watch the spool and say so, with the settings, to the node's steps, which then hand
 * their records over (courier_lock.h); logs why not. */
static void start_listening(void)
{
	char err[SMPOL_ERRLEN], text[4200];
	size_t len;

	smpol_courier_settings(&courier.site, text, sizeof(text) - 1);
	len = strlen(text);
	text[len++] = '\n';    /* a line; smpol_statedir_read drops it */
	if (watch_spool(err, sizeof(err)) < 0 ||
	    smpol_statedir_lock(&courier.site.host, SMPOL_COURIER_LOCK, true, LOCK_SH, &courier.lock_fd, err,
				sizeof(err)) < 0)
		slurm_error(MI_LOG "%s; the node's steps write their placement records themselves, at their end",
			    err);
	else if (ftruncate(courier.lock_fd, 0) < 0 || pwrite(courier.lock_fd, text, len, 0) != (ssize_t)len)
		slurm_error(MI_LOG "cannot write the courier's settings into %s/%s (%s); the node's steps write "
			    "their placement records themselves, at their end", courier.site.host.statedir,
			    SMPOL_COURIER_LOCK, strerror(errno));
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
	courier.owner = getpid();
	courier.stop_fd = eventfd(0, EFD_CLOEXEC);
	if (courier.stop_fd < 0) {
		slurm_error(MI_LOG "cannot start the courier of spooled placement records (%s): they wait for "
			    "the node's next step", strerror(errno));
		return;
	}
	if (!courier.atfork && pthread_atfork(courier_forking, NULL, courier_forked) == 0)
		courier.atfork = true;
	start_listening();
	rc = start_thread();
	if (rc != 0) {
		slurm_error(MI_LOG "cannot start the courier of spooled placement records (%s): they wait for "
			    "the node's next step", strerror(rc));
		close_fds();
	}
}

void record_courier_stop(void)
{
	if (courier.running) {
		eventfd_write(courier.stop_fd, 1);
		pthread_join(courier.thread, NULL);
		courier.running = false;
	}
	close_fds();
	smpol_config_free(&courier.site);   /* read by a start that did not run the thread too */
}
