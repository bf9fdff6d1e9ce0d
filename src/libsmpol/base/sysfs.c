/* sysfs.c - small-file I/O under a filesystem root (sysfs, procfs, fixtures). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs.h"

int smpol_fs_path(const char *fsroot, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	size_t used = 0;
	int n;

	if (!len)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	if (fsroot && *fsroot && strcmp(fsroot, "/")) {
		/* "/a/" + "/sys" would give "/a//sys": harmless, but keep paths readable */
		used = strlen(fsroot);
		while (used > 1 && fsroot[used - 1] == '/')
			used--;
		if (used >= len)
			return -ENAMETOOLONG;
		memcpy(buf, fsroot, used);
		buf[used] = '\0';
	}
	va_start(ap, fmt);
	n = vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - used)
		return -ENAMETOOLONG;
	return 0;
}

const char *smpol_read_error(int rc)
{
	if (rc == -SMPOL_ENOTREG)
		return "it is not a regular file (a FIFO, device, socket or directory), so it is not read";
	if (rc == -EFBIG)
		return "it is larger than any value this file may hold";
	return strerror(-rc);
}

int smpol_read_fd(int fd, char *buf, size_t len)
{
	struct stat st;
	size_t used = 0;
	int rc = 0;

	/* a FIFO would block its reader (slurmstepd) until someone writes to it */
	if (!len)
		rc = -ENOSPC;
	else if (fstat(fd, &st) < 0)
		rc = -errno;
	else if (!S_ISREG(st.st_mode))
		rc = -SMPOL_ENOTREG;
	if (rc) {
		close(fd);
		return rc;
	}
	/* sysfs hands out a file in one read, but procfs and fixtures may not */
	while (used < len - 1) {
		ssize_t got = read(fd, buf + used, len - 1 - used);

		if (got < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		if (got == 0)
			break;
		used += (size_t)got;
	}
	if (!rc && used == len - 1) {
		char extra;

		if (read(fd, &extra, 1) > 0)
			rc = -EFBIG;
	}
	close(fd);
	if (rc)
		return rc;
	buf[used] = '\0';
	while (used && buf[used - 1] == '\n')
		buf[--used] = '\0';
	return 0;
}

int smpol_read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	return fd < 0 ? -errno : smpol_read_fd(fd, buf, len);
}

int smpol_read_u64(const char *path, uint64_t *out)
{
	char text[64], *p, *end;
	unsigned long long v;
	int rc;

	rc = smpol_read_text(path, text, sizeof(text));
	if (rc)
		return rc;
	for (p = text; isspace((unsigned char)*p); p++)
		;
	/* strtoull would accept "-1" and a leading '+' */
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	while (isspace((unsigned char)*end))
		end++;
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

int smpol_write_text(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t done;
	int fd, rc = 0;

	struct stat st;

	/* O_TRUNC: sysfs ignores it, a regular file (a fixture) must not keep a longer old value.
	 * O_NONBLOCK: a FIFO must not block the writer. */
	fd = open(path, O_WRONLY | O_TRUNC | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -SMPOL_ENOTREG;
	}
	do
		done = write(fd, text, len);
	while (done < 0 && errno == EINTR);
	if (done < 0)
		rc = -errno;
	else if ((size_t)done != len)
		rc = -EIO;
	/* sysfs may report a store error only at close */
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}
