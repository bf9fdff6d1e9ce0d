/* sysfs.h - small-file I/O under a filesystem root (sysfs, procfs, fixtures). */
#ifndef SMPOL_SYSFS_H
#define SMPOL_SYSFS_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/*
 * smpol_fs_path - buf = fsroot + the formatted absolute path ("/sys/...").
 * fsroot NULL or "" means "/". Returns 0 or -ENAMETOOLONG.
 */
int smpol_fs_path(const char *fsroot, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* What refuses a file that is not a regular one (FIFO, device, socket, directory). */
#define SMPOL_ENOTREG ENOSTR

/*
 * Read a whole small file into buf (NUL-terminated, trailing newlines removed), never
 * blocking: it is opened O_NONBLOCK and must be a regular file (sysfs and procfs
 * attributes are); one larger than len - 1 bytes is -EFBIG. 0 or -errno
 * (-SMPOL_ENOTREG for a FIFO, device, socket or directory).
 */
int smpol_read_text(const char *path, char *buf, size_t len);

/* The same for an open descriptor, which is closed on return. */
int smpol_read_fd(int fd, char *buf, size_t len);

/* The reason for a smpol_read_* or smpol_write_text error, for "cannot read PATH: REASON". */
const char *smpol_read_error(int rc);

/* Read one unsigned decimal number (surrounding whitespace allowed). -EINVAL on anything else. */
int smpol_read_u64(const char *path, uint64_t *out);

/* Write text to an existing regular file in one write(2), never blocking. 0 or -errno
 * (the kernel's answer, or -SMPOL_ENOTREG). */
int smpol_write_text(const char *path, const char *text);

#endif
