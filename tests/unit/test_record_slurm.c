/* test_record_slurm.c - which way record_slurm_store (record_slurm.c) writes a
 * run's record: through slurmctld while slurmctld's job is still the step's run,
 * through slurmdbd (a stand-in mem_interleave_dbd) once it is not. The test plays
 * slurmctld with its own slurm_* functions, which the plugin takes in place of
 * libslurmfull's (weak there). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <slurm/slurm.h>

#include "error.h"
#include "record_slurm.h"

/* The step (step 0 of job 42, labelled run 0) started on the node at this time. */
#define STEP_START 1700000000

/* slurmctld's job 42 */
static struct {
	uint32_t state, restart_cnt;
	time_t start;
	char *comment;          /* AdminComment */
	int updates;
} ctld;

static char dir[] = "/tmp/test_record_slurm.XXXXXX";
static char client[64], seen[64];

static int load(job_info_msg_t **resp, uint32_t job)
{
	job_info_msg_t *msg = calloc(1, sizeof(*msg));
	slurm_job_info_t *info = calloc(1, sizeof(*info));

	assert_non_null(msg);
	assert_non_null(info);
	assert_int_equal(job, 42);
	info->job_id = job;
	info->job_state = ctld.state;
	info->restart_cnt = ctld.restart_cnt;
	info->start_time = ctld.start;
	info->num_nodes = 1;
	info->admin_comment = ctld.comment ? strdup(ctld.comment) : NULL;
	msg->record_count = 1;
	msg->job_array = info;
	*resp = msg;
	return SLURM_SUCCESS;
}

/* The name in parentheses: 26.05's slurm.h makes it a macro too (taking a job id). */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
int (slurm_load_job)(job_info_msg_t **resp, slurm_step_id_t step_id, uint16_t show_flags)
{
	(void)show_flags;
	return load(resp, step_id.job_id);
}
#else
int (slurm_load_job)(job_info_msg_t **resp, uint32_t job_id, uint16_t show_flags)
{
	(void)show_flags;
	return load(resp, job_id);
}
#endif

void slurm_free_job_info_msg(job_info_msg_t *msg)
{
	free(msg->job_array[0].admin_comment);
	free(msg->job_array);
	free(msg);
}

void slurm_init_job_desc_msg(job_desc_msg_t *desc)
{
	memset(desc, 0, sizeof(*desc));
}

int slurm_update_job(job_desc_msg_t *desc)
{
	free(ctld.comment);
	ctld.comment = strdup(desc->admin_comment);
	assert_non_null(ctld.comment);
	ctld.updates++;
	return SLURM_SUCCESS;
}

/* The record of the step's node: what the stand-in client reads on its standard input
 * and reports back as our record. */
/* step 0 of the job, on one node */
#define STEPS "{\"0\":{\"n1\":{\"mode\":\"weighted\"}}}"

/*
 * Store the step's record (run 0, the step started at `started`) with slurmctld's job
 * in state, at restart count restart_cnt, started at start. True when it was written
 * through slurmctld; false when it went through slurmdbd into run 0's row (the
 * stand-in client ran, named that row and got the entries; slurmctld took no write).
 */
static bool through_ctld(uint32_t state, uint32_t restart_cnt, time_t start, int64_t started)
{
	json_object *steps = json_tokener_parse(STEPS);
	struct smpol_store_result res = { 0 };
	char err[SMPOL_ERRLEN] = "";
	const char *through = NULL;
	bool ctld_wrote;
	int rc;

	free(ctld.comment);
	ctld = (__typeof__(ctld)){ .state = state, .restart_cnt = restart_cnt, .start = start };
	unlink(seen);
	rc = record_slurm_store(SMPOL_RECORD_ADMIN_COMMENT, client, &(struct smpol_record_run){ 42, 0, started }, steps,
				true, false, &res, &through, err, sizeof(err));
	json_object_put(steps);
	if (rc != 0)
		fail_msg("record_slurm_store: %d %s", rc, err);
	assert_non_null(res.record);
	ctld_wrote = ctld.updates > 0;
	if (ctld_wrote) {
		assert_string_equal(through, "");
		assert_non_null(strstr(ctld.comment, "\"n1\""));
		assert_int_equal(access(seen, F_OK), -1);
	} else {
		assert_string_equal(through, " through slurmdbd (the job had ended)");
		assert_int_equal(access(seen, F_OK), 0);
		assert_string_equal(json_object_to_json_string_ext(res.record, JSON_C_TO_STRING_PLAIN), STEPS);
	}
	json_object_put(res.record);
	return ctld_wrote;
}

static void test_same_restart_count(void **state)
{
	(void)state;
	assert_true(through_ctld(JOB_RUNNING, 0, STEP_START - 30, STEP_START));
	/* slurmctld's clock ahead of the node's: the restart count tells it */
	assert_true(through_ctld(JOB_RUNNING, 0, STEP_START + 3, STEP_START));
}

/* Requeued: the job runs its next run (a spooled record delivered late). */
static void test_later_run(void **state)
{
	(void)state;
	assert_false(through_ctld(JOB_RUNNING, 1, STEP_START + 120, STEP_START));
}

/* The next run started within seconds of this run's step (requeued with its start
 * moved to now, or a short requeue delay): still not this run. */
static void test_later_run_seconds_after(void **state)
{
	(void)state;
	assert_false(through_ctld(JOB_RUNNING, 1, STEP_START + 3, STEP_START));
	assert_false(through_ctld(JOB_RUNNING, 1, STEP_START + 1, STEP_START));
}

/* The step's run number is a label from the job's environment: where it is wrong, a
 * job that did not start after the step is the step's run. */
static void test_label_differs_started_before(void **state)
{
	(void)state;
	assert_true(through_ctld(JOB_RUNNING, 1, STEP_START - 60, STEP_START));
	assert_true(through_ctld(JOB_RUNNING, 1, STEP_START, STEP_START));
}

/* Requeued and pending again: slurmctld's comment is the next run's. */
static void test_pending_again(void **state)
{
	(void)state;
	assert_false(through_ctld(JOB_PENDING, 1, 0, STEP_START));
}

/* A step whose start is not known cannot tell runs apart: slurmctld's job. */
static void test_started_unknown(void **state)
{
	(void)state;
	assert_true(through_ctld(JOB_RUNNING, 1, STEP_START + 120, 0));
}

static int setup(void **state)
{
	FILE *f;

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(client, sizeof(client), "%s/client", dir);
	snprintf(seen, sizeof(seen), "%s/seen", dir);
	/* leaves a mark, and takes only the row of run 0 of job 42 whose step started at
	 * STEP_START; reports its input as the record it stored */
	f = fopen(client, "w");
	if (!f)
		return -1;
	fprintf(f, "#!/bin/sh\n: >%s\n"
		"if [ \"$*\" != \"--job 42 --run 0 --started %d --field AdminComment --sole-writer "
		"--no-pause\" ]; then echo \"failed 22 called with $*\"; exit; fi\n"
		"echo stored 1 1 0 AdminComment\ncat\n", seen, STEP_START);
	fclose(f);
	return chmod(client, 0755);
}

static int teardown(void **state)
{
	(void)state;
	free(ctld.comment);
	unlink(seen);
	unlink(client);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_restart_count),
		cmocka_unit_test(test_later_run),
		cmocka_unit_test(test_later_run_seconds_after),
		cmocka_unit_test(test_label_differs_started_before),
		cmocka_unit_test(test_pending_again),
		cmocka_unit_test(test_started_unknown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
