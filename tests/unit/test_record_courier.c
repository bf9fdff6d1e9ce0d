/* test_record_courier.c - slurmd's courier (record_courier.c) with its rounds counted
 * instead of delivered: a record put into the spool wakes it at once (not at its 30 s
 * round), also after the spool was removed and made again, and one its run's pace holds
 * back at the pace's end; only forks of the main thread run it again; it listens, for
 * the steps, only with the settings it delivers by, and not once stopped; record=none
 * starts none. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "record_courier.c"

static char top[] = "/tmp/test_record_courier.XXXXXX";
static char sd[64], statedir_arg[80];    /* the state directory: top/state */
static int rounds;          /* record_write_deliver_all calls, by the courier's thread */
static pthread_mutex_t rounds_lock = PTHREAD_MUTEX_INITIALIZER;

void slurm_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void slurm_verbose(const char *fmt, ...)
{
	(void)fmt;
}

int record_write_deliver_all(const struct record_write *w, bool say, struct record_pace *pace, int *wait_ms)
{
	(void)w;
	(void)say;
	(void)pace;
	*wait_ms = 0;
	pthread_mutex_lock(&rounds_lock);
	rounds++;
	pthread_mutex_unlock(&rounds_lock);
	return 0;
}

int record_write_recheck(const struct record_write *w, int64_t *next)
{
	(void)w;
	*next = 0;
	return 0;
}

/* Records of job 9 are held back by their run's pace until paced_until. */
static int64_t paced_until;

int64_t record_pace_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

bool record_write_paced(const struct record_pace *pace, const char *name, int64_t now, int64_t *due)
{
	(void)pace;
	if (strncmp(name, "9.", 2) || now >= paced_until)
		return false;
	if (!*due || paced_until < *due)
		*due = paced_until;
	return true;
}

static int rounds_now(void)
{
	int n;

	pthread_mutex_lock(&rounds_lock);
	n = rounds;
	pthread_mutex_unlock(&rounds_lock);
	return n;
}

/* Whether a round comes within ms (the idle round is 30 s away). */
static bool round_within(int before, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		if (rounds_now() > before)
			return true;
		usleep(10000);
	}
	return false;
}

/* Put a record into the spool as smpol_spool_put does: whole, by a rename. */
static void put_record(const char *name)
{
	char tmp[128], path[128];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/spool/.%s.tmp", sd, name);
	snprintf(path, sizeof(path), "%s/spool/%s", sd, name);
	f = fopen(tmp, "w");
	assert_non_null(f);
	fputs("{}", f);
	fclose(f);
	assert_int_equal(rename(tmp, path), 0);
}

/* A step's settings: the state directory, record= and dbd_client=. */
static void step_site(struct smpol_site_config *site, const char *extra)
{
	char *av[] = { statedir_arg, (char *)extra };
	char err[SMPOL_ERRLEN];

	assert_int_equal(smpol_config_default(site), 0);
	assert_int_equal(smpol_config_parse(extra ? 2 : 1, av, site, err, sizeof(err)), 0);
}

static bool listening_with(const char *extra)
{
	struct smpol_site_config site;
	bool yes;

	step_site(&site, extra);
	yes = smpol_courier_probe(&site, NULL, 0) == SMPOL_COURIER_LISTENS;
	smpol_config_free(&site);
	return yes;
}

static int setup(void **state)
{
	(void)state;
	strcpy(top + strlen(top) - 6, "XXXXXX");
	if (!mkdtemp(top))
		return -1;
	snprintf(sd, sizeof(sd), "%s/state", top);
	snprintf(statedir_arg, sizeof(statedir_arg), "statedir=%s", sd);
	rounds = 0;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	record_courier_stop();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	return system(cmd);
}

static void start(const char *extra)
{
	char *av[] = { statedir_arg, (char *)extra };

	record_courier_start(extra ? 2 : 1, av);
}

static void test_record_wakes_it(void **state)
{
	int before;

	(void)state;
	start(NULL);
	before = rounds_now();
	put_record("7.0.json");
	assert_true(round_within(before, 2000));
}

static void test_spool_made_again(void **state)
{
	char spool[128];
	int before;

	(void)state;
	start(NULL);
	snprintf(spool, sizeof(spool), "%s/spool", sd);
	/* an admin removes the spool: the courier watches the one made next */
	assert_int_equal(rmdir(spool), 0);
	assert_true(round_within(rounds_now() - 1, 2000));
	usleep(100000);
	assert_int_equal(access(spool, F_OK), 0);
	before = rounds_now();
	put_record("8.0.json");
	assert_true(round_within(before, 2000));
}

/* A record of a run its pace holds back wakes no round (the spool is not listed at
 * every step of a workflow), and the round comes when the pace lets it go. */
static void test_paced_record_waits(void **state)
{
	int before;

	(void)state;
	start(NULL);
	before = rounds_now();
	paced_until = record_pace_now_ms() + 800;
	put_record("9.0.json");
	assert_false(round_within(before, 400));
	assert_true(round_within(before, 2000));
}

/* What a fork's child of the thread `from` finds: whether it runs a courier. */
static void *fork_and_look(void *from)
{
	pid_t pid = fork();
	int status = -1;

	(void)from;
	if (pid == 0)
		_exit(courier.running ? 1 : 0);
	waitpid(pid, &status, 0);
	return (void *)(intptr_t)(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* slurmd's main thread daemonizes by forks: its child runs the courier again. Its
 * other threads fork for a step's slurmstepd: those children start none. */
static void test_forks_of_other_threads_start_none(void **state)
{
	pthread_t t;
	void *running;

	(void)state;
	start(NULL);
	assert_int_equal((intptr_t)fork_and_look(NULL), 1);
	assert_int_equal(pthread_create(&t, NULL, fork_and_look, NULL), 0);
	assert_int_equal(pthread_join(t, &running), 0);
	assert_int_equal((intptr_t)running, 0);
}

static void test_listens_with_its_settings(void **state)
{
	(void)state;
	assert_false(listening_with(NULL));
	start("record=admincomment");
	assert_true(listening_with(NULL));
	assert_true(listening_with("record=admincomment"));
	assert_false(listening_with("record=extra"));
	assert_false(listening_with("dbd_client=/elsewhere/mem_interleave_dbd"));
	record_courier_stop();
	assert_false(listening_with(NULL));
}

static void test_record_none_starts_none(void **state)
{
	(void)state;
	start("record=none");
	assert_false(courier.running);
	assert_false(listening_with(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_record_wakes_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spool_made_again, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paced_record_waits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forks_of_other_threads_start_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listens_with_its_settings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_record_none_starts_none, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
