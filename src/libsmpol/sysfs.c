/* sysfs.c - small-file I/O under a filesystem root (sysfs, procfs, fixtures). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int smpol_read_text(const char *path, char *buf, size_t len)
{
	size_t used = 0;
	int fd, rc = 0;

	if (!len)
		return -ENOSPC;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
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

	/* O_TRUNC: sysfs ignores it, a regular file (a fixture) must not keep a longer old value. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
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
