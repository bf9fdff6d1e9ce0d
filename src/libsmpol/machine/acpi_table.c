/* acpi_table.c - raw ACPI table header and byte access (see acpi_table.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acpi_table.h"
#include "error.h"
#include "sysfs.h"

/* No table this project reads comes near it; a bigger file is not a table. */
#define TABLE_MAX (1024 * 1024)

uint16_t smpol_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

uint32_t smpol_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint64_t smpol_le64(const uint8_t *p)
{
	return (uint64_t)smpol_le32(p) | (uint64_t)smpol_le32(p + 4) << 32;
}

uint8_t smpol_acpi_table_revision(const uint8_t *buf)
{
	return buf[8];
}

int smpol_acpi_table_check(const uint8_t *buf, size_t len, const char *signature, size_t min_len,
			   char *err, size_t errlen)
{
	uint8_t sum = 0;
	uint32_t declared;

	if (min_len < SMPOL_ACPI_HEADER_LEN)
		min_len = SMPOL_ACPI_HEADER_LEN;
	if (len < min_len)
		return smpol_fail(err, errlen, EBADMSG, "the %s table has %zu bytes, fewer than its %zu-byte header",
				  signature, len, min_len);
	if (memcmp(buf, signature, 4)) {
		char q[SMPOL_QUOTE_LEN];

		return smpol_fail(err, errlen, EBADMSG, "the %s table's signature is %s", signature,
				  smpol_quote_n((const char *)buf, 4, q, sizeof(q)));
	}
	declared = smpol_le32(buf + 4);
	if (declared != len)
		return smpol_fail(err, errlen, EBADMSG, "the %s table says it has %u bytes but %zu were read (%s)",
				  signature, declared, len, declared > len ? "cut short" : "trailing bytes");
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + buf[i]);
	if (sum)
		return smpol_fail(err, errlen, EBADMSG, "the %s table's checksum is wrong (its bytes sum to %u, not 0)",
				  signature, sum);
	return 0;
}

int smpol_acpi_table_read(const char *fsroot, const char *name, uint8_t **buf, size_t *len,
			  char *err, size_t errlen)
{
	char path[PATH_MAX];
	uint8_t *data;
	size_t used = 0;
	struct stat st;
	int fd, rc = 0;

	*buf = NULL;
	*len = 0;
	if (smpol_fs_path(fsroot, path, sizeof(path), "/sys/firmware/acpi/tables/%s", name))
		return smpol_fail(err, errlen, ENAMETOOLONG, "the filesystem root '%s' is too long", fsroot);
	/* O_NONBLOCK and a regular file only: a FIFO in a captured tree must not block */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		if (rc == -ENOENT)
			return rc;
		return smpol_fail(err, errlen, -rc, "cannot read %s: %s%s", path, strerror(-rc),
				  rc == -EACCES ? " (the firmware's tables are readable by root only)" : "");
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return smpol_fail(err, errlen, SMPOL_ENOTREG, "cannot read %s: %s", path,
				  smpol_read_error(-SMPOL_ENOTREG));
	}
	data = malloc(TABLE_MAX + 1);
	if (!data) {
		close(fd);
		return smpol_fail(err, errlen, ENOMEM, "out of memory");
	}
	for (;;) {
		ssize_t n = read(fd, data + used, TABLE_MAX + 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = smpol_fail(err, errlen, errno, "cannot read %s: %s", path, strerror(errno));
			break;
		}
		if (n == 0)
			break;
		used += (size_t)n;
		if (used > TABLE_MAX) {
			rc = smpol_fail(err, errlen, EFBIG, "%s is larger than %d bytes: not an ACPI table this "
					"reader takes", path, TABLE_MAX);
			break;
		}
	}
	close(fd);
	if (rc) {
		free(data);
		return rc;
	}
	*buf = data;
	*len = used;
	return 0;
}
