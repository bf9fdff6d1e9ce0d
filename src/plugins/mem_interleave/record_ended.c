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
#include "record_ended.h"
#include "run_cmd.h"

/* The client waits up to 10 s for slurmdbd to record the end, then writes: this
 * leaves room for slow answers and never holds a step's end much longer. */
#define CLIENT_TIMEOUT_S 60
#define CLIENT_OUTPUT_MAX 4096

/* entries as the client's standard input: a memory file, read from its start. */
static int entries_file(json_object *entries, char *err, size_t errlen)
{
	const char *text = json_object_to_json_string_ext(entries, JSON_C_TO_STRING_PLAIN);
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

/* The client's one line: "stored R W L" or "failed ERRNO SENTENCE". */
static int parse_report(const char *client, const char *out, struct smpol_store_result *res, char *err,
			size_t errlen)
{
	struct smpol_store_result got = { 0 };
	int e = 0, at = 0;

	if (sscanf(out, "stored %d %d %d", &got.reads, &got.writes, &got.losses) == 3) {
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

int record_ended_store(const char *client, enum smpol_record_target target, const struct smpol_record_run *run,
		       const char *step, json_object *entries, bool sole_writer, bool pause,
		       struct smpol_store_result *res, char *err, size_t errlen)
{
	char jobtext[16], runtext[16], started[24], why[SMPOL_ERRLEN], *out = NULL;
	char *argv[14] = { (char *)client, "--job", jobtext, "--run", runtext, "--started", started, "--step",
			   (char *)step, "--field", target == SMPOL_RECORD_EXTRA ? "Extra" : "AdminComment" };
	int n = 11, rc, fd = entries_file(entries, err, errlen);

	if (fd < 0)
		return fd;
	snprintf(jobtext, sizeof(jobtext), "%" PRIu32, run->job);
	snprintf(runtext, sizeof(runtext), "%" PRIu32, run->run);
	snprintf(started, sizeof(started), "%" PRId64, run->started);
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
