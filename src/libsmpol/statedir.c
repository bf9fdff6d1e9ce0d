#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "statedir.h"

int smpol_statedir_path(const struct smpol_host *h, const char *name, char *buf, size_t len)
{
	return snprintf(buf, len, "%s/%s", h->statedir, name) < (int)len ? 0 : -ENAMETOOLONG;
}

static int sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

int smpol_statedir_write(const struct smpol_host *h, const char *name, const char *text,
			 char *err, size_t errlen)
{
	char path[4200], tmp[4300];
	size_t len = strlen(text);
	int fd, rc = 0;

	if (smpol_statedir_path(h, name, path, sizeof(path)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory name '%s' is too long", h->statedir);
	if (mkdir(h->statedir, 0700) < 0 && errno != EEXIST)
		return smpol_fail(err, errlen, errno, "cannot create the state directory %s: %s", h->statedir,
				  strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", h->statedir, name);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return smpol_fail(err, errlen, errno, "cannot create %s: %s", tmp, strerror(errno));
	errno = 0;
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) < 0)
		rc = errno ? -errno : -EIO;
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	if (!rc)
		rc = sync_dir(h->statedir);
	if (rc) {
		unlink(tmp);
		return smpol_fail(err, errlen, -rc, "cannot write %s: %s", path, strerror(-rc));
	}
	return 0;
}

int smpol_statedir_remove(const struct smpol_host *h, const char *name, char *err, size_t errlen)
{
	char path[4200];

	if (smpol_statedir_path(h, name, path, sizeof(path)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory name '%s' is too long", h->statedir);
	if (unlink(path) < 0 && errno != ENOENT)
		return smpol_fail(err, errlen, errno, "%s cannot be removed: %s", path, strerror(errno));
	sync_dir(h->statedir);
	return 0;
}

int smpol_statedir_lock(const struct smpol_host *h, const char *name, bool create, int how, int *fd,
		       char *err, size_t errlen)
{
	const char *statedir = h->statedir;
	char path[4200];

	*fd = -1;
	if (snprintf(path, sizeof(path), "%s/%s", statedir, name) >= (int)sizeof(path))
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory name '%s' is too long", statedir);
	if (create && mkdir(statedir, 0755) < 0 && errno != EEXIST)
		return smpol_fail(err, errlen, errno, "cannot create the state directory %s: %s",
				 statedir, strerror(errno));
	*fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (*fd < 0 && (errno == EACCES || errno == EROFS))
		*fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);   /* a reader */
	if (*fd < 0) {
		if (!create && errno == ENOENT)
			return -ENOENT;
		return smpol_fail(err, errlen, errno, "cannot open the lock %s: %s", path, strerror(errno));
	}
	while (flock(*fd, how) < 0) {
		if (errno != EINTR) {
			int e = errno;

			close(*fd);
			*fd = -1;
			return smpol_fail(err, errlen, e, "cannot lock %s: %s", path, strerror(e));
		}
	}
	return 0;
}
