/* preload.c - each task (the user): the interposer in the task's environment.
 *
 * A task of a region-aware step gets mem_interleave_regions.so (the site's preload=)
 * at the end of its LD_PRELOAD, after what the job already preloads (profilers such as
 * Darshan or XALT keep their place), and SLURM_MEM_INTERLEAVE_REGION_POLICY with its
 * plan (region_env.h). Every other task has both removed: a step inherits its
 * environment from the batch script or salloc shell, whose own step may have asked. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "plugin.h"
#include "region_env.h"

#define PRELOAD_VAR "LD_PRELOAD"
/* The interposer's file name: an entry naming it is ours wherever the site put it. */
#define PRELOAD_NAME "mem_interleave_regions.so"

static bool ours(const char *entry, size_t n, const char *path)
{
	size_t name = strlen(PRELOAD_NAME);

	return (n == strlen(path) && !strncmp(entry, path, n)) ||
	       (n >= name && !strncmp(entry + n - name, PRELOAD_NAME, name) &&
		(n == name || entry[n - name - 1] == '/'));
}

/*
 * preload_list - list (LD_PRELOAD's value: entries split by spaces or colons, as ld.so
 * reads it) without the interposer, then `add` at the end when not NULL; entries
 * joined by ':'. -ENOSPC when out is short.
 */
static int preload_list(const char *list, const char *path, const char *add, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (const char *e = list; *e;) {
		size_t n;

		e += strspn(e, " :");
		n = strcspn(e, " :");
		if (n && !ours(e, n, path)) {
			if (used + n + 2 > len)
				return -ENOSPC;
			used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? ":" : "", (int)n, e);
		}
		e += n;
	}
	if (add && (size_t)snprintf(out + used, len - used, "%s%s", used ? ":" : "", add) >= len - used)
		return -ENOSPC;
	return 0;
}

/* SLURM_MEM_INTERLEAVE_REGION_POLICY for plan p of step s. */
static int policy_value(const struct mi_step *s, const struct smpol_plan *p, char *buf, size_t len, char *err,
			size_t errlen)
{
	struct smpol_region_env e = {
		.min_bytes = s->pl.min_region_kb * 1024,
		.weighted = s->pl.path == SMPOL_PATH_WEIGHTED,
	};
	int rc = smpol_plan_policy_nodes(p, &e.nodes, &e.static_nodes, err, errlen);

	if (rc == 0 && smpol_region_env_format(&e, buf, len) < 0)
		rc = smpol_fail(err, errlen, ENOSPC, "the plan's node list does not fit %s", SMPOL_REGION_ENV);
	return rc;
}

/* LD_PRELOAD's value, "" when unset (or too long to be ours to change). */
static void preload_value(spank_t sp, char *buf, size_t len)
{
	if (spank_getenv(sp, PRELOAD_VAR, buf, (int)len) != ESPANK_SUCCESS)
		buf[0] = '\0';
}

/* The task's environment without the interposer (was: LD_PRELOAD's value). */
static void remove_interposer(spank_t sp, const char *path, const char *was)
{
	char now[8192];

	spank_unsetenv(sp, SMPOL_REGION_ENV);
	if (preload_list(was, path, NULL, now, sizeof(now)) < 0 || !strcmp(now, was))
		return;
	if (now[0])
		spank_setenv(sp, PRELOAD_VAR, now, 1);
	else
		spank_unsetenv(sp, PRELOAD_VAR);
}

void preload_remove(spank_t sp, const struct mi_step *s)
{
	char was[8192];

	preload_value(sp, was, sizeof(was));
	remove_interposer(sp, s->site.preload, was);
}

bool preload_add(spank_t sp, const struct mi_step *s, const struct smpol_plan *p, char *why, size_t whylen)
{
	char was[8192], now[8192], policy[1024], err[SMPOL_ERRLEN];
	const char *path = s->site.preload;

	why[0] = '\0';
	preload_value(sp, was, sizeof(was));
	if (!path[0])
		snprintf(why, whylen, "the site set preload=none");
	else if (access(path, R_OK) < 0)
		snprintf(why, whylen, "the interposer %s cannot be read (%s)", path, strerror(errno));
	else if (policy_value(s, p, policy, sizeof(policy), err, sizeof(err)) < 0)
		snprintf(why, whylen, "%s", err);
	else if (preload_list(was, path, path, now, sizeof(now)) < 0)
		snprintf(why, whylen, "LD_PRELOAD is too long to add %s", path);
	if (why[0]) {
		remove_interposer(sp, path, was);
		return false;
	}
	spank_setenv(sp, SMPOL_REGION_ENV, policy, 1);
	spank_setenv(sp, PRELOAD_VAR, now, 1);
	return true;
}
