/* record_spool.c - records waiting for slurmctld on the node (see record_spool.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "error.h"
#include "number.h"
#include "record_spool.h"
#include "statedir.h"

#define SPOOL_FILE_MAX (1024 * 1024)

static int spool_dir(const struct smpol_host *h, char *buf, size_t len)
{
	return snprintf(buf, len, "%s/spool", h->statedir) < (int)len ? 0 : -ENAMETOOLONG;
}

/* "JOB.STEP" of a spool file name "JOB.STEP.json", or -EINVAL. */
static int name_of(const char *file, char *name, size_t len)
{
	size_t n = strlen(file);

	if (file[0] == '.' || n <= 5 || strcmp(file + n - 5, ".json") || n - 5 >= len)
		return -EINVAL;
	memcpy(name, file, n - 5);
	name[n - 5] = '\0';
	return 0;
}

struct spooled {
	char name[64];
	struct timespec mtime;
};

static int by_age(const void *a, const void *b)
{
	const struct spooled *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The spool open in *dp (NULL when there is none: no records), its path in dir. 0 or
 * -errno with a sentence. */
static int open_spool(const struct smpol_host *h, char *dir, size_t len, DIR **dp, char *err, size_t errlen)
{
	*dp = NULL;
	if (spool_dir(h, dir, len) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory %s is too long", h->statedir);
	*dp = opendir(dir);
	return *dp || errno == ENOENT ? 0 : smpol_fail(err, errlen, errno, "cannot read %s: %s", dir, strerror(errno));
}

int smpol_spool_count(const struct smpol_host *h, int *n, char *err, size_t errlen)
{
	char dir[4200], name[64];
	struct dirent *d;
	DIR *dp;
	int rc = open_spool(h, dir, sizeof(dir), &dp, err, errlen);

	*n = 0;
	if (rc < 0 || !dp)
		return rc;
	while ((d = readdir(dp)))
		*n += name_of(d->d_name, name, sizeof(name)) == 0;
	closedir(dp);
	return 0;
}

int smpol_spool_list(const struct smpol_host *h, char ***names, int *n, char *err, size_t errlen)
{
	struct spooled *all = NULL;
	char dir[4200], path[4300];
	struct dirent *d;
	int count = 0;
	size_t cap = 0;
	DIR *dp;
	int rc = open_spool(h, dir, sizeof(dir), &dp, err, errlen);

	*names = NULL;
	*n = 0;
	if (rc < 0 || !dp)
		return rc;
	while ((d = readdir(dp))) {
		struct stat st;
		char name[64];

		if (name_of(d->d_name, name, sizeof(name)) < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s.json", dir, name);
		if (lstat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		struct spooled *more = smpol_array_room(all, &cap, (size_t)count, sizeof(*all), 16);

		if (!more) {
			free(all);
			closedir(dp);
			return smpol_fail(err, errlen, ENOMEM, "out of memory listing %s", dir);
		}
		all = more;
		snprintf(all[count].name, sizeof(all[count].name), "%s", name);
		all[count++].mtime = st.st_mtim;
	}
	closedir(dp);
	qsort(all, (size_t)count, sizeof(*all), by_age);
	*names = calloc((size_t)(count ? count : 1), sizeof(**names));
	for (int i = 0; *names && i < count; i++)
		(*names)[i] = strdup(all[i].name);
	free(all);
	if (!*names)
		return smpol_fail(err, errlen, ENOMEM, "out of memory listing %s", dir);
	*n = count;
	return 0;
}

/* obj's key as a number in 0..max, or dflt when absent; -1 when it is something else. */
static int64_t number_in(json_object *obj, const char *key, int64_t max, int64_t dflt)
{
	json_object *v;

	if (!json_object_object_get_ex(obj, key, &v))
		return dflt;
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0 || json_object_get_int64(v) > max)
		return -1;
	return json_object_get_int64(v);
}

int smpol_spool_get(const struct smpol_host *h, const char *name, struct smpol_record_run *run, char *step,
		    size_t steplen, json_object **entries, char *err, size_t errlen)
{
	char dir[4200], path[4300], *text = NULL;
	json_object *obj, *v, *e;
	struct stat st;
	ssize_t got;
	int fd, rc = 0;

	*entries = NULL;
	if (spool_dir(h, dir, sizeof(dir)) < 0 || snprintf(path, sizeof(path), "%s/%s.json", dir, name) >= (int)sizeof(path))
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory %s is too long", h->statedir);
	/* O_NONBLOCK: a FIFO put there since it was listed must not block the reader */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : smpol_fail(err, errlen, errno, "cannot read %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SPOOL_FILE_MAX ||
	    !(text = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return smpol_fail(err, errlen, EBADMSG, "%s is too large, not a regular file or unreadable; left "
				  "for the admin", path);
	}
	got = read(fd, text, (size_t)st.st_size);
	close(fd);
	text[got > 0 ? got : 0] = '\0';
	obj = json_tokener_parse(text);
	free(text);
	if (!obj || number_in(obj, "job", UINT32_MAX, 0) <= 0 || number_in(obj, "run", UINT32_MAX, 0) < 0 ||
	    number_in(obj, "started", INT64_MAX, 0) < 0) {
		rc = smpol_fail(err, errlen, EBADMSG, "%s is not a spooled placement record (job, run, started); left "
				"for the admin", path);
		goto out;
	}
	*run = (struct smpol_record_run){ (uint32_t)number_in(obj, "job", UINT32_MAX, 0),
					  (uint32_t)number_in(obj, "run", UINT32_MAX, 0),
					  number_in(obj, "started", INT64_MAX, 0) };
	if (!json_object_object_get_ex(obj, "step", &v) || !json_object_is_type(v, json_type_string) ||
	    strlen(json_object_get_string(v)) >= steplen || !json_object_object_get_ex(obj, "entries", &e) ||
	    !json_object_is_type(e, json_type_object)) {
		rc = smpol_fail(err, errlen, EBADMSG, "%s is not a spooled placement record (step, entries); left for the admin", path);
		goto out;
	}
	snprintf(step, steplen, "%s", json_object_get_string(v));
	*entries = json_object_get(e);
out:
	json_object_put(obj);
	return rc;
}

int smpol_spool_remove(const struct smpol_host *h, const char *name, char *err, size_t errlen)
{
	char dir[4200], path[4300];

	if (spool_dir(h, dir, sizeof(dir)) < 0 || snprintf(path, sizeof(path), "%s/%s.json", dir, name) >= (int)sizeof(path))
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory %s is too long", h->statedir);
	if (unlink(path) < 0 && errno != ENOENT)
		return smpol_fail(err, errlen, errno, "cannot remove %s: %s", path, strerror(errno));
	return 0;
}

int smpol_spool_set_aside(const struct smpol_host *h, const char *name, char *err, size_t errlen)
{
	char dir[4200], path[4300], aside[4400];

	if (spool_dir(h, dir, sizeof(dir)) < 0 || snprintf(path, sizeof(path), "%s/%s.json", dir, name) >= (int)sizeof(path))
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory %s is too long", h->statedir);
	snprintf(aside, sizeof(aside), "%s.undelivered", path);
	if (rename(path, aside) < 0 && errno != ENOENT)
		return smpol_fail(err, errlen, errno, "cannot move %s aside: %s", path, strerror(errno));
	return 0;
}

void smpol_spool_name(const struct smpol_record_run *run, const char *step, char *buf, size_t len)
{
	if (run->run > 0)
		snprintf(buf, len, "%u.%s.run%u", run->job, step, run->run);
	else
		snprintf(buf, len, "%u.%s", run->job, step);
}

int smpol_spool_name_run(const char *name, struct smpol_record_run *run)
{
	const char *dot = strchr(name, '.'), *tail = strrchr(name, '.');
	char job[16] = "";
	uint64_t j, r = 0;

	if (!dot || dot[1] == '\0' || (size_t)(dot - name) >= sizeof(job))
		return -EINVAL;
	memcpy(job, name, (size_t)(dot - name));
	if (smpol_number_parse(job, 0, 0, UINT32_MAX, &j, NULL, 0) < 0 ||
	    (tail != dot && !strncmp(tail, ".run", 4) &&
	     smpol_number_parse(tail + 4, 0, 0, UINT32_MAX, &r, NULL, 0) < 0))
		return -EINVAL;
	*run = (struct smpol_record_run){ .job = (uint32_t)j, .run = (uint32_t)r };
	return 0;
}

int smpol_spool_put(const struct smpol_host *h, const struct smpol_record_run *run, const char *step,
		    json_object *entries, enum smpol_statedir_sync sync, int *dropped, char *err, size_t errlen)
{
	char dir[4200], name[64], file[80], **names = NULL;
	json_object *obj, *merged, *old = NULL;
	struct smpol_record_run orun;
	char ostep[32];
	int n = 0, rc;

	*dropped = 0;
	if (spool_dir(h, dir, sizeof(dir)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory %s is too long", h->statedir);
	rc = smpol_statedir_mkdir(h, "spool", err, errlen);
	if (rc < 0)
		return rc;
	smpol_spool_name(run, step, name, sizeof(name));
	/* the step's entries spooled before (a node that wrote for itself) stay */
	merged = json_object_new_object();
	if (smpol_spool_get(h, name, &orun, ostep, sizeof(ostep), &old, NULL, 0) == 0) {
		json_object_object_foreach(old, node, e)
			json_object_object_add(merged, node, json_object_get(e));
	}
	json_object_put(old);
	json_object_object_foreach(entries, node, e) {
		/* a missing node (null) never hides its entry spooled before */
		if (e || !json_object_object_get_ex(merged, node, NULL))
			json_object_object_add(merged, node, json_object_get(e));
	}
	obj = json_object_new_object();
	json_object_object_add(obj, "job", json_object_new_int64(run->job));
	json_object_object_add(obj, "run", json_object_new_int64(run->run));
	json_object_object_add(obj, "started", json_object_new_int64(run->started));
	json_object_object_add(obj, "step", json_object_new_string(step));
	json_object_object_add(obj, "entries", merged);
	snprintf(file, sizeof(file), "spool/%s.json", name);
	rc = smpol_statedir_write(h, file, json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN),
				  sync, err, errlen);
	json_object_put(obj);
	if (rc < 0)
		return rc;
	/* bounded: the oldest go (counted first: sorting them by age is for a full spool) */
	if (smpol_spool_count(h, &n, NULL, 0) == 0 && n > SMPOL_SPOOL_MAX &&
	    smpol_spool_list(h, &names, &n, NULL, 0) == 0) {
		for (int i = 0; i < n; i++) {
			if (n - *dropped > SMPOL_SPOOL_MAX && strcmp(names[i], name) &&
			    smpol_spool_remove(h, names[i], NULL, 0) == 0)
				(*dropped)++;
			free(names[i]);
		}
		free(names);
	}
	return 0;
}
