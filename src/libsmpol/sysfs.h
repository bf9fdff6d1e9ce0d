/* sysfs.h - small-file I/O under a filesystem root (sysfs, procfs, fixtures). */
#ifndef SMPOL_SYSFS_H
#define SMPOL_SYSFS_H

#include <stddef.h>
#include <stdint.h>

/*
 * smpol_fs_path - buf = fsroot + the formatted absolute path ("/sys/...").
 * fsroot NULL or "" means "/". Returns 0 or -ENAMETOOLONG.
 */
int smpol_fs_path(const char *fsroot, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Read a whole small file into buf (NUL-terminated, trailing newlines removed). 0 or -errno. */
int smpol_read_text(const char *path, char *buf, size_t len);

/* Read one unsigned decimal number (surrounding whitespace allowed). -EINVAL on anything else. */
int smpol_read_u64(const char *path, uint64_t *out);

/* Write text to an existing file in one write(2). 0 or -errno (the kernel's answer). */
int smpol_write_text(const char *path, const char *text);

#endif
