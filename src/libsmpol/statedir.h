/* statedir.h - flock-held lock files in the plugin's state directory. */
#ifndef SMPOL_STATEDIR_H
#define SMPOL_STATEDIR_H

#include <stdbool.h>
#include <stddef.h>

/*
 * smpol_statedir_lock - open STATEDIR/NAME (made when missing) and flock it with `how`
 * (LOCK_EX, LOCK_SH); *fd holds the lock until closed. create: make the directory
 * when missing; otherwise a missing directory or lock file is -ENOENT without a
 * sentence. A lock file this process may not write is opened read-only (a reader).
 * 0 or -errno with a sentence.
 */
int smpol_statedir_lock(const char *statedir, const char *name, bool create, int how, int *fd,
		       char *err, size_t errlen);

#endif
