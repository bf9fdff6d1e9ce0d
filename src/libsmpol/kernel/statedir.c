/* statedir.c - the state directory's rules, locks and files (see statedir.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "statedir.h"
#include "sysfs.h"

#define LOCK_PAUSE_MAX_MS 64   /* polling a held lock: 1, 2, 4 ... 64 ms between tries */

int smpol_statedir_path(const struct smpol_host *h, const char *name, char *buf, size_t len)
{
	return snprintf(buf, len, "%s/%s", h->statedir, name) < (int)len ? 0 : -ENAMETOOLONG;
}

/* Why a call failed; a read-only file system is named with what to do. */
static const char *reason(int e)
{
	return e == EROFS ? "the file system is read-only; give statedir= (or --statedir) a writable directory, "
			    "such as one under /run" : strerror(e);
}

/* The state directory, checked by the rules in statedir.h: a descriptor, -ENOENT
 * quietly when it is missing and !create, or -errno with a sentence. */
static int open_dir(const struct smpol_host *h, bool create, char *err, size_t errlen)
{
	const char *dir = h->statedir;
	struct stat st;
	int fd, e;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	/* made only when missing: a mkdir first would cost every step's open a call */
	if (fd < 0 && errno == ENOENT && create) {
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return smpol_fail(err, errlen, errno, "cannot create the state directory %s: %s", dir,
					  reason(errno));
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0) {
		e = errno;
		if (e == ENOENT && !create)
			return -ENOENT;
		if ((e == ELOOP || e == ENOTDIR) && lstat(dir, &st) == 0)
			return smpol_fail(err, errlen, e, "the state directory %s is %s: it is refused, never followed; "
					  "remove it or give another statedir", dir,
					  S_ISLNK(st.st_mode) ? "a symbolic link" : "not a directory");
		if (e == EACCES)
			return smpol_fail(err, errlen, e, "the state directory %s is closed to uid %u: only its owner "
					  "(root) may use it", dir, (unsigned)geteuid());
		return smpol_fail(err, errlen, e, "cannot open the state directory %s: %s", dir, strerror(e));
	}
	e = 0;
	if (fstat(fd, &st) < 0) {
		e = smpol_fail(err, errlen, errno, "cannot stat the state directory %s: %s", dir, strerror(errno));
	} else if (st.st_uid != geteuid()) {
		e = smpol_fail(err, errlen, EPERM, "the state directory %s belongs to uid %u, not to uid %u (this "
			       "process): whoever owns it could hold its locks and stall jobs, so it is not used; "
			       "remove it or give another statedir", dir, (unsigned)st.st_uid, (unsigned)geteuid());
	} else if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		e = smpol_fail(err, errlen, EPERM, "the state directory %s may be written by its group or others "
			       "(mode %04o), so it is not used: make it 0700 or remove it", dir,
			       (unsigned)(st.st_mode & 07777));
	} else if ((st.st_mode & 077) && fchmod(fd, 0700) < 0) {
		e = smpol_fail(err, errlen, errno, "cannot make the state directory %s 0700: %s", dir, reason(errno));
	}
	if (e) {
		close(fd);
		return e;
	}
	return fd;
}

/* STATEDIR/NAME at dfd with flags (never following a link), a regular file made 0600. */
static int open_file(const struct smpol_host *h, int dfd, const char *name, int flags, char *err, size_t errlen)
{
	char path[4200];
	struct stat st;
	int fd, e = 0;

	smpol_statedir_path(h, name, path, sizeof(path));
	fd = openat(dfd, name, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0) {
		e = errno;
		if (e == ENOENT && !(flags & O_CREAT))
			return -ENOENT;
		return smpol_fail(err, errlen, e, "cannot open %s: %s", path, e == ELOOP ?
				  "it is a symbolic link (refused, never followed)" : reason(e));
	}
	if (fstat(fd, &st) < 0)
		e = smpol_fail(err, errlen, errno, "cannot stat %s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		e = smpol_fail(err, errlen, SMPOL_ENOTREG, "%s is not a regular file: remove it", path);
	else if ((st.st_mode & 077) && fchmod(fd, 0600) < 0)
		e = smpol_fail(err, errlen, errno, "cannot make %s 0600: %s", path, reason(errno));
	if (e) {
		close(fd);
		return e;
	}
	return fd;
}

static long elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* flock with `how`, tried until timeout_ms have passed: 0, -ETIMEDOUT, -EWOULDBLOCK
 * (LOCK_NB: one try) or -errno. Polling keeps the wait bounded without a signal. */
static int lock_bounded(int fd, int how, unsigned timeout_ms)
{
	struct timespec start, pause = { 0, 0 };
	long pause_ms = 1;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		long left;

		if (flock(fd, how | LOCK_NB) == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK)
			return -errno;
		if (how & LOCK_NB)
			return -EWOULDBLOCK;
		left = (long)timeout_ms - elapsed_ms(&start);
		if (left <= 0)
			return -ETIMEDOUT;
		pause.tv_nsec = (pause_ms < left ? pause_ms : left) * 1000000;
		nanosleep(&pause, NULL);
		if (pause_ms < LOCK_PAUSE_MAX_MS)
			pause_ms *= 2;
	}
}

int smpol_statedir_lock(const struct smpol_host *h, const char *name, bool create, int how, int *fd,
		       char *err, size_t errlen)
{
	char path[4200];
	int dfd, rc;

	*fd = -1;
	if (smpol_statedir_path(h, name, path, sizeof(path)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory name '%s' is too long", h->statedir);
	dfd = open_dir(h, create, err, errlen);
	if (dfd < 0)
		return dfd;
	rc = open_file(h, dfd, name, O_RDWR | O_CREAT, err, errlen);
	close(dfd);
	if (rc < 0)
		return rc;
	*fd = rc;
	rc = lock_bounded(*fd, how, h->lock_timeout_ms);
	if (rc == 0)
		return 0;
	close(*fd);
	*fd = -1;
	if (rc == -ETIMEDOUT)
		return smpol_fail(err, errlen, ETIMEDOUT, "cannot lock %s: another process held it for longer than "
				  "%u.%03u s (lock_timeout=); 'lslocks' names the holder", path,
				  h->lock_timeout_ms / 1000, h->lock_timeout_ms % 1000);
	if (rc == -EWOULDBLOCK)
		return smpol_fail(err, errlen, EWOULDBLOCK, "cannot lock %s: another process holds it", path);
	return smpol_fail(err, errlen, -rc, "cannot lock %s: %s", path, strerror(-rc));
}

/* The directory NAME is in, relative to the state directory ("." or "spool"), opened
 * without following a link; -errno. */
static int parent_of(int dfd, const char *name)
{
	const char *slash = strrchr(name, '/');
	char sub[4200];
	int fd;

	if (!slash) {
		fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	} else {
		snprintf(sub, sizeof(sub), "%.*s", (int)(slash - name), name);
		fd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

int smpol_statedir_mkdir(const struct smpol_host *h, const char *name, char *err, size_t errlen)
{
	char path[4200];
	struct stat st;
	int dfd, found, rc = 0;

	if (smpol_statedir_path(h, name, path, sizeof(path)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory name '%s' is too long", h->statedir);
	dfd = open_dir(h, true, err, errlen);
	if (dfd < 0)
		return dfd;
	/* made only when missing, as the state directory is */
	found = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW);
	if (found < 0 && errno == ENOENT) {
		if (mkdirat(dfd, name, 0700) < 0 && errno != EEXIST)
			rc = smpol_fail(err, errlen, errno, "cannot create %s: %s", path, reason(errno));
		else
			found = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW);
	}
	if (rc == 0 && (found < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()))
		rc = smpol_fail(err, errlen, ENOTDIR, "%s is not a directory of this user's: remove it", path);
	close(dfd);
	return rc;
}

int smpol_statedir_write(const struct smpol_host *h, const char *name, const char *text,
			 enum smpol_statedir_sync sync, char *err, size_t errlen)
{
	bool durable = sync == SMPOL_STATEDIR_DURABLE;
	const char *base = strrchr(name, '/');
	char path[4200], tmp[4300];
	size_t len = strlen(text);
	int dfd, fd, rc = 0;

	/* the temporary file goes beside NAME, in its subdirectory if it has one */
	if (smpol_statedir_path(h, name, path, sizeof(path)) < 0 ||
	    snprintf(tmp, sizeof(tmp), "%.*s.%s.tmp", base ? (int)(base + 1 - name) : 0, name,
		     base ? base + 1 : name) >= (int)sizeof(tmp))
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory name '%s' is too long", h->statedir);
	dfd = open_dir(h, true, err, errlen);
	if (dfd < 0)
		return dfd;
	fd = open_file(h, dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC, err, errlen);
	if (fd < 0) {
		close(dfd);
		return fd;
	}
	errno = 0;
	if (write(fd, text, len) != (ssize_t)len || (durable && fsync(fd) < 0))
		rc = errno ? -errno : -EIO;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && renameat(dfd, tmp, dfd, name) < 0)
		rc = -errno;
	if (!rc && durable) {
		int pfd = parent_of(dfd, name);

		rc = pfd < 0 ? pfd : fsync(pfd) < 0 ? -errno : 0;
		if (pfd >= 0)
			close(pfd);
	}
	if (rc)
		unlinkat(dfd, tmp, 0);
	close(dfd);
	if (rc)
		return smpol_fail(err, errlen, -rc, "cannot write %s: %s", path, reason(-rc));
	return 0;
}

int smpol_statedir_read(const struct smpol_host *h, const char *name, char *buf, size_t len,
			char *err, size_t errlen)
{
	char path[4200];
	int dfd, fd, rc;

	if (smpol_statedir_path(h, name, path, sizeof(path)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory name '%s' is too long", h->statedir);
	dfd = open_dir(h, false, err, errlen);
	if (dfd < 0)
		return dfd;
	fd = open_file(h, dfd, name, O_RDONLY, err, errlen);
	close(dfd);
	if (fd < 0)
		return fd;
	rc = smpol_read_fd(fd, buf, len);
	if (rc < 0)
		return smpol_fail(err, errlen, -rc, "cannot read %s: %s", path, smpol_read_error(rc));
	return 0;
}

int smpol_statedir_list(const struct smpol_host *h, DIR **d, char *err, size_t errlen)
{
	int dfd = open_dir(h, false, err, errlen);

	*d = NULL;
	if (dfd < 0)
		return dfd;
	*d = fdopendir(dfd);
	if (!*d) {
		int e = errno;

		close(dfd);
		return smpol_fail(err, errlen, e, "cannot read the state directory %s: %s", h->statedir, strerror(e));
	}
	return 0;
}

int smpol_statedir_remove(const struct smpol_host *h, const char *name, enum smpol_statedir_sync sync, char *err,
			  size_t errlen)
{
	char path[4200];
	int dfd, rc = 0;

	if (smpol_statedir_path(h, name, path, sizeof(path)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory name '%s' is too long", h->statedir);
	dfd = open_dir(h, false, err, errlen);
	if (dfd == -ENOENT)
		return 0;
	if (dfd < 0)
		return dfd;
	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
		rc = smpol_fail(err, errlen, errno, "%s cannot be removed: %s", path, reason(errno));
	else if (sync == SMPOL_STATEDIR_DURABLE)
		fsync(dfd);
	close(dfd);
	return rc;
}
