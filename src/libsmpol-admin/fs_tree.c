/* fs_tree.c - look a captured tree over for files that block readers (see fs_tree.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs_tree.h"

#define MAX_DEPTH 64

struct walk {
	char path[4096];   /* the entry looked at, for the report */
	long entries;
	char *found;
	size_t len;
};

static const char *kind(mode_t mode)
{
	return S_ISFIFO(mode) ? "a FIFO" : S_ISSOCK(mode) ? "a socket" : S_ISCHR(mode) ? "a character device" :
	       S_ISBLK(mode) ? "a block device" : "not a regular file";
}

static int walk_dir(struct walk *w, int dfd, int depth);

/* One entry of the directory dfd: 1 when it is special, else 0, -errno or -E2BIG. */
static int look_at(struct walk *w, int dfd, const char *name, int depth)
{
	struct stat st, target;
	size_t used = strlen(w->path);
	int rc = 0, sub;

	if (++w->entries > SMPOL_TREE_MAX_ENTRIES)
		return smpol_fail(w->found, w->len, E2BIG, "more than %d entries", SMPOL_TREE_MAX_ENTRIES);
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;   /* gone since it was listed */
	snprintf(w->path + used, sizeof(w->path) - used, "/%s", name);
	/* a link is judged by what it names (a reader follows it), but never walked:
	 * sysfs's links go round in circles */
	if (S_ISLNK(st.st_mode) && fstatat(dfd, name, &target, 0) == 0 && !S_ISREG(target.st_mode) &&
	    !S_ISDIR(target.st_mode)) {
		snprintf(w->found, w->len, "%s (a link to %s)", w->path, kind(target.st_mode));
		rc = 1;
	} else if (!S_ISLNK(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		snprintf(w->found, w->len, "%s (%s)", w->path, kind(st.st_mode));
		rc = 1;
	} else if (S_ISDIR(st.st_mode)) {
		sub = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			rc = walk_dir(w, sub, depth + 1);
	}
	if (rc == 0)
		w->path[used] = '\0';
	return rc;
}

/* Every entry of dfd (closed on return), depth first. */
static int walk_dir(struct walk *w, int dfd, int depth)
{
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (depth > MAX_DEPTH) {
		close(dfd);
		return smpol_fail(w->found, w->len, E2BIG, "%s is more than %d directories deep", w->path, MAX_DEPTH);
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;   /* unreadable: a reader cannot open what is in it either */
	}
	while (!rc && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			rc = look_at(w, dirfd(d), e->d_name, depth);
	closedir(d);
	return rc;
}

int smpol_tree_find_special(const char *root, char *found, size_t len)
{
	struct walk w = { .found = found, .len = len };
	int dfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return smpol_fail(found, len, errno, "cannot open %s: %s", root, strerror(errno));
	snprintf(w.path, sizeof(w.path), "%s", strcmp(root, "/") ? root : "");
	return walk_dir(&w, dfd, 0);
}
