/* test_record_write.c - a step's record handed to slurmd's courier or written by the
 * step (record_write.c, #included), with a fake store in place of Slurm: the record is
 * handed over only where a courier listens with the step's settings and the spool is
 * short (an outage's backlog makes the step write itself); a step's start delivers
 * spooled records only where no courier listens; a delivery slurmctld refuses is said
 * once, when asked to, and the record stays. */
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
		     const char *step, json_object *entries, bool sole_writer, bool pause,
		     struct smpol_store_result *res, const char **through, char *err, size_t errlen)
{
	(void)target, (void)dbd_client, (void)run, (void)step, (void)entries, (void)sole_writer, (void)pause;
	stores++;
	*through = "";
	if (res)
		*res = (struct smpol_store_result){ .reads = 2, .writes = 1 };
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

/* Hand job/step's record over; whether it was. */
static bool hand(uint32_t job, const char *step)
{
	json_object *e = entries();
	struct record_write one = w;
	bool handed;

	one.run.job = job;
	one.step = step;
	handed = record_write_to_courier(&one, e, "by this node");
	json_object_put(e);
	return handed;
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
	said[0] = '\0';
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
	record_write_deliver_others(&w);
	assert_int_equal(stores, 0);
	assert_int_equal(spooled(), 1);
	close(courier_fd);      /* the courier is gone */
	courier_fd = -1;
	record_write_deliver_others(&w);
	assert_int_equal(stores, 1);
	assert_int_equal(spooled(), 0);
}

/* The courier's round: a refusal is said when asked (its first refused round), the
 * record stays; a later round delivers it. */
static void test_refused_round(void **state)
{
	struct record_write courier = { &site, { 0 }, "", 1 };

	(void)state;
	fake_courier_as_the_step();
	assert_true(hand(7, "2"));
	store_rc = -ECONNREFUSED;
	assert_int_equal(record_write_deliver_all(&courier, false), -ECONNREFUSED);
	assert_int_equal(errors, 0);
	assert_int_equal(record_write_deliver_all(&courier, true), -ECONNREFUSED);
	assert_int_equal(errors, 1);
	assert_non_null(strstr(said, "/spool until slurmctld or slurmdbd answers (slurmctld is away)"));
	assert_int_equal(spooled(), 1);
	store_rc = 0;
	assert_int_equal(record_write_deliver_all(&courier, false), 0);
	assert_int_equal(spooled(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_courier, setup, teardown),
		cmocka_unit_test_setup_teardown(test_courier_takes_it, setup, teardown),
		cmocka_unit_test_setup_teardown(test_courier_with_other_settings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backlog_keeps_it_with_the_step, setup, teardown),
		cmocka_unit_test_setup_teardown(test_step_start_leaves_them_to_the_courier, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_round, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
