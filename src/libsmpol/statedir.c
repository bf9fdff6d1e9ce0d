#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "statedir.h"

int smpol_statedir_lock(const char *statedir, const char *name, bool create, int how, int *fd,
		       char *err, size_t errlen)
{
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
