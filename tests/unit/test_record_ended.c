/* test_record_ended.c - a finished job's record handed to mem_interleave_dbd
 * (record_ended.c), with stand-in clients: what it is given (arguments, the entries
 * on its standard input), how its one-line report is read, that a client which
 * cannot run or report leaves the record worth keeping (-ECONNREFUSED), that the
 * SIGTERM with which slurmstepd ends a job's processes does not stop it, and what its
 * look at a record after the job's end found (--recheck). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "record_ended.h"

static char dir[] = "/tmp/test_record_ended.XXXXXX";
static char client[64], seen[64];

/* A stand-in client: records its arguments and input in `seen`, then runs body. */
static void write_client(const char *body)
{
	FILE *f = fopen(client, "w");

	assert_non_null(f);
	fprintf(f, "#!/bin/sh\necho \"$*\" >%s\ncat >>%s\n%s\n", seen, seen, body);
	fclose(f);
	assert_int_equal(chmod(client, 0755), 0);
}

/* Steps 7 (two nodes) and 8 (one) of a job, as the courier delivers them together. */
static json_object *two_steps(void)
{
	return json_tokener_parse("{\"7\":{\"n1\":{\"mode\":\"weighted\"},\"n2\":{\"mode\":\"weighted\"}},"
				  "\"8\":{\"n1\":{\"mode\":\"weighted\"}}}");
}

/* Run 2 of job 42 (requeued twice), whose step 7 started at 1700000000. */
static int store(bool sole_writer, struct smpol_store_result *res, char *err)
{
	json_object *steps = two_steps();
	int rc = record_ended_store(client, SMPOL_RECORD_ADMIN_COMMENT, &(struct smpol_record_run){ 42, 2, 1700000000 },
				    steps, sole_writer, false, res, err, SMPOL_ERRLEN);

	json_object_put(steps);
	return rc;
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_stored(void **state)
{
	struct smpol_store_result res = { 0 };
	char err[SMPOL_ERRLEN];

	(void)state;
	write_client("echo stored 3 1 0 AdminComment; echo '{\"v\":1,\"steps\":{}}'");
	assert_int_equal(store(true, &res, err), 0);
	assert_int_equal(res.reads, 3);
	assert_int_equal(res.writes, 1);
	assert_int_equal(res.losses, 0);
	assert_false(res.beside_jobstats);
	/* our whole record as the client read it back: the copy kept for the recheck */
	assert_non_null(res.record);
	assert_string_equal(json_object_to_json_string_ext(res.record, JSON_C_TO_STRING_PLAIN), "{\"v\":1,\"steps\":{}}");
	json_object_put(res.record);
	assert_string_equal(slurp(seen), "--job 42 --run 2 --started 1700000000 --field AdminComment "
			    "--sole-writer --no-pause\n"
			    "{\"7\":{\"n1\":{\"mode\":\"weighted\"},\"n2\":{\"mode\":\"weighted\"}},"
			    "\"8\":{\"n1\":{\"mode\":\"weighted\"}}}");
	/* beside a jobstats summary, in SystemComment */
	write_client("echo stored 2 1 0 SystemComment; echo");
	assert_int_equal(store(true, &res, err), 0);
	assert_true(res.beside_jobstats);
	assert_null(res.record);
}

static int recheck(struct record_recheck_seen *got, char *err)
{
	json_object *copy = json_tokener_parse("{\"v\":1,\"steps\":{}}");
	int rc = record_ended_recheck(client, SMPOL_RECORD_EXTRA, &(struct smpol_record_run){ 42, 2, 1700000000 }, copy,
				      got, err, SMPOL_ERRLEN);

	json_object_put(copy);
	return rc;
}

/* The client's look after the run's end, as the courier reads it. */
static void test_recheck_outcomes(void **state)
{
	struct record_recheck_seen got;
	char err[SMPOL_ERRLEN];

	(void)state;
	write_client("echo pending");
	assert_int_equal(recheck(&got, err), 0);
	assert_int_equal(got.outcome, RECHECK_PENDING);
	assert_int_equal(got.ended, 0);
	/* the run's row: its run and the step's start, as the store names them; the field record= names */
	assert_string_equal(slurp(seen), "--job 42 --run 2 --started 1700000000 --field Extra --recheck\n"
			    "{\"v\":1,\"steps\":{}}");
	write_client("echo kept 1700000000");
	assert_int_equal(recheck(&got, err), 0);
	assert_int_equal(got.outcome, RECHECK_KEPT);
	assert_int_equal(got.ended, 1700000000);
	write_client("echo moved 1700000000 3 1 0");
	assert_int_equal(recheck(&got, err), 0);
	assert_int_equal(got.outcome, RECHECK_MOVED);
	assert_int_equal(got.res.reads, 3);
	assert_int_equal(got.res.writes, 1);
	write_client("echo merged 1700000000 4 2 1");
	assert_int_equal(recheck(&got, err), 0);
	assert_int_equal(got.outcome, RECHECK_MERGED);
	assert_int_equal(got.res.writes, 2);
	assert_int_equal(got.res.losses, 1);
	write_client("echo gone 1700000000");
	assert_int_equal(recheck(&got, err), 0);
	assert_int_equal(got.outcome, RECHECK_GONE);
	write_client("echo failed 111 cannot reach slurmdbd");
	assert_int_equal(recheck(&got, err), -ECONNREFUSED);
	assert_string_equal(err, "cannot reach slurmdbd");
	write_client("echo nonsense");
	assert_int_equal(recheck(&got, err), -ECONNREFUSED);
	assert_non_null(strstr(err, "reported nothing it should"));
	unlink(client);
	assert_int_equal(recheck(&got, err), -ECONNREFUSED);
	assert_non_null(strstr(err, "cannot look at the record of run 2 of job 42 again"));
}

/* A run whose start is not known (0: a record spooled by an earlier release, or by
 * hand): no --started, which the client refuses as 0; it takes the run's latest row.
 * (With it, the client's usage error stopped every look of the courier's rounds.) */
static void test_start_unknown(void **state)
{
	struct record_recheck_seen got;
	json_object *copy = json_tokener_parse("{\"v\":1,\"steps\":{}}"), *steps = two_steps();
	char err[SMPOL_ERRLEN];

	(void)state;
	write_client("echo kept 1700000000");
	assert_int_equal(record_ended_recheck(client, SMPOL_RECORD_ADMIN_COMMENT, &(struct smpol_record_run){ 42, 0, 0 },
					      copy, &got, err, sizeof(err)), 0);
	assert_int_equal(got.outcome, RECHECK_KEPT);
	assert_memory_equal(slurp(seen), "--job 42 --run 0 --field AdminComment --recheck\n", 48);
	write_client("echo stored 2 1 0 AdminComment; echo");
	assert_int_equal(record_ended_store(client, SMPOL_RECORD_ADMIN_COMMENT, &(struct smpol_record_run){ 42, 0, 0 },
					    steps, true, true, NULL, err, sizeof(err)), 0);
	assert_memory_equal(slurp(seen), "--job 42 --run 0 --field AdminComment --sole-writer\n", 52);
	json_object_put(copy);
	json_object_put(steps);
}

static void test_failed_as_reported(void **state)
{
	char err[SMPOL_ERRLEN];

	(void)state;
	write_client("echo failed 1 slurmdbd did not change the AdminComment of job 42: Access denied");
	assert_int_equal(store(false, NULL, err), -EPERM);
	assert_string_equal(err, "slurmdbd did not change the AdminComment of job 42: Access denied");
	assert_non_null(strstr(slurp(seen), "--field AdminComment --no-pause\n"));
}

/* Neither a report nor a run: the record is kept for a later try, the reason named. */
static void test_kept_when_the_client_fails(void **state)
{
	char err[SMPOL_ERRLEN];

	(void)state;
	write_client("echo something else");
	assert_int_equal(store(true, NULL, err), -ECONNREFUSED);
	assert_non_null(strstr(err, "reported nothing it should (\"something else\")"));
	write_client("exit 3");
	assert_int_equal(store(true, NULL, err), -ECONNREFUSED);
	assert_non_null(strstr(err, "failed (exit 3)"));
	assert_non_null(strstr(err, "(plugstack dbd_client=)"));
	unlink(client);
	assert_int_equal(store(true, NULL, err), -ECONNREFUSED);
	assert_non_null(strstr(err, "cannot write the record of job 42, which has ended, through slurmdbd"));
}

/* slurmstepd's SIGTERM rounds while a job ends reach the client too: it finishes.
 * (A Python stand-in: dash clears its signal mask when it starts, the real client
 * does not.) */
static void test_sigterm_does_not_stop_it(void **state)
{
	struct smpol_store_result res = { 0 };
	char err[SMPOL_ERRLEN];
	FILE *f = fopen(client, "w");

	(void)state;
	assert_non_null(f);
	fputs("#!/usr/bin/python3\nimport os, signal, sys\nsys.stdin.read()\n"
	      "for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):\n    os.kill(os.getpid(), s)\n"
	      "print('stored 2 1 0 AdminComment')\n", f);
	fclose(f);
	assert_int_equal(chmod(client, 0755), 0);
	if (store(true, &res, err))
		fail_msg("%s", err);
	assert_int_equal(res.writes, 1);
	json_object_put(res.record);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(client, sizeof(client), "%s/client", dir);
	snprintf(seen, sizeof(seen), "%s/seen", dir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(client);
	unlink(seen);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stored),
		cmocka_unit_test(test_start_unknown),
		cmocka_unit_test(test_failed_as_reported),
		cmocka_unit_test(test_kept_when_the_client_fails),
		cmocka_unit_test(test_sigterm_does_not_stop_it),
		cmocka_unit_test(test_recheck_outcomes),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
