/* cpuset.c - a task's allowed memory nodes and growing its cpuset (see cpuset.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cpuset.h"
#include "error.h"
#include "sysfs.h"

int smpol_task_mems_allowed(pid_t pid, struct smpol_bitmap *mems, char *err, size_t errlen)
{
	char path[64], line[4096];
	FILE *f;
	int rc = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return smpol_fail(err, errlen, errno == ENOENT ? ESRCH : errno, "cannot read %s: %s", path,
				 strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Mems_allowed_list:", 18))
			continue;
		line[strcspn(line, "\n")] = '\0';
		rc = smpol_bitmap_parse_list(line + 18, SMPOL_MAX_NODES, mems, err, errlen);
		break;
	}
	fclose(f);
	if (rc == -ENOENT)
		return smpol_fail(err, errlen, ENOENT, "%s has no Mems_allowed_list (a kernel without cpusets?)", path);
	return rc;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int smpol_cpuset_dir_parse(const char *text, const char *fsroot, char *dir, size_t dirlen, char *root,
			  size_t rootlen, char *err, size_t errlen)
{
	char line[4096], v1[4096] = "", v2[4096] = "", v2root[2048];
	int rc;

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		size_t len = strcspn(p, "\n");
		char *ctrl, *cg;

		if (len >= sizeof(line))
			continue;
		memcpy(line, p, len);
		line[len] = '\0';
		ctrl = strchr(line, ':');
		cg = ctrl ? strchr(ctrl + 1, ':') : NULL;
		if (!cg)
			continue;
		/* "ID:CONTROLLERS:PATH"; v2 is "0::PATH". */
		*cg++ = '\0';
		*ctrl++ = '\0';
		if (!strcmp(line, "0") && !*ctrl)
			snprintf(v2, sizeof(v2), "%s", cg);
		else if (strstr(ctrl, "cpuset"))  /* "cpuset" or a co-mounted "cpu,cpuset" list */
			snprintf(v1, sizeof(v1), "%s", cg);
	}
	if (*v1) {
		rc = smpol_fs_path(fsroot, root, rootlen, "/sys/fs/cgroup/cpuset");
		if (rc == 0)
			rc = smpol_fs_path(fsroot, dir, dirlen, "/sys/fs/cgroup/cpuset%s", v1);
	} else if (*v2) {
		/* A hybrid system mounts v2 at /sys/fs/cgroup/unified. */
		rc = smpol_fs_path(fsroot, v2root, sizeof(v2root), "/sys/fs/cgroup/unified");
		if (rc == 0 && !is_dir(v2root))
			rc = smpol_fs_path(fsroot, v2root, sizeof(v2root), "/sys/fs/cgroup");
		if (rc == 0)
			rc = snprintf(root, rootlen, "%s", v2root) >= (int)rootlen ? -ENAMETOOLONG : 0;
		if (rc == 0)
			rc = snprintf(dir, dirlen, "%s%s", v2root, v2) >= (int)dirlen ? -ENAMETOOLONG : 0;
	} else {
		return smpol_fail(err, errlen, ENOENT, "the process is in no cgroup with a cpuset");
	}
	if (rc < 0)
		return smpol_fail(err, errlen, -rc, "the process's cgroup path is too long");
	return 0;
}

int smpol_cpuset_dir(pid_t pid, const char *fsroot, char *dir, size_t dirlen, char *root, size_t rootlen,
		    char *err, size_t errlen)
{
	char path[64], text[16384];
	int rc;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	rc = smpol_read_text(path, text, sizeof(text));
	if (rc < 0)
		return smpol_fail(err, errlen, rc == -ENOENT ? ESRCH : -rc, "cannot read %s: %s", path, strerror(-rc));
	return smpol_cpuset_dir_parse(text, fsroot, dir, dirlen, root, rootlen, err, errlen);
}

/* One directory: widen its explicit cpuset.mems when it lacks a node. */
static int grow_one(const char *cgdir, const struct smpol_bitmap *nodes, bool dry_run,
		    struct smpol_cpuset_change *changes, int *nchanges, char *err, size_t errlen)
{
	struct smpol_cpuset_change c;
	struct smpol_bitmap mems, want;
	int rc;

	if (snprintf(c.path, sizeof(c.path), "%s/cpuset.mems", cgdir) >= (int)sizeof(c.path))
		return smpol_fail(err, errlen, ENAMETOOLONG, "cgroup path too long: %s", cgdir);
	rc = smpol_read_text(c.path, c.before, sizeof(c.before));
	if (rc == -ENOENT || (rc == 0 && !c.before[0]))
		return 0;      /* no cpuset here, or an empty list that inherits */
	if (rc < 0)
		return smpol_fail(err, errlen, -rc, "cannot read %s: %s", c.path, strerror(-rc));
	rc = smpol_bitmap_parse_list(c.before, SMPOL_MAX_NODES, &mems, err, errlen);
	if (rc < 0)
		return smpol_fail(err, errlen, EINVAL, "%s holds '%s', not a node list", c.path, c.before);
	want = mems;
	smpol_bitmap_or(&want, nodes);
	if (smpol_bitmap_equal(&want, &mems))
		return 0;
	smpol_bitmap_format_list(&want, c.after, sizeof(c.after));
	if (!dry_run) {
		rc = smpol_write_text(c.path, c.after);
		if (rc < 0)
			return smpol_fail(err, errlen, -rc, "writing '%s' to %s failed: %s%s", c.after, c.path,
					 strerror(-rc), rc == -EINVAL ? " (a parent cpuset does not allow those nodes)" : "");
	}
	if (*nchanges < SMPOL_CPUSET_MAX_CHANGES)
		changes[(*nchanges)++] = c;
	return 0;
}

int smpol_cpuset_grow(const char *root, const char *dir, const struct smpol_bitmap *nodes, bool dry_run,
		     struct smpol_cpuset_change *changes, int *nchanges, char *err, size_t errlen)
{
	size_t rootlen = strlen(root), len = strlen(dir);
	char path[4096];

	*nchanges = 0;
	while (len > rootlen && dir[len - 1] == '/')
		len--;
	if (strncmp(dir, root, rootlen) || len >= sizeof(path))
		return smpol_fail(err, errlen, EINVAL, "%s is not below the cgroup root %s", dir, root);
	/* The root cpuset belongs to the kernel: it follows hotplug by itself. */
	/* Parents first: each '/' after the root ends an ancestor, then dir itself. */
	for (size_t i = rootlen + 1; i <= len; i++) {
		int rc;

		if (i < len && dir[i] != '/')
			continue;
		memcpy(path, dir, i);
		path[i] = '\0';
		rc = grow_one(path, nodes, dry_run, changes, nchanges, err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}
