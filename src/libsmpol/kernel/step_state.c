/* step_state.c - a running step's kept placement (see step_state.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <json-c/json.h>

#include "proc_stat.h"
#include "statedir.h"
#include "sysfs.h"
#include "step_state.h"

#define FILE_PREFIX "step."
#define FILE_SUFFIX ".json"
#define FILE_MAX (256 * 1024)

static void file_name(uint32_t job, uint32_t step, char *buf, size_t len)
{
	snprintf(buf, len, FILE_PREFIX "%" PRIu32 ".%" PRIu32 FILE_SUFFIX, job, step);
}

int smpol_step_state_from(const struct smpol_place_in *in, const struct smpol_placement *pl,
			  uint32_t job_id, uint32_t step_id, uid_t uid, struct smpol_step_state *st,
			  char *err, size_t errlen)
{
	const struct smpol_topology *topo = in->topo;
	int rc;

	memset(st, 0, sizeof(*st));
	st->job_id = job_id;
	st->step_id = step_id;
	st->uid = uid;
	st->stepd_pid = getpid();
	rc = smpol_proc_stat(st->stepd_pid, &st->stepd_start, NULL, NULL, 0);
	if (rc < 0)
		return smpol_fail(err, errlen, -rc, "cannot read this process's start time from /proc: %s",
				  strerror(-rc));
	st->holder_alive = true;
	if (smpol_spec_copy(&st->spec, &in->spec) < 0)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	st->site_default = in->site_default;
	st->site = *in->site;
	st->mem_kb = in->mem_kb;
	st->lease_held = in->lease == SMPOL_LEASE_HELD;
	st->path = pl->path;
	st->regions_by = pl->regions_by;
	st->has_span = in->span_cpus != NULL;
	snprintf(st->note, sizeof(st->note), "%s", pl->note ? pl->note : "");
	if ((in->span_cpus && smpol_cpus_copy(&st->span_cpus, in->span_cpus) < 0) ||
	    (in->bandwidth && smpol_bw_copy(in->bandwidth, &st->bandwidth) < 0))
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	st->launch_free = calloc((size_t)topo->nnodes + 1, sizeof(*st->launch_free));
	if (!st->launch_free)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	for (int i = 0; i < topo->nnodes; i++)
		if (topo->nodes[i].has_memory)
			st->launch_free[st->nlaunch_free++] = (struct smpol_launch_free){ topo->nodes[i].id,
											 topo->nodes[i].mem_free_kb };
	return 0;
}

int smpol_step_state_add_task(struct smpol_step_state *st, pid_t pid, char *err, size_t errlen)
{
	uint64_t start;
	int rc = smpol_proc_stat(pid, &start, NULL, NULL, 0);

	if (rc < 0)
		return smpol_fail(err, errlen, -rc, "task %d: cannot read its start time: %s", (int)pid,
				  rc == -ESRCH ? "it has exited" : strerror(-rc));
	return smpol_step_state_add_started(st, pid, start, err, errlen);
}

int smpol_step_state_add_started(struct smpol_step_state *st, pid_t pid, uint64_t start, char *err,
				 size_t errlen)
{
	struct smpol_step_task *grown = realloc(st->tasks, (size_t)(st->ntasks + 1) * sizeof(*st->tasks));

	if (!grown)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	st->tasks = grown;
	memset(&st->tasks[st->ntasks], 0, sizeof(st->tasks[0]));
	st->tasks[st->ntasks].pid = pid;
	st->tasks[st->ntasks++].start = start;
	return 0;
}

static json_object *site_to_json(const struct smpol_site_decision *s)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "algorithm", json_object_new_string(smpol_algorithm_name(s->algorithm)));
	char precision[32];

	/* Exact, whatever format mpolctl set for its own output. */
	snprintf(precision, sizeof(precision), "%.17g", s->precision);
	json_object_object_add(o, "precision", json_object_new_double_s(s->precision, precision));
	json_object_object_add(o, "max_weight_sum", json_object_new_int((int)s->max_weight_sum));
	json_object_object_add(o, "sysfs", json_object_new_string(smpol_sysfs_policy_name(s->sysfs)));
	return o;
}

static json_object *bandwidth_to_json(const struct smpol_bw_table *t)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < t->nentries; i++) {
		const struct smpol_bw_entry *e = &t->entries[i];
		json_object *row = json_object_new_array();

		json_object_array_add(row, json_object_new_int(e->initiator));
		json_object_array_add(row, json_object_new_int(e->target));
		json_object_array_add(row, json_object_new_int64(e->read));
		json_object_array_add(row, json_object_new_int64(e->write));
		json_object_array_add(row, json_object_new_string(smpol_bw_source_name(e->source)));
		json_object_array_add(arr, row);
	}
	return arr;
}

/* A set as list text ("0-15"); the kept sets are node or CPU lists a file has room for. */
static json_object *list_to_json(const struct smpol_bitmap *b)
{
	char text[4096] = "";

	smpol_bitmap_format_list(b, text, sizeof(text));
	return json_object_new_string(text);
}

static json_object *cpus_to_json(const struct smpol_cpus *c)
{
	char text[4096] = "";

	smpol_cpus_format_list(c, text, sizeof(text));
	return json_object_new_string(text);
}

static json_object *to_json(const struct smpol_step_state *st)
{
	json_object *o = json_object_new_object(), *stepd = json_object_new_object();
	json_object *free_kb = json_object_new_object(), *tasks = json_object_new_array();
	char spec[512] = "", key[16];

	smpol_spec_format(&st->spec, spec, sizeof(spec));
	json_object_object_add(o, "v", json_object_new_int(SMPOL_STEP_STATE_VERSION));
	json_object_object_add(o, "job", json_object_new_int64(st->job_id));
	json_object_object_add(o, "step", json_object_new_int64(st->step_id));
	json_object_object_add(o, "uid", json_object_new_int64(st->uid));
	json_object_object_add(stepd, "pid", json_object_new_int(st->stepd_pid));
	json_object_object_add(stepd, "start", json_object_new_uint64(st->stepd_start));
	json_object_object_add(o, "stepd", stepd);
	json_object_object_add(o, "spec", json_object_new_string(spec));
	json_object_object_add(o, "site_default", json_object_new_boolean(st->site_default));
	json_object_object_add(o, "site", site_to_json(&st->site));
	json_object_object_add(o, "mem_kb", json_object_new_uint64(st->mem_kb));
	json_object_object_add(o, "lease_held", json_object_new_boolean(st->lease_held));
	json_object_object_add(o, "path", json_object_new_string(smpol_kernel_path_name(st->path)));
	json_object_object_add(o, "note", json_object_new_string(st->note));
	json_object_object_add(o, "regions_by", json_object_new_string(smpol_regions_by_name(st->regions_by)));
	for (int i = 0; i < st->nlaunch_free; i++) {
		snprintf(key, sizeof(key), "%d", st->launch_free[i].node);
		json_object_object_add(free_kb, key, json_object_new_uint64(st->launch_free[i].free_kb));
	}
	json_object_object_add(o, "launch_free_kb", free_kb);
	json_object_object_add(o, "bandwidth", bandwidth_to_json(&st->bandwidth));
	if (st->has_span)
		json_object_object_add(o, "span_cpus", cpus_to_json(&st->span_cpus));
	for (int i = 0; i < st->ntasks; i++) {
		json_object *t = json_object_new_object();

		json_object_object_add(t, "pid", json_object_new_int(st->tasks[i].pid));
		json_object_object_add(t, "start", json_object_new_uint64(st->tasks[i].start));
		json_object_object_add(t, "cpu_nodes", list_to_json(&st->tasks[i].rebound));
		json_object_array_add(tasks, t);
	}
	json_object_object_add(o, "tasks", tasks);
	return o;
}

int smpol_step_state_write(const struct smpol_host *h, const struct smpol_step_state *st,
			   char *err, size_t errlen)
{
	json_object *o = to_json(st);
	char name[64];
	int rc;

	file_name(st->job_id, st->step_id, name, sizeof(name));
	rc = smpol_statedir_write(h, name, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
				  SMPOL_STATEDIR_VOLATILE, err, errlen);
	json_object_put(o);
	return rc;
}

/* The member `key` of type `type`, or NULL. */
static json_object *member(json_object *o, const char *key, json_type type)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, type) ? v : NULL;
}

/* A whole number member within [lo, hi]; false when absent, of another type or out of range. */
static bool get_int(json_object *o, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
	json_object *v = member(o, key, json_type_int);

	if (!v)
		return false;
	errno = 0;
	*out = json_object_get_int64(v);
	return !errno && *out >= lo && *out <= hi;
}

static bool get_u64(json_object *o, const char *key, uint64_t *out)
{
	json_object *v = member(o, key, json_type_int);

	if (!v || json_object_get_int64(v) < 0)
		return false;
	*out = json_object_get_uint64(v);
	return true;
}

static bool site_from_json(json_object *o, struct smpol_site_decision *s)
{
	json_object *alg = member(o, "algorithm", json_type_string), *sysfs = member(o, "sysfs", json_type_string);
	json_object *prec;
	int64_t sum;

	/* 1 is written as a whole number */
	if (!(prec = member(o, "precision", json_type_double)))
		prec = member(o, "precision", json_type_int);
	if (!alg || !sysfs || !prec || !get_int(o, "max_weight_sum", 1, 1024, &sum))
		return false;
	if (!strcmp(json_object_get_string(alg), "optimal"))
		s->algorithm = SMPOL_ALGO_OPTIMAL;
	else if (!strcmp(json_object_get_string(alg), "kernel"))
		s->algorithm = SMPOL_ALGO_KERNEL;
	else
		return false;
	s->sysfs = SMPOL_SYSFS_NEVER;
	while (strcmp(smpol_sysfs_policy_name(s->sysfs), json_object_get_string(sysfs)))
		if (++s->sysfs > SMPOL_SYSFS_ALWAYS)
			return false;
	s->precision = json_object_get_double(prec);
	s->max_weight_sum = (unsigned)sum;
	return s->precision > 0 && s->precision <= 1;
}

static bool path_from_name(const char *name, enum smpol_kernel_path *p)
{
	for (*p = SMPOL_PATH_NONE; *p <= SMPOL_PATH_INTERLEAVE; (*p)++)
		if (!strcmp(smpol_kernel_path_name(*p), name))
			return true;
	return false;
}

/* A list member ("0-15") of ids below limit; false when absent or malformed. */
static bool get_list(json_object *o, const char *key, int limit, struct smpol_bitmap *out)
{
	json_object *v = member(o, key, json_type_string);

	return v && smpol_bitmap_parse_list(json_object_get_string(v), limit, out, NULL, 0) == 0;
}

/* The plan a task was re-bound to: "cpu_nodes", or a file from before spanning plans'
 * one "initiator" (-1 = none). */
static bool rebound_from_json(json_object *t, struct smpol_bitmap *rebound)
{
	int64_t init;

	smpol_bitmap_clear(rebound);
	if (member(t, "cpu_nodes", json_type_string))
		return get_list(t, "cpu_nodes", SMPOL_MAX_NODES, rebound);
	if (!get_int(t, "initiator", -1, SMPOL_MAX_NODES - 1, &init))
		return false;
	if (init >= 0)
		smpol_bitmap_set(rebound, (int)init);
	return true;
}

static bool tasks_from_json(json_object *arr, struct smpol_step_state *st)
{
	size_t n = json_object_array_length(arr);

	st->tasks = calloc(n + 1, sizeof(*st->tasks));
	if (!st->tasks)
		return false;
	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(arr, i);
		int64_t pid;

		if (!json_object_is_type(t, json_type_object) || !get_int(t, "pid", 1, INT32_MAX, &pid) ||
		    !get_u64(t, "start", &st->tasks[i].start) || !rebound_from_json(t, &st->tasks[i].rebound))
			return false;
		st->tasks[i].pid = (pid_t)pid;
		st->ntasks++;
	}
	return true;
}

static bool launch_free_from_json(json_object *o, struct smpol_step_state *st)
{
	st->launch_free = calloc((size_t)json_object_object_length(o) + 1, sizeof(*st->launch_free));
	if (!st->launch_free)
		return false;
	json_object_object_foreach(o, key, val) {
		char *end;
		long node = strtol(key, &end, 10);

		if (*end || end == key || node < 0 || node >= SMPOL_MAX_NODES || !json_object_is_type(val, json_type_int) ||
		    json_object_get_int64(val) < 0)
			return false;
		st->launch_free[st->nlaunch_free++] = (struct smpol_launch_free){ (int)node, json_object_get_uint64(val) };
	}
	return true;
}

/* The kept table; absent in files from before it was kept (then sysfs decides). */
static bool bandwidth_from_json(json_object *arr, struct smpol_bw_table *t)
{
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
		json_object *row = json_object_array_get_idx(arr, i), *v[5];
		struct smpol_bw_entry e;
		int64_t n[4];

		if (!json_object_is_type(row, json_type_array) || json_object_array_length(row) != 5)
			return false;
		for (int k = 0; k < 5; k++)
			v[k] = json_object_array_get_idx(row, k);
		for (int k = 0; k < 4; k++) {
			if (!json_object_is_type(v[k], json_type_int))
				return false;
			n[k] = json_object_get_int64(v[k]);
			if (n[k] < 0 || n[k] > (k < 2 ? SMPOL_MAX_NODES - 1 : UINT32_MAX))
				return false;
		}
		if (!json_object_is_type(v[4], json_type_string) ||
		    smpol_bw_source_parse(json_object_get_string(v[4]), &e.source) < 0)
			return false;
		e.initiator = (int)n[0];
		e.target = (int)n[1];
		e.read = (uint32_t)n[2];
		e.write = (uint32_t)n[3];
		if (smpol_bw_put(t, &e) < 0)
			return false;
	}
	return true;
}

/* "regions_by": absent in files written before region-aware placement (none). */
static bool regions_by_from_json(json_object *o, enum smpol_regions_by *by)
{
	json_object *v;

	*by = SMPOL_REGIONS_NONE;
	if (!json_object_object_get_ex(o, "regions_by", &v))
		return true;
	for (; v && json_object_is_type(v, json_type_string) && *by <= SMPOL_REGIONS_MOVE; (*by)++)
		if (!strcmp(smpol_regions_by_name(*by), json_object_get_string(v)))
			return true;
	return false;
}

/* Fill st from the parsed object; false when any part is missing or of the wrong kind. */
static bool from_json(json_object *o, struct smpol_step_state *st)
{
	json_object *stepd = member(o, "stepd", json_type_object), *spec = member(o, "spec", json_type_string);
	json_object *site = member(o, "site", json_type_object), *path = member(o, "path", json_type_string);
	json_object *note = member(o, "note", json_type_string), *lease = member(o, "lease_held", json_type_boolean);
	json_object *dflt = member(o, "site_default", json_type_boolean), *tasks = member(o, "tasks", json_type_array);
	json_object *free_kb = member(o, "launch_free_kb", json_type_object), *span;
	int64_t v, job, step, uid, pid;
	char why[SMPOL_ERRLEN];

	if (!get_int(o, "v", SMPOL_STEP_STATE_VERSION, SMPOL_STEP_STATE_VERSION, &v) ||
	    !get_int(o, "job", 0, UINT32_MAX, &job) || !get_int(o, "step", 0, UINT32_MAX, &step) ||
	    !get_int(o, "uid", 0, UINT32_MAX, &uid) || !stepd || !get_int(stepd, "pid", 1, INT32_MAX, &pid) ||
	    !get_u64(stepd, "start", &st->stepd_start) || !spec || !site || !path || !note || !lease || !dflt ||
	    !tasks || !free_kb || !get_u64(o, "mem_kb", &st->mem_kb))
		return false;
	st->job_id = (uint32_t)job;
	st->step_id = (uint32_t)step;
	st->uid = (uid_t)uid;
	st->stepd_pid = (pid_t)pid;
	st->holder_alive = smpol_proc_alive(st->stepd_pid, st->stepd_start);
	if (smpol_spec_parse(json_object_get_string(spec), &st->spec, why, sizeof(why)) < 0)
		return false;
	st->site_default = json_object_get_boolean(dflt);
	smpol_site_decision_default(&st->site);
	st->lease_held = json_object_get_boolean(lease);
	snprintf(st->note, sizeof(st->note), "%s", json_object_get_string(note));
	span = member(o, "span_cpus", json_type_string);
	st->has_span = span != NULL;
	if (span && smpol_cpus_parse_list(json_object_get_string(span), SMPOL_MAX_CPUS, &st->span_cpus, NULL, 0) < 0)
		return false;
	return site_from_json(site, &st->site) && path_from_name(json_object_get_string(path), &st->path) &&
	       regions_by_from_json(o, &st->regions_by) &&
	       launch_free_from_json(free_kb, st) && tasks_from_json(tasks, st) &&
	       bandwidth_from_json(member(o, "bandwidth", json_type_array), &st->bandwidth);
}

static int read_file(const struct smpol_host *h, const char *name, struct smpol_step_state *st,
		     char *err, size_t errlen)
{
	char path[4200], *text;
	json_object *o;
	bool ok;
	int rc;

	memset(st, 0, sizeof(*st));
	if (smpol_statedir_path(h, name, path, sizeof(path)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory name '%s' is too long", h->statedir);
	text = malloc(FILE_MAX);
	if (!text)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	rc = smpol_statedir_read(h, name, text, FILE_MAX, err, errlen);
	if (rc < 0) {
		free(text);
		return rc;
	}
	o = json_tokener_parse(text);
	free(text);
	ok = o && json_object_is_type(o, json_type_object) && from_json(o, st);
	json_object_put(o);
	if (!ok) {
		smpol_step_state_free(st);
		return smpol_fail(err, errlen, EBADMSG, "the kept placement %s is malformed; it is ignored "
				  "('mpolctl check' reports it; remove it once its step has ended)", path);
	}
	return 0;
}

int smpol_step_state_read(const struct smpol_host *h, uint32_t job_id, uint32_t step_id,
			  struct smpol_step_state *st, char *err, size_t errlen)
{
	char name[64];

	file_name(job_id, step_id, name, sizeof(name));
	return read_file(h, name, st, err, errlen);
}

/* Is this directory entry a kept step's file? */
static bool is_state_file(const char *name)
{
	size_t n = strlen(name), p = strlen(FILE_PREFIX), s = strlen(FILE_SUFFIX);

	return n > p + s && !strncmp(name, FILE_PREFIX, p) && !strcmp(name + n - s, FILE_SUFFIX);
}

int smpol_step_state_list(const struct smpol_host *h, struct smpol_step_state **states, int *nstates,
			  int *nbad, char *err, size_t errlen)
{
	struct smpol_step_state *list = NULL, *grown;
	struct dirent *de;
	int n = 0, bad = 0, rc = 0;
	DIR *d;

	*states = NULL;
	*nstates = 0;
	if (nbad)
		*nbad = 0;
	rc = smpol_statedir_list(h, &d, err, errlen);
	if (rc < 0)
		return rc == -ENOENT ? 0 : rc;
	while (!rc && (de = readdir(d))) {
		struct smpol_step_state st;

		if (!is_state_file(de->d_name))
			continue;
		rc = read_file(h, de->d_name, &st, NULL, 0);
		/* malformed (or not a file at all), or removed meanwhile */
		if (rc == -EBADMSG || rc == -SMPOL_ENOTREG || rc == -ENOENT) {
			bad += rc != -ENOENT;
			rc = 0;
			continue;
		}
		if (rc < 0)
			break;
		grown = realloc(list, (size_t)(n + 1) * sizeof(*list));
		if (!grown) {
			smpol_step_state_free(&st);
			rc = -ENOMEM;
			break;
		}
		list = grown;
		list[n++] = st;
	}
	closedir(d);
	if (rc < 0) {
		smpol_step_states_free(list, n);
		return smpol_fail(err, errlen, -rc, "cannot read the kept placements in %s: %s", h->statedir,
				  smpol_read_error(rc));
	}
	*states = list;
	*nstates = n;
	if (nbad)
		*nbad = bad;
	return 0;
}

int smpol_step_state_remove(const struct smpol_host *h, uint32_t job_id, uint32_t step_id,
			    char *err, size_t errlen)
{
	char name[64];

	file_name(job_id, step_id, name, sizeof(name));
	return smpol_statedir_remove(h, name, SMPOL_STATEDIR_VOLATILE, err, errlen);
}

int smpol_step_state_reap(const struct smpol_host *h, int *removed, char *err, size_t errlen)
{
	struct smpol_step_state *states;
	int n, rc;

	*removed = 0;
	rc = smpol_step_state_list(h, &states, &n, NULL, err, errlen);
	for (int i = 0; rc == 0 && i < n; i++) {
		if (states[i].holder_alive)
			continue;
		rc = smpol_step_state_remove(h, states[i].job_id, states[i].step_id, err, errlen);
		*removed += rc == 0;
	}
	smpol_step_states_free(states, n);
	return rc;
}

int smpol_step_state_set_rebound(const struct smpol_host *h, uint32_t job_id, uint32_t step_id, pid_t pid,
				 uint64_t start, const struct smpol_bitmap *cpu_nodes, char *err, size_t errlen)
{
	struct smpol_step_state st;
	struct smpol_step_task *t;
	int fd, rc;

	/* mpolctl watch and a rebalance by hand may record at once: one at a time. */
	rc = smpol_statedir_lock(h, "steps.lock", true, LOCK_EX, &fd, err, errlen);
	if (rc < 0)
		return rc;
	rc = smpol_step_state_read(h, job_id, step_id, &st, err, errlen);
	if (rc == 0) {
		t = smpol_step_state_task(&st, pid, start);
		if (t) {
			t->rebound = *cpu_nodes;
			rc = smpol_step_state_write(h, &st, err, errlen);
		} else {
			rc = -ENOENT;
		}
		smpol_step_state_free(&st);
	}
	close(fd);
	return rc;
}

struct smpol_step_task *smpol_step_state_task(const struct smpol_step_state *st, pid_t pid, uint64_t start)
{
	for (int i = 0; i < st->ntasks; i++)
		if (st->tasks[i].pid == pid && st->tasks[i].start == start)
			return &st->tasks[i];
	return NULL;
}

int smpol_step_state_place_in(const struct smpol_step_state *st, const struct smpol_topology *topo,
			      const struct smpol_wi_table *table, const char *table_error,
			      struct smpol_topology *launch_topo, struct smpol_place_in *in,
			      char *err, size_t errlen)
{
	if (smpol_topology_copy(topo, launch_topo) < 0)
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	for (int i = 0; i < st->nlaunch_free; i++)
		for (int j = 0; j < launch_topo->nnodes; j++)
			if (launch_topo->nodes[j].id == st->launch_free[i].node)
				launch_topo->nodes[j].mem_free_kb = st->launch_free[i].free_kb;
	memset(in, 0, sizeof(*in));
	in->spec = st->spec;   /* borrowed from st, as the rest */
	in->site_default = st->site_default;
	in->site = &st->site;
	in->topo = launch_topo;
	in->table = table;
	in->table_error = table_error;
	in->lease = st->lease_held ? SMPOL_LEASE_HELD : SMPOL_LEASE_NOT_HELD;
	in->lease_note = st->note[0] ? st->note : NULL;
	in->mem_kb = st->mem_kb;
	in->bandwidth = &st->bandwidth;
	in->span_cpus = st->has_span ? &st->span_cpus : NULL;
	/* the step's probe said process_mbind works; the caller's own backend still decides */
	in->pmbind = st->regions_by == SMPOL_REGIONS_POLICY;
	return 0;
}

void smpol_step_state_free(struct smpol_step_state *st)
{
	smpol_spec_free(&st->spec);
	smpol_bw_free(&st->bandwidth);
	smpol_cpus_free(&st->span_cpus);
	free(st->launch_free);
	free(st->tasks);
	st->launch_free = NULL;
	st->tasks = NULL;
	st->nlaunch_free = 0;
	st->ntasks = 0;
}

void smpol_step_states_free(struct smpol_step_state *states, int n)
{
	for (int i = 0; i < n; i++)
		smpol_step_state_free(&states[i]);
	free(states);
}
