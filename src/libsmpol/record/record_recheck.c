/* record_recheck.c - records looked at again after their job's end (see
 * record_recheck.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "array.h"
#include "error.h"
#include "record.h"
#include "record_json.h"
#include "record_merge_back.h"
#include "record_recheck.h"
#include "statedir.h"

#define RECHECK_DIR "recheck"
/* A record takes at most its budget (record.h); room for the rest of the entry. */
#define RECHECK_FILE_MAX (SMPOL_RECORD_BUDGET + 4096)

/* The looks after the end, in seconds after it; the last is SMPOL_RECHECK_FOR_S. */
static const int after_end_s[] = { 30, 60, 120, 240, 480, SMPOL_RECHECK_FOR_S };

bool smpol_recheck_next(const struct smpol_recheck *r, int64_t now, int64_t *due)
{
	int64_t wait = SMPOL_RECHECK_FIRST_S;

	if (!r->ended) {
		for (int i = 0; i < r->tries && wait < SMPOL_RECHECK_FOR_S; i++)
			wait *= 2;
		*due = now + (wait < SMPOL_RECHECK_FOR_S ? wait : SMPOL_RECHECK_FOR_S);
		return true;
	}
	for (size_t i = 0; i < sizeof(after_end_s) / sizeof(after_end_s[0]); i++) {
		if (r->ended + after_end_s[i] > now) {
			*due = r->ended + after_end_s[i];
			return true;
		}
	}
	return false;
}

/* "recheck/JOB.json", or "recheck/JOB.runR.json" for run R > 0 (as the spool names runs). */
static void file_name(const struct smpol_record_run *run, char *buf, size_t len)
{
	if (run->run > 0)
		snprintf(buf, len, RECHECK_DIR "/%" PRIu32 ".run%" PRIu32 ".json", run->job, run->run);
	else
		snprintf(buf, len, RECHECK_DIR "/%" PRIu32 ".json", run->job);
}

/* The job and run a file's name says, into key: false unless it is file_name's. */
static bool name_run(const char *name, struct smpol_record_run *key)
{
	unsigned long job, run = 0;
	char tail[8] = "", canonical[64];

	if (sscanf(name, "%lu.run%lu%7s", &job, &run, tail) != 3 &&
	    (run = 0, sscanf(name, "%lu%7s", &job, tail) != 2))
		return false;
	if (!job || job > UINT32_MAX || run > UINT32_MAX)
		return false;
	*key = (struct smpol_record_run){ .job = (uint32_t)job, .run = (uint32_t)run };
	file_name(key, canonical, sizeof(canonical));
	return !strcmp(canonical + strlen(RECHECK_DIR "/"), name);
}

/* The file's modification time is when it is due. */
static int set_due(const struct smpol_host *h, const struct smpol_record_run *run, int64_t due, char *err,
		   size_t errlen)
{
	char name[64], path[4300];
	struct timespec times[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_sec = (time_t)due } };

	file_name(run, name, sizeof(name));
	if (smpol_statedir_path(h, name, path, sizeof(path)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory %s is too long", h->statedir);
	if (utimensat(AT_FDCWD, path, times, AT_SYMLINK_NOFOLLOW) < 0)
		return smpol_fail(err, errlen, errno, "cannot set the time of %s: %s", path, strerror(errno));
	return 0;
}

static int write_entry(const struct smpol_host *h, const struct smpol_recheck *r, int64_t due, char *err,
		       size_t errlen)
{
	json_object *obj = json_object_new_object();
	char name[64];
	int rc;

	json_object_object_add(obj, "job", json_object_new_int64(r->run.job));
	json_object_object_add(obj, "run", json_object_new_int64(r->run.run));
	json_object_object_add(obj, "started", json_object_new_int64(r->run.started));
	json_object_object_add(obj, "tries", json_object_new_int(r->tries));
	json_object_object_add(obj, "ended", json_object_new_int64(r->ended));
	json_object_object_add(obj, "record", json_object_get(r->record));
	file_name(&r->run, name, sizeof(name));
	/* a copy for the next minutes: a crash of the node loses only these looks */
	rc = smpol_statedir_write(h, name, json_object_to_json_string_ext(obj, SMPOL_REC_JSON_FLAGS),
				  SMPOL_STATEDIR_VOLATILE, err, errlen);
	json_object_put(obj);
	return rc < 0 ? rc : set_due(h, &r->run, due, err, errlen);
}

struct listed {
	struct smpol_record_run run;    /* job and run */
	int64_t due;
};

static int by_due(const void *a, const void *b)
{
	const struct listed *x = a, *y = b;

	if (x->due != y->due)
		return x->due < y->due ? -1 : 1;
	if (x->run.job != y->run.job)
		return x->run.job < y->run.job ? -1 : 1;
	return x->run.run < y->run.run ? -1 : x->run.run > y->run.run;
}

/* Every entry and when it is due, the first due first. */
static int list_entries(const struct smpol_host *h, struct listed **all, int *n, char *err, size_t errlen)
{
	char dir[4300], path[4600];
	size_t cap = 0;
	struct dirent *d;
	DIR *dp;

	*all = NULL;
	*n = 0;
	if (smpol_statedir_path(h, RECHECK_DIR, dir, sizeof(dir)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory %s is too long", h->statedir);
	dp = opendir(dir);
	if (!dp)
		return errno == ENOENT ? 0 : smpol_fail(err, errlen, errno, "cannot read %s: %s", dir, strerror(errno));
	while ((d = readdir(dp))) {
		struct smpol_record_run key;
		struct stat st;
		struct listed *more;

		if (!name_run(d->d_name, &key))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		more = smpol_array_room(*all, &cap, (size_t)*n, sizeof(**all), 16);
		if (!more) {
			closedir(dp);
			free(*all);
			*all = NULL;
			return smpol_fail(err, errlen, ENOMEM, "out of memory listing %s", dir);
		}
		*all = more;
		(*all)[*n].run = key;
		(*all)[(*n)++].due = st.st_mtim.tv_sec;
	}
	closedir(dp);
	if (*n > 1)
		qsort(*all, (size_t)*n, sizeof(**all), by_due);
	return 0;
}

static bool same_key(const struct smpol_record_run *a, const struct smpol_record_run *b)
{
	return a->job == b->job && a->run == b->run;
}

/* record with what the run's copy kept so far holds and record lacks (a new reference):
 * an entry the field lost before this write is kept for the look after the end. */
static json_object *with_kept(const struct smpol_host *h, const struct smpol_record_run *run, json_object *record)
{
	struct smpol_recheck kept;
	json_object *joined = NULL;
	char *text = NULL, *merged = NULL;

	if (smpol_recheck_get(h, run, &kept, NULL, 0) < 0)
		return json_object_get(record);
	/* record lacks nothing of it (the field lost nothing): no merge, no text */
	if (smpol_record_run_of(kept.record) == smpol_record_run_of(record) &&
	    !smpol_record_holds_copy(record, kept.record) &&
	    smpol_record_put("", record, &text, NULL, 0) == 0 &&
	    smpol_record_merge_back(text, kept.record, SMPOL_RECORD_BUDGET, &merged, NULL, NULL, 0) == 0 &&
	    smpol_record_find(merged, &joined, NULL, 0) < 0)
		joined = NULL;
	free(text);
	free(merged);
	json_object_put(kept.record);
	return joined ? joined : json_object_get(record);
}

int smpol_recheck_put(const struct smpol_host *h, const struct smpol_record_run *run, json_object *record,
		      int64_t due, char *err, size_t errlen)
{
	struct smpol_recheck r = { .run = *run, .record = with_kept(h, run, record) };
	struct listed *all = NULL;
	int n = 0, rc = smpol_statedir_mkdir(h, RECHECK_DIR, err, errlen);

	if (rc == 0)
		rc = write_entry(h, &r, due, err, errlen);
	json_object_put(r.record);
	/* bounded: those due first go */
	if (rc == 0 && list_entries(h, &all, &n, NULL, 0) == 0)
		for (int i = 0; n - i > SMPOL_RECHECK_MAX; i++)
			if (!same_key(&all[i].run, run))
				smpol_recheck_remove(h, &all[i].run, NULL, 0);
	free(all);
	return rc;
}

int smpol_recheck_due(const struct smpol_host *h, int64_t now, struct smpol_record_run **runs, int *n,
		      int64_t *next, char *err, size_t errlen)
{
	struct listed *all;
	int count, rc = list_entries(h, &all, &count, err, errlen);

	*runs = NULL;
	*n = 0;
	*next = 0;
	if (rc < 0)
		return rc;
	for (int i = 0; i < count; i++) {
		if (all[i].due > now) {
			*next = all[i].due;
			break;
		}
		if (!*runs && !(*runs = calloc((size_t)count, sizeof(**runs)))) {
			free(all);
			return smpol_fail(err, errlen, ENOMEM, "out of memory listing the records to look at again");
		}
		(*runs)[(*n)++] = all[i].run;
	}
	free(all);
	return 0;
}

int smpol_recheck_get(const struct smpol_host *h, const struct smpol_record_run *run, struct smpol_recheck *r,
		      char *err, size_t errlen)
{
	char name[64], *text = malloc(RECHECK_FILE_MAX);
	json_object *obj = NULL, *rec;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!text)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	file_name(run, name, sizeof(name));
	rc = smpol_statedir_read(h, name, text, RECHECK_FILE_MAX, err, errlen);
	if (rc == 0)
		obj = json_tokener_parse(text);
	free(text);
	if (rc < 0)
		return rc;
	rec = smpol_rec_get(obj, "record");
	if (json_object_get_int64(smpol_rec_get(obj, "job")) != run->job ||
	    json_object_get_int64(smpol_rec_get(obj, "run")) != run->run || !json_object_is_type(rec, json_type_object)) {
		json_object_put(obj);
		return smpol_fail(err, errlen, EBADMSG, "%s/%s is no record kept to look at again", h->statedir, name);
	}
	r->run = (struct smpol_record_run){ run->job, run->run, json_object_get_int64(smpol_rec_get(obj, "started")) };
	r->tries = smpol_rec_count(obj, "tries");
	r->ended = json_object_get_int64(smpol_rec_get(obj, "ended"));
	r->record = json_object_get(rec);
	json_object_put(obj);
	return 0;
}

int smpol_recheck_update(const struct smpol_host *h, const struct smpol_recheck *r, int64_t due,
			 char *err, size_t errlen)
{
	return write_entry(h, r, due, err, errlen);
}

int smpol_recheck_remove(const struct smpol_host *h, const struct smpol_record_run *run, char *err,
			 size_t errlen)
{
	char name[64];

	file_name(run, name, sizeof(name));
	return smpol_statedir_remove(h, name, SMPOL_STATEDIR_DURABLE, err, errlen);
}
