/* record_ended.c - slurmstepd and slurmd (root): a finished job's record through
 * mem_interleave_dbd (see record_ended.h). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "error.h"
#include "record.h"
#include "record_ended.h"
#include "run_cmd.h"

/* The client waits up to 10 s for slurmdbd to record the end, then writes: this
 * leaves room for slow answers and never holds a step's end much longer. */
#define CLIENT_TIMEOUT_S 60
/* its line and our record (at most SMPOL_RECORD_BUDGET bytes) */
#define CLIENT_OUTPUT_MAX (SMPOL_RECORD_BUDGET + 4096)

/* steps or a record as the client's standard input: a memory file, read from its start. */
static int entries_file(json_object *obj, char *err, size_t errlen)
{
	const char *text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN);
	size_t len = text ? strlen(text) : 0, done = 0;
	int fd = text ? memfd_create("mem_interleave_record", MFD_CLOEXEC) : -1;

	if (fd < 0)
		return smpol_fail(err, errlen, ECONNREFUSED, "cannot hand the record to mem_interleave_dbd: %s",
				 text ? strerror(errno) : "out of memory");
	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			close(fd);
			return smpol_fail(err, errlen, ECONNREFUSED, "cannot hand the record to mem_interleave_dbd: %s",
					 strerror(e));
		}
		done += (size_t)n;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/*
 * Run the client with SIGTERM, SIGINT and SIGHUP blocked, a mask that passes through
 * fork and exec. While a job ends, slurmstepd signals every process of the step
 * (rounds of SIGTERM; proctrack/linuxproc and cgroup count the client in, as a
 * child of slurmstepd): the client has its write to finish then. It stays bounded by
 * CLIENT_TIMEOUT_S, and by the SIGKILL that follows KillWait (the record then waits
 * in the spool). Only this thread's mask changes, and only for the call.
 */
static int run_unsignalled(char *const argv[], int fd, char **out, char *err, size_t errlen)
{
	sigset_t ends, old;
	int rc;

	sigemptyset(&ends);
	sigaddset(&ends, SIGTERM);
	sigaddset(&ends, SIGINT);
	sigaddset(&ends, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &ends, &old);
	rc = smpol_run_capture(argv, fd, CLIENT_OUTPUT_MAX, CLIENT_TIMEOUT_S, out, err, errlen);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/* The client's report: "stored R W L FIELD" and our record on the next line, or
 * "failed ERRNO SENTENCE". */
static int parse_report(const char *client, const char *out, struct smpol_store_result *res, char *err,
			size_t errlen)
{
	struct smpol_store_result got = { 0 };
	char field[32] = "";
	int e = 0, at = 0;

	if (sscanf(out, "stored %d %d %d %31s", &got.reads, &got.writes, &got.losses, field) == 4) {
		got.beside_jobstats = !strcmp(field, "SystemComment");
		if (res && strchr(out, '\n'))
			got.record = json_tokener_parse(strchr(out, '\n') + 1);
		if (res)
			*res = got;
		return 0;
	}
	if (sscanf(out, "failed %d %n", &e, &at) == 1 && e > 0 && at > 0) {
		const char *why = out + at;

		return smpol_fail(err, errlen, e, "%.*s", (int)strcspn(why, "\n"), why);
	}
	return smpol_fail(err, errlen, ECONNREFUSED, "%s reported nothing it should (\"%.*s\")", client,
			 (int)strcspn(out, "\n"), out);
}

/* The client's options naming the run: --job JOB --run RUN --started TIME. */
struct run_options {
	char job[16], run[16], started[24];
};

/* The client's argv up to the run's options into argv (room for 7), o holding their
 * text; the count. A start not known (0: a record spooled by an earlier release) is
 * left out, and the client takes the run's latest row: it refuses --started 0. */
static int run_argv(const char *client, const struct smpol_record_run *run, struct run_options *o, char **argv)
{
	int n = 0;

	snprintf(o->job, sizeof(o->job), "%" PRIu32, run->job);
	snprintf(o->run, sizeof(o->run), "%" PRIu32, run->run);
	snprintf(o->started, sizeof(o->started), "%" PRId64, run->started);
	argv[n++] = (char *)client;
	argv[n++] = "--job";
	argv[n++] = o->job;
	argv[n++] = "--run";
	argv[n++] = o->run;
	if (run->started > 0) {
		argv[n++] = "--started";
		argv[n++] = o->started;
	}
	return n;
}

static char *field_option(enum smpol_record_target target)
{
	return target == SMPOL_RECORD_EXTRA ? "Extra" : target == SMPOL_RECORD_SYSTEM_COMMENT ? "SystemComment"
											       : "AdminComment";
}

int record_ended_store(const char *client, enum smpol_record_target target, const struct smpol_record_run *run,
		       json_object *steps, bool sole_writer, bool pause, struct smpol_store_result *res, char *err,
		       size_t errlen)
{
	struct run_options o;
	char why[SMPOL_ERRLEN], *out = NULL, *argv[12];
	int n = run_argv(client, run, &o, argv), rc, fd = entries_file(steps, err, errlen);

	if (fd < 0)
		return fd;
	argv[n++] = "--field";
	argv[n++] = field_option(target);
	if (sole_writer)
		argv[n++] = "--sole-writer";
	if (!pause)
		argv[n++] = "--no-pause";
	argv[n] = NULL;
	rc = run_unsignalled(argv, fd, &out, why, sizeof(why));
	close(fd);
	if (rc < 0)
		return smpol_fail(err, errlen, ECONNREFUSED, "cannot write the record of job %" PRIu32 ", which has "
				 "ended, through slurmdbd: %s (plugstack dbd_client=)", run->job, why);
	rc = parse_report(client, out, res, err, errlen);
	free(out);
	return rc;
}

int record_ended_recheck(const char *client, enum smpol_record_target target, const struct smpol_record_run *run,
			 json_object *record, struct record_recheck_seen *seen, char *err, size_t errlen)
{
	static const char *const words[] = {
		[RECHECK_PENDING] = "pending", [RECHECK_KEPT] = "kept", [RECHECK_MERGED] = "merged",
		[RECHECK_MOVED] = "moved", [RECHECK_GONE] = "gone",
	};
	struct run_options o;
	char why[SMPOL_ERRLEN], word[16] = "", *out = NULL, *argv[12];
	long long end = 0;
	int n = run_argv(client, run, &o, argv), rc, e = 0, at = 0, fd = entries_file(record, err, errlen);

	memset(seen, 0, sizeof(*seen));
	if (fd < 0)
		return fd;
	argv[n++] = "--field";
	argv[n++] = field_option(target);
	argv[n++] = "--recheck";
	argv[n] = NULL;
	rc = run_unsignalled(argv, fd, &out, why, sizeof(why));
	close(fd);
	if (rc < 0)
		return smpol_fail(err, errlen, ECONNREFUSED, "cannot look at the record of run %" PRIu32 " of job %"
				 PRIu32 " again: %s (plugstack dbd_client=)", run->run, run->job, why);
	rc = -1;
	if (sscanf(out, "%15s %lld %d %d %d", word, &end, &seen->res.reads, &seen->res.writes, &seen->res.losses) >= 1)
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (!strcmp(word, words[i]))
				rc = (int)i;
	seen->outcome = rc < 0 ? RECHECK_PENDING : (enum record_recheck_outcome)rc;
	seen->ended = end;
	if (rc >= 0)
		rc = 0;
	else if (sscanf(out, "failed %d %n", &e, &at) == 1 && e > 0 && at > 0)
		rc = smpol_fail(err, errlen, e, "%.*s", (int)strcspn(out + at, "\n"), out + at);
	else
		rc = smpol_fail(err, errlen, ECONNREFUSED, "%s reported nothing it should (\"%.*s\")", client,
			       (int)strcspn(out, "\n"), out);
	free(out);
	return rc;
}
