/* statedir.h - the plugin's state directory: flock-held locks and files replaced whole. */
#ifndef SMPOL_STATEDIR_H
#define SMPOL_STATEDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "host.h"

/*
 * smpol_statedir_lock - open the host's STATEDIR/NAME (made when missing) and flock it with `how`
 * (LOCK_EX, LOCK_SH); *fd holds the lock until closed. create: make the directory
 * when missing; otherwise a missing directory or lock file is -ENOENT without a
 * sentence. A lock file this process may not write is opened read-only (a reader).
 * 0 or -errno with a sentence.
 */
int smpol_statedir_lock(const struct smpol_host *h, const char *name, bool create, int how, int *fd,
		       char *err, size_t errlen);

/*
 * smpol_statedir_write - replace the host's STATEDIR/NAME by text where a crash never
 * leaves half of it: a temporary file (mode 0600), fsync, rename, fsync of the
 * directory. The directory is made (0700) when missing. 0 or -errno with a sentence
 * naming the file.
 */
int smpol_statedir_write(const struct smpol_host *h, const char *name, const char *text,
			 char *err, size_t errlen);

/* Remove STATEDIR/NAME durably (a missing file is no error). 0 or -errno with a sentence. */
int smpol_statedir_remove(const struct smpol_host *h, const char *name, char *err, size_t errlen);

/* STATEDIR/NAME into buf. 0 or -ENAMETOOLONG. */
int smpol_statedir_path(const struct smpol_host *h, const char *name, char *buf, size_t len);

#endif
