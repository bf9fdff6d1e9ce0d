/* record_slurm.c - slurmstepd (root): the placement record through Slurm (see record_slurm.h).
 *
 * Slurm's client API is resolved at load time from the libslurmfull that slurmstepd
 * itself runs on; the plugin never links libslurm. Weak, so that a process without
 * it (none known) still loads the plugin and only the record is lost. Chosen over
 * running scontrol: one read and write took 7 ms against 14 ms for `scontrol show
 * job` + `scontrol update` on the test cluster, with no fork from slurmstepd, no
 * PATH to trust and no parsing of scontrol's text to read the comment back.
 * Once the job has ended slurmctld takes no change to it: the record then goes to
 * slurmdbd through mem_interleave_dbd (record_ended.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>

#include "error.h"
#include "record.h"
#include "record_dbd.h"
#include "record_ended.h"
#include "record_slurm.h"
#include "step_name.h"

/* libsmpol names Slurm's special steps without slurm.h (step_name.h): the numbers
 * must be this Slurm's. */
_Static_assert(SMPOL_STEP_BATCH == SLURM_BATCH_SCRIPT, "SLURM_BATCH_SCRIPT changed");
_Static_assert(SMPOL_STEP_EXTERN == SLURM_EXTERN_CONT, "SLURM_EXTERN_CONT changed");
_Static_assert(SMPOL_STEP_INTERACTIVE == SLURM_INTERACTIVE_STEP, "SLURM_INTERACTIVE_STEP changed");

/* slurm_protocol_api.h (22.05 to 26.05): not in the public headers, exported by
 * libslurmfull; mpi/pmi2 and mpi/pmix use it between the nodes of a step. */
extern int slurm_forward_data(char **nodelist, char *address, uint32_t len, const char *data);

/* slurm.conf as this process loaded it (libslurmfull, not in the public headers). */
extern slurm_conf_t slurm_conf;

#pragma weak slurm_conf
#pragma weak slurm_load_job
#pragma weak slurm_free_job_info_msg
#pragma weak slurm_init_job_desc_msg
#pragma weak slurm_update_job
#pragma weak slurm_strerror
#pragma weak slurm_forward_data
#pragma weak slurm_hostlist_create
#pragma weak slurm_hostlist_shift
#pragma weak slurm_hostlist_destroy
#pragma weak slurm_job_step_layout_get
#pragma weak slurm_job_step_layout_free

struct field {
	enum smpol_record_target target;
	const struct smpol_record_run *run;
	bool ended;             /* at the last read, slurmctld had the job in a final state */
	uint32_t nodes;         /* the job's node count at the last read, 0: none read */
};

/* Whether slurmctld's job is still the run the step belongs to: requeued, it is
 * pending again, then a later run with a higher restart count. The step's run number
 * is a label (the job environment's, which the user can change): where it is not the
 * job's, a job that did not start after the step is still the step's run. No clock
 * skew is allowed there: a run requeued at once starts within seconds of the last
 * run's step, whose record must not go into it. */
static bool same_run(const struct field *f, const slurm_job_info_t *job)
{
	return f->run->started <= 0 ||
	       ((job->job_state & JOB_STATE_BASE) != JOB_PENDING &&
		(job->restart_cnt == f->run->run || (int64_t)job->start_time <= f->run->started));
}

static const char *field_name(enum smpol_record_target t)
{
	return t == SMPOL_RECORD_EXTRA ? "Extra" : "AdminComment";
}

int record_slurm_check(enum smpol_record_target target, char *err, size_t errlen)
{
	if (target == SMPOL_RECORD_NONE)
		return 0;
	if (target == SMPOL_RECORD_EXTRA && !RECORD_HAVE_JOB_EXTRA)
		return smpol_fail(err, errlen, ENOSYS, "record=extra needs Slurm 23.02 or later (this plugin was "
				 "built for %d.%02d, which has no Extra field); no record is written",
				 SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER), SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER));
	if (!slurm_load_job || !slurm_update_job || !slurm_init_job_desc_msg || !slurm_free_job_info_msg)
		return smpol_fail(err, errlen, ENOSYS, "this process has no Slurm API to write %s with",
				 field_name(target));
	return 0;
}

/* What a Slurm error means for the record: slurmctld away (try again later), the job
 * gone or ended (it never takes the record now), or refused. */
static int record_errno(int e)
{
	if ((e >= SLURM_COMMUNICATIONS_CONNECTION_ERROR && e <= SLURM_COMMUNICATIONS_MISSING_SOCKET_ERROR) ||
	    (e >= SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR && e <= SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR) ||
	    e == ESLURM_IN_STANDBY_MODE || e == ECONNREFUSED || e == ETIMEDOUT)
		return ECONNREFUSED;
	if (e == ESLURM_JOB_FINISHED || e == ESLURM_ALREADY_DONE || e == ESLURM_INVALID_JOB_ID)
		return ESRCH;
	return EIO;
}

static int slurm_fail(const struct field *f, char *err, size_t errlen, const char *what)
{
	int e = errno;          /* set by Slurm's API (slurm_get_errno, gone in 24.11, only read it) */

	return smpol_fail(err, errlen, record_errno(e), "%s %s of job %u: %s", what, field_name(f->target), f->run->job,
			 e && slurm_strerror ? slurm_strerror(e) : "error");
}

/* Slurm 26.05 names the job to load by a step id, as 25.11's job descriptor does. */
static int load_job(job_info_msg_t **msg, uint32_t job)
{
	/* SHOW_LOCAL: the job is this cluster's; no federation lookup (one RPC less) */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(26, 5, 0)
	slurm_step_id_t id = SLURM_STEP_ID_INITIALIZER;

	id.job_id = job;
	return slurm_load_job(msg, id, SHOW_DETAIL | SHOW_LOCAL);
#else
	return slurm_load_job(msg, job, SHOW_DETAIL | SHOW_LOCAL);
#endif
}

static void set_desc_job(job_desc_msg_t *desc, uint32_t job)
{
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
	desc->step_id.job_id = job;
#else
	desc->job_id = job;
#endif
}

static int field_read(void *ctx, char **comment, char *err, size_t errlen)
{
	struct field *f = ctx;
	job_info_msg_t *msg = NULL;
	const char *text = NULL;

	if (load_job(&msg, f->run->job) != SLURM_SUCCESS)
		return slurm_fail(f, err, errlen, "cannot read");
	if (msg->record_count > 0 && !same_run(f, &msg->job_array[0])) {
		/* requeued: this run ended, and slurmctld's comment is the next run's now */
		int rc = smpol_fail(err, errlen, ESRCH, "job %u was requeued: the run of this step has ended "
				   "(slurmctld holds its restart %u)", f->run->job,
				   (unsigned)msg->job_array[0].restart_cnt);

		slurm_free_job_info_msg(msg);
		return rc;
	}
	if (msg->record_count > 0) {
		f->ended = (msg->job_array[0].job_state & JOB_STATE_BASE) >= JOB_COMPLETE;
		f->nodes = msg->job_array[0].num_nodes;
#if RECORD_HAVE_JOB_EXTRA
		if (f->target == SMPOL_RECORD_EXTRA)
			text = msg->job_array[0].extra;
		else
#endif
			text = msg->job_array[0].admin_comment;
	}
	*comment = strdup(text ? text : "");
	slurm_free_job_info_msg(msg);
	return *comment ? 0 : smpol_fail(err, errlen, ENOMEM, "out of memory reading %s", field_name(f->target));
}

static int field_write(void *ctx, const char *comment, char *err, size_t errlen)
{
	const struct field *f = ctx;
	job_desc_msg_t desc;

	slurm_init_job_desc_msg(&desc);
	set_desc_job(&desc, f->run->job);
#if RECORD_HAVE_JOB_EXTRA
	if (f->target == SMPOL_RECORD_EXTRA)
		desc.extra = (char *)comment;
	else
#endif
		desc.admin_comment = (char *)comment;
	if (slurm_update_job(&desc) != SLURM_SUCCESS)
		return slurm_fail(f, err, errlen, "cannot set");
	return 0;
}

/* record_slurm_store through f, read at least once when the target is one. */
static int store_through(struct field *f, const char *dbd_client, json_object *steps, bool sole_writer, bool pause,
			 struct smpol_store_result *res, const char **through, char *err, size_t errlen)
{
	enum smpol_record_target target = f->target;
	const struct smpol_record_run *run = f->run;
	struct smpol_comment_store store = { .read = field_read, .write = field_write,
					     .pause = pause ? NULL : smpol_record_no_pause, .ctx = f, .run = run->run };
	int rc = record_slurm_check(target, err, errlen);

	*through = "";
	if (rc < 0 || target == SMPOL_RECORD_NONE)
		return rc;
	rc = smpol_record_store_field(&store, target, steps, sole_writer, res, err, errlen);
	if (rc == -EEXIST && target == SMPOL_RECORD_ADMIN_COMMENT) {
		/* slurmctld takes no SystemComment: slurmdbd does, once the job has ended; the
		 * spool keeps the record until then, with no retries at the step's end */
		*through = " into SystemComment through slurmdbd (AdminComment holds a jobstats summary)";
		if (!f->ended)
			return smpol_fail(err, errlen, ECONNREFUSED, "the AdminComment of job %u holds a jobstats "
					 "summary; the record goes to SystemComment once the job has ended", run->job);
		rc = record_ended_store(dbd_client, SMPOL_RECORD_SYSTEM_COMMENT, run, steps, sole_writer, pause, res,
					err, errlen);
		if (rc == 0 && res)
			res->beside_jobstats = true;
		return rc;
	}
	if (rc != -ESRCH)
		return rc;
	*through = " through slurmdbd (the job had ended)";
	rc = record_ended_store(dbd_client, target, run, steps, sole_writer, pause, res, err, errlen);
	if (rc == 0 && res && res->beside_jobstats)
		*through = " into SystemComment through slurmdbd (the job had ended; AdminComment holds a jobstats "
			   "summary)";
	return rc;
}

int record_slurm_store(enum smpol_record_target target, const char *dbd_client, const struct smpol_record_run *run,
		     json_object *steps, bool sole_writer, bool pause, struct smpol_store_result *res,
		     const char **through, char *err, size_t errlen)
{
	struct field f = { .target = target, .run = run };
	int rc = store_through(&f, dbd_client, steps, sole_writer, pause, res, through, err, errlen);

	if (res)
		res->job_nodes = f.nodes;
	return rc;
}

bool record_slurm_ctld_epilog(void)
{
	if (!&slurm_conf)
		return true;    /* cannot tell: look */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
	return slurm_conf.epilog_slurmctld_cnt > 0;
#else
	return slurm_conf.epilog_slurmctld && *slurm_conf.epilog_slurmctld;
#endif
}

int record_slurm_nth_host(const char *nodelist, uint32_t index, char *buf, size_t len)
{
	/* hostlist_t is a pointer type up to 24.05, a struct type from 24.11 on */
	__typeof__(slurm_hostlist_create(NULL)) hl;
	char *host = NULL;
	int rc = -EINVAL;

	if (!nodelist || !*nodelist || !slurm_hostlist_create || !slurm_hostlist_shift || !slurm_hostlist_destroy)
		return -EINVAL;
	hl = slurm_hostlist_create(nodelist);
	if (!hl)
		return -EINVAL;
	for (uint32_t i = 0; i <= index; i++) {
		free(host);     /* hostlist_shift returns malloc'ed memory */
		host = slurm_hostlist_shift(hl);
		if (!host)
			break;
	}
	if (host && *host && strlen(host) < len) {
		snprintf(buf, len, "%s", host);
		rc = 0;
	}
	free(host);
	slurm_hostlist_destroy(hl);
	return rc;
}

int record_slurm_step_hosts(uint32_t job, uint32_t step, json_object **hosts, char *err, size_t errlen)
{
	slurm_step_id_t id = { .job_id = job, .step_het_comp = NO_VAL, .step_id = step };
	slurm_step_layout_t *layout;
	__typeof__(slurm_hostlist_create(NULL)) hl;
	char *host;

	*hosts = NULL;
	if (!slurm_job_step_layout_get || !slurm_job_step_layout_free || !slurm_hostlist_create ||
	    !slurm_hostlist_shift || !slurm_hostlist_destroy)
		return smpol_fail(err, errlen, ENOSYS, "this slurmstepd has no slurm_job_step_layout_get");
	layout = slurm_job_step_layout_get(&id);
	if (!layout)
		return smpol_fail(err, errlen, ECONNREFUSED, "slurmctld did not hand out the step's layout (%s)",
				 slurm_strerror ? slurm_strerror(errno) : "error");
	hl = slurm_hostlist_create(layout->node_list);
	*hosts = json_object_new_array();
	while (hl && *hosts && (host = slurm_hostlist_shift(hl))) {
		json_object_array_add(*hosts, json_object_new_string(host));
		free(host);     /* hostlist_shift returns malloc'ed memory */
	}
	if (hl)
		slurm_hostlist_destroy(hl);
	if (*hosts && json_object_array_length(*hosts) != layout->node_cnt) {
		json_object_put(*hosts);
		*hosts = NULL;
	}
	slurm_job_step_layout_free(layout);
	return *hosts ? 0 : smpol_fail(err, errlen, EBADMSG, "the step's layout from slurmctld lists no nodes");
}

int record_slurm_forward(const char *host, const char *path, const char *message, char *err, size_t errlen)
{
	char *nodes = strdup(host), *addr = strdup(path);
	int rc;

	if (!slurm_forward_data) {
		free(nodes);
		free(addr);
		return smpol_fail(err, errlen, ENOSYS, "this slurmstepd has no slurm_forward_data");
	}
	if (!nodes || !addr) {
		free(nodes);
		free(addr);
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	}
	/* one host: slurm_forward_data leaves the list as it is */
	rc = slurm_forward_data(&nodes, addr, (uint32_t)strlen(message), message);
	free(nodes);
	free(addr);
	/* slurmd answers with connect()'s errno */
	if (rc == ENOENT || rc == ECONNREFUSED)
		return smpol_fail(err, errlen, ENOENT, "no collector of the step listens on %s", host);
	if (rc != SLURM_SUCCESS)
		return smpol_fail(err, errlen, EHOSTUNREACH, "the step's collector on %s did not take the entry (%s)",
				 host, slurm_strerror ? slurm_strerror(rc) : "error");
	return 0;
}
