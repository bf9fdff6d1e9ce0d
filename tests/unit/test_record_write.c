/* test_record_write.c - a step's record handed to slurmd's courier or written by the
 * step (record_write.c, #included), with a fake store in place of Slurm: the record is
 * handed over only where a courier listens with the step's settings and the spool is
 * short (an outage's backlog makes the step write itself); a step's start delivers
 * spooled records only where no courier listens; a delivery slurmctld refuses is said
 * once, when asked to, and the record stays; the courier delivers the spooled steps of
 * one run of a job in one store, paced, and a step refused for good is set aside alone. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <cmocka.h>

#include "record_write.c"

static char sd[] = "/tmp/test_record_write.XXXXXX";
static struct smpol_site_config site;
static struct record_write w;
static int stores, store_rc, errors;        /* the fake store's calls and answer; slurm_error lines */
static char stored[256];                    /* the fake store's calls: "JOB.RUN:STEP,STEP;" each */
static const char *refused_step;            /* a step the fake store refuses for good (EINVAL) */
static char said[1024];                     /* the last slurm_error line */
static int courier_fd = -1;                  /* the fake courier's hold of its lock */

static void say(const char *fmt, va_list ap)
{
	vsnprintf(said, sizeof(said), fmt, ap);
}

void slurm_error(const char *fmt, ...)
{
	va_list ap;

	errors++;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void slurm_info(const char *fmt, ...)
{
	(void)fmt;
}

int record_slurm_store(enum smpol_record_target target, const char *dbd_client, const struct smpol_record_run *run,
		     json_object *steps, bool sole_writer, bool pause, struct smpol_store_result *res,
		     const char **through, char *err, size_t errlen)
{
	size_t len = strlen(stored);
	const char *sep = ":";

	(void)target, (void)dbd_client, (void)sole_writer, (void)pause;
	stores++;
	*through = "";
	if (res)
		*res = (struct smpol_store_result){ .reads = 2, .writes = 1 };
	len += (size_t)snprintf(stored + len, sizeof(stored) - len, "%u.%u", run->job, run->run);
	json_object_object_foreach(steps, step, entries) {
		(void)entries;
		if (refused_step && !strcmp(step, refused_step)) {
			snprintf(stored + len, sizeof(stored) - len, "!%s;", step);
			return smpol_fail(err, errlen, EINVAL, "step %s is refused", step);
		}
		len += (size_t)snprintf(stored + len, sizeof(stored) - len, "%s%s", sep, step);
		sep = ",";
	}
	snprintf(stored + len, sizeof(stored) - len, ";");
	return store_rc ? smpol_fail(err, errlen, -store_rc, "slurmctld is away") : 0;
}

bool record_slurm_ctld_epilog(void)
{
	return false;
}

int record_ended_recheck(const char *client, enum smpol_record_target target, const struct smpol_record_run *run,
			 json_object *record, struct record_recheck_seen *seen, char *err, size_t errlen)
{
	(void)client, (void)target, (void)run, (void)record;
	*seen = (struct record_recheck_seen){ 0 };
	return smpol_fail(err, errlen, ENOSYS, "not in this test");
}

/* slurmd's courier listening, as record_courier.c does: the lock held shared, with
 * these settings in it. */
static void fake_courier(const char *settings)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", sd, SMPOL_COURIER_LOCK);
	courier_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(courier_fd >= 0);
	assert_int_equal(write(courier_fd, settings, strlen(settings)), (ssize_t)strlen(settings));
	assert_int_equal(flock(courier_fd, LOCK_SH), 0);
}

static void fake_courier_as_the_step(void)
{
	char mine[4200];

	smpol_courier_settings(&site, mine, sizeof(mine));
	fake_courier(mine);
}

static json_object *entries(void)
{
	return json_tokener_parse("{\"n1\":{\"req\":\"weighted\",\"mode\":\"weighted\",\"tasks\":1,\"samples\":0}}");
}

static int spooled(void)
{
	char **names = NULL;
	int n = 0;

	assert_int_equal(smpol_spool_list(&site.host, &names, &n, NULL, 0), 0);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return n;
}

/* Hand run's record of step over; whether it was. */
static bool hand_run(uint32_t job, uint32_t run, const char *step)
{
	json_object *e = entries();
	struct record_write one = w;
	bool handed;

	one.run.job = job;
	one.run.run = run;
	one.step = step;
	handed = record_write_to_courier(&one, e, false, "by this node");
	json_object_put(e);
	return handed;
}

static bool hand(uint32_t job, const char *step)
{
	return hand_run(job, 0, step);
}

static int setup(void **state)
{
	char arg[80], *av[] = { arg };
	char err[SMPOL_ERRLEN];

	(void)state;
	strcpy(sd + strlen(sd) - 6, "XXXXXX");
	if (!mkdtemp(sd))
		return -1;
	snprintf(arg, sizeof(arg), "statedir=%s", sd);
	if (smpol_config_default(&site) < 0 || smpol_config_parse(1, av, &site, err, sizeof(err)) < 0)
		return -1;
	w = (struct record_write){ &site, { 7, 0, 1700000000 }, "0", 1 };
	stores = store_rc = errors = 0;
	said[0] = stored[0] = '\0';
	refused_step = NULL;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	if (courier_fd >= 0)
		close(courier_fd);
	courier_fd = -1;
	smpol_config_free(&site);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", sd);
	return system(cmd);
}

static void test_no_courier(void **state)
{
	(void)state;
	assert_false(hand(7, "0"));
	assert_int_equal(spooled(), 0);
}

static void test_courier_takes_it(void **state)
{
	struct smpol_record_run run;
	json_object *got = NULL;
	char step[32];

	(void)state;
	fake_courier_as_the_step();
	assert_true(hand(7, "3"));
	assert_int_equal(smpol_spool_get(&site.host, "7.3", &run, step, sizeof(step), &got, NULL, 0), 0);
	assert_string_equal(step, "3");
	assert_int_equal(run.started, 1700000000);
	assert_true(json_object_object_get_ex(got, "n1", NULL));
	json_object_put(got);
	assert_int_equal(stores, 0);    /* the step wrote nothing itself */
}

static void test_courier_with_other_settings(void **state)
{
	(void)state;
	fake_courier("record=extra dbd_client=/elsewhere/mem_interleave_dbd");
	assert_false(hand(7, "0"));
	assert_int_equal(spooled(), 0);
}

/* An outage's backlog: the step writes itself rather than have the oldest dropped. */
static void test_backlog_keeps_it_with_the_step(void **state)
{
	char step[8];

	(void)state;
	fake_courier_as_the_step();
	for (int i = 0; i < HAND_OVER_SPOOL_MAX; i++) {
		snprintf(step, sizeof(step), "%d", i);
		assert_true(hand(8, step));
	}
	assert_false(hand(9, "0"));
	assert_int_equal(spooled(), HAND_OVER_SPOOL_MAX);
}

/* A step's start delivers others' records only where no courier does. */
static void test_step_start_leaves_them_to_the_courier(void **state)
{
	(void)state;
	fake_courier_as_the_step();
	assert_true(hand(7, "1"));
	assert_true(record_write_deliver_others(&w));
	assert_int_equal(stores, 0);
	assert_int_equal(spooled(), 1);
	close(courier_fd);      /* the courier is gone */
	courier_fd = -1;
	assert_false(record_write_deliver_others(&w));
	assert_int_equal(stores, 1);
	assert_int_equal(spooled(), 0);
}

/* A step whose start found the courier listening hands its record over without asking
 * again; one that did not find it asks, and writes itself when none listens. */
static void test_listening_at_the_start(void **state)
{
	json_object *e = entries();

	(void)state;
	assert_false(record_write_to_courier(&w, e, false, "by this node"));
	assert_int_equal(spooled(), 0);
	assert_true(record_write_to_courier(&w, e, true, "by this node"));
	assert_int_equal(spooled(), 1);
	assert_int_equal(stores, 0);
	json_object_put(e);
}

/* The courier's round: a refusal is said when asked (its first refused round), the
 * record stays; a later round delivers it. */
static void test_refused_round(void **state)
{
	struct record_write courier = { &site, { 0 }, "", 1 };
	int wait_ms;

	(void)state;
	fake_courier_as_the_step();
	assert_true(hand(7, "2"));
	store_rc = -ECONNREFUSED;
	assert_int_equal(record_write_deliver_all(&courier, false, NULL, &wait_ms), -ECONNREFUSED);
	assert_int_equal(errors, 0);
	assert_int_equal(record_write_deliver_all(&courier, true, NULL, &wait_ms), -ECONNREFUSED);
	assert_int_equal(errors, 1);
	assert_non_null(strstr(said, "job 7 step 2: placement record of 1 node(s) kept in "));
	assert_non_null(strstr(said, "/spool until slurmctld or slurmdbd answers (slurmctld is away)"));
	assert_int_equal(spooled(), 1);
	store_rc = 0;
	assert_int_equal(record_write_deliver_all(&courier, false, NULL, &wait_ms), 0);
	assert_int_equal(spooled(), 0);
}

/* One store per run of a job, its steps oldest first: job 7's steps 1-3, job 8's step
 * 0, and run 1 of job 7 (requeued) on its own. */
static void test_one_store_per_run(void **state)
{
	struct record_write courier = { &site, { 0 }, "", 1 };
	int wait_ms = -1;

	(void)state;
	fake_courier_as_the_step();
	assert_true(hand(7, "1"));
	assert_true(hand(8, "0"));
	assert_true(hand(7, "2"));
	assert_true(hand_run(7, 1, "0"));
	assert_true(hand(7, "3"));
	assert_int_equal(record_write_deliver_all(&courier, false, NULL, &wait_ms), 0);
	assert_int_equal(stores, 3);
	assert_string_equal(stored, "7.0:1,2,3;8.0:0;7.1:0;");
	assert_int_equal(wait_ms, 0);
	assert_int_equal(spooled(), 0);
}

/* Paced: a run delivered lately waits, gathering its steps, unread (a damaged record of
 * it is found only when the pace lets it go), while other jobs' records go at once; the
 * wait ends within RECORD_PACE_MS. */
static void test_paced(void **state)
{
	struct record_write courier = { &site, { 0 }, "", 1 };
	struct record_pace pace = { 0 };
	char path[128];
	int wait_ms = -1;

	(void)state;
	fake_courier_as_the_step();
	assert_true(hand(7, "0"));
	assert_int_equal(record_write_deliver_all(&courier, false, &pace, &wait_ms), 0);
	assert_string_equal(stored, "7.0:0;");         /* a job's first record: at once */
	assert_true(hand(7, "1"));
	assert_true(hand(9, "0"));
	assert_true(hand(7, "2"));
	assert_int_equal(smpol_statedir_write(&site.host, "spool/7.3.json", "{ damaged", SMPOL_STATEDIR_VOLATILE,
					      NULL, 0), 0);
	assert_int_equal(record_write_deliver_all(&courier, false, &pace, &wait_ms), 0);
	assert_string_equal(stored, "7.0:0;9.0:0;");
	assert_true(wait_ms > 0 && wait_ms <= RECORD_PACE_MS);
	assert_int_equal(spooled(), 3);
	assert_int_equal(errors, 0);
	usleep((useconds_t)wait_ms * 1000);
	assert_int_equal(record_write_deliver_all(&courier, false, &pace, &wait_ms), 0);
	assert_string_equal(stored, "7.0:0;9.0:0;7.0:1,2;");
	assert_int_equal(spooled(), 0);
	assert_int_equal(errors, 1);
	snprintf(path, sizeof(path), "%s/spool/7.3.json.undelivered", sd);
	assert_int_equal(access(path, F_OK), 0);
}

/* A step slurmctld and slurmdbd refuse for good: set aside alone, after the run's
 * store failed; the run's other steps are delivered each on its own. */
static void test_refused_for_good_alone(void **state)
{
	struct record_write courier = { &site, { 0 }, "", 1 };
	char path[128];
	int wait_ms;

	(void)state;
	fake_courier_as_the_step();
	assert_true(hand(7, "4"));
	assert_true(hand(7, "5"));
	assert_true(hand(7, "6"));
	refused_step = "5";
	assert_int_equal(record_write_deliver_all(&courier, false, NULL, &wait_ms), 0);
	assert_string_equal(stored, "7.0:4!5;7.0:4;7.0!5;7.0:6;");
	assert_non_null(strstr(said, "spooled placement record 7.5 cannot be delivered: step 5 is refused"));
	assert_int_equal(spooled(), 0);
	snprintf(path, sizeof(path), "%s/spool/7.5.json.undelivered", sd);
	assert_int_equal(access(path, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_courier, setup, teardown),
		cmocka_unit_test_setup_teardown(test_courier_takes_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_courier_with_other_settings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backlog_keeps_it_with_the_step, setup, teardown),
		cmocka_unit_test_setup_teardown(test_step_start_leaves_them_to_the_courier, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listening_at_the_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_round, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_store_per_run, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_for_good_alone, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
