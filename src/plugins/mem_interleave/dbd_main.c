/* dbd_main.c - mem_interleave_dbd: the placement record of a job that has ended, put
 * into its field in slurmdbd. slurmstepd and slurmd run it (record_ended.h): a client
 * of slurmdbd cannot live in a Slurm daemon (record_dbd.h).
 *
 *   mem_interleave_dbd --job JOB [--run RUN --started TIME]
 *                      [--field AdminComment|Extra|SystemComment] [--sole-writer] [--no-pause]
 *                      < STEPS
 *   mem_interleave_dbd --job JOB [--run RUN --started TIME] [--field AdminComment|Extra]
 *                      --recheck < RECORD
 *
 * STEPS is the JSON object {STEP: {NODE: ENTRY, ...}, ...} of steps of the job's run
 * RUN (Slurm's restart count: 0 unless requeued), the first of which started at TIME
 * (Unix seconds): slurmdbd keeps each run as a row, and the run's row is the one
 * running then (without TIME, the job's latest row). The record protocol of record_store.h
 * runs over that row's copy of the field, once slurmdbd has recorded the run's end
 * (slurmctld reports it right away); where AdminComment holds a jobstats summary, over
 * that row's SystemComment. One line on standard output says how it went, for the
 * caller to parse:
 *   stored READS WRITES LOSSES FIELD
 *   failed ERRNO SENTENCE
 * and after "stored", a second line with our whole record as the confirming read had
 * it. --recheck looks at the run's field again with a copy RECORD of our record
 * (record_recheck.h) and merges back what the field lost (dbd_recheck.h has its
 * lines). The exit status is 0 for all of them; 2 for a usage error (the sentence on
 * stderr).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "error.h"
#include "number.h"
#include "dbd_recheck.h"
#include "record.h"
#include "record_dbd.h"
#include "record_store.h"

/* How long to wait for slurmdbd to record the job's end, and how often to look. */
#define END_WAIT_MS 10000
#define END_POLL_MS 250
/* The largest STEPS read: a 1,000-node step's entries are far below it. */
#define ENTRIES_MAX (16u << 20)

struct request {
	struct smpol_record_run run;
	enum smpol_record_target target;
	bool sole_writer, pause, recheck;
};

static void usage(FILE *to)
{
	fprintf(to, "usage: mem_interleave_dbd --job JOB [--run RUN --started TIME] "
		"[--field AdminComment|Extra|SystemComment] [--sole-writer] [--no-pause] < STEPS\n"
		"       mem_interleave_dbd --job JOB [--run RUN --started TIME] [--field AdminComment|Extra] "
		"--recheck < RECORD\n"
		"Puts the placement records of steps of a job that has ended into the job's field in slurmdbd\n"
		"(STEPS: {STEP: {NODE: ENTRY}}): the row of its run RUN (0 unless requeued) that was running\n"
		"at TIME, when the first of them started;\n"
		"or, with --recheck, merges back the entries of a copy of it that the field lost (into that\n"
		"row's SystemComment where a jobstats summary replaced it in AdminComment).\n"
		"Run by the mem_interleave SPANK plugin; see mem_interleave(8).\n");
}

/* optarg as a whole number in min..max; -1 with the reason on stderr. */
static int option_number(const char *option, uint64_t min, uint64_t max, uint64_t *n)
{
	char why[SMPOL_ERRLEN];

	if (smpol_number_parse(optarg, 0, min, max, n, why, sizeof(why)) == 0)
		return 0;
	fprintf(stderr, "mem_interleave_dbd: %s %s: %s\n", option, optarg, why);
	return -1;
}

static int parse_args(int argc, char **argv, struct request *r)
{
	static const struct option opts[] = {
		{ "job", required_argument, NULL, 'j' }, { "run", required_argument, NULL, 'r' },
		{ "started", required_argument, NULL, 't' }, { "field", required_argument, NULL, 'f' },
		{ "sole-writer", no_argument, NULL, 'o' },
		{ "no-pause", no_argument, NULL, 'n' }, { "recheck", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	uint64_t n;
	int c;

	*r = (struct request){ .target = SMPOL_RECORD_ADMIN_COMMENT, .pause = true };
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			if (option_number("--job", 1, UINT32_MAX, &n) < 0)
				return -1;
			r->run.job = (uint32_t)n;
			break;
		case 'r':
			if (option_number("--run", 0, UINT32_MAX, &n) < 0)
				return -1;
			r->run.run = (uint32_t)n;
			break;
		case 't':
			if (option_number("--started", 1, INT64_MAX, &n) < 0)
				return -1;
			r->run.started = (int64_t)n;
			break;
		case 'f':
			if (!strcasecmp(optarg, "Extra") && RECORD_HAVE_JOB_EXTRA) {
				r->target = SMPOL_RECORD_EXTRA;
			} else if (!strcasecmp(optarg, "SystemComment")) {
				r->target = SMPOL_RECORD_SYSTEM_COMMENT;
			} else if (strcasecmp(optarg, "AdminComment")) {
				fprintf(stderr, "mem_interleave_dbd: --field %s: AdminComment, SystemComment%s\n", optarg,
					RECORD_HAVE_JOB_EXTRA ? " or Extra" : " (this Slurm has no Extra)");
				return -1;
			}
			break;
		case 'o': r->sole_writer = true; break;
		case 'n': r->pause = false; break;
		case 'c': r->recheck = true; break;
		case 'h': usage(stdout); exit(0);
		default: return -1;
		}
	}
	if (optind != argc || !r->run.job) {
		fprintf(stderr, "mem_interleave_dbd: --job is needed, and nothing else\n");
		return -1;
	}
	return 0;
}

/* The JSON object on standard input ({STEP: {NODE: ENTRY}}, or a record). 0, or
 * -EINVAL with a sentence. */
static int read_input(json_object **input, char *err, size_t errlen)
{
	char *text = malloc(ENTRIES_MAX + 1);
	size_t len = 0, n;

	*input = NULL;
	if (!text)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	while (len < ENTRIES_MAX && (n = fread(text + len, 1, ENTRIES_MAX - len, stdin)) > 0)
		len += n;
	text[len] = '\0';
	if (len < ENTRIES_MAX)
		*input = json_tokener_parse(text);
	free(text);
	if (*input && json_object_is_type(*input, json_type_object) && json_object_object_length(*input) > 0)
		return 0;
	json_object_put(*input);
	*input = NULL;
	return smpol_fail(err, errlen, EINVAL, "standard input holds no JSON object (of steps, or a record)");
}

/* The record protocol over slurmdbd, waiting (bounded) for slurmdbd to record the end. */
static int store_ended(const struct request *r, json_object *steps, struct smpol_store_result *res,
		       enum smpol_record_target *target, char *err, size_t errlen)
{
	struct smpol_comment_store store = { record_dbd_read, record_dbd_write,
					     r->pause ? NULL : smpol_record_no_pause, NULL, r->run.run };
	struct record_dbd *dbd;
	int rc = record_dbd_open(r->target, &r->run, &dbd, err, errlen);

	store.ctx = dbd;
	*target = r->target;
	for (int waited = 0; rc == 0 || rc == -EINPROGRESS; waited += END_POLL_MS) {
		rc = smpol_record_store_field(&store, *target, steps, r->sole_writer, res, err, errlen);
		/* a jobstats summary in AdminComment: beside it, in SystemComment */
		if (rc == -EEXIST && *target == SMPOL_RECORD_ADMIN_COMMENT) {
			*target = SMPOL_RECORD_SYSTEM_COMMENT;
			record_dbd_set_target(dbd, *target);
			rc = smpol_record_store_field(&store, *target, steps, r->sole_writer, res, err, errlen);
		}
		if (rc != -EINPROGRESS || waited >= END_WAIT_MS)
			break;
		usleep(END_POLL_MS * 1000);
	}
	record_dbd_close(dbd);
	if (rc == -EINPROGRESS) {
		char last[SMPOL_ERRLEN];

		snprintf(last, sizeof(last), "%s", err);
		rc = smpol_fail(err, errlen, ECONNREFUSED, "after %d s, %s", END_WAIT_MS / 1000, last);
	}
	return rc;
}

int main(int argc, char **argv)
{
	struct smpol_store_result res = { 0 };
	enum smpol_record_target target = SMPOL_RECORD_ADMIN_COMMENT;
	char err[SMPOL_ERRLEN] = "";
	json_object *input = NULL;
	struct request r;
	int rc;

	if (parse_args(argc, argv, &r) < 0) {
		usage(stderr);
		return 2;
	}
	rc = read_input(&input, err, sizeof(err));
	if (rc == 0 && r.recheck) {
		dbd_recheck(&r.run, r.target, input);
		json_object_put(input);
		return 0;
	}
	/* refused before slurmdbd is asked anything */
	if (rc == 0)
		rc = smpol_record_check_steps(input, err, sizeof(err));
	if (rc == 0)
		rc = store_ended(&r, input, &res, &target, err, sizeof(err));
	json_object_put(input);
	if (rc == 0)
		printf("stored %d %d %d %s\n%s\n", res.reads, res.writes, res.losses, record_dbd_field_name(target),
		       res.record ? json_object_to_json_string_ext(res.record, JSON_C_TO_STRING_PLAIN) : "");
	else
		printf("failed %d %s\n", -rc, err);
	json_object_put(res.record);
	return 0;
}
