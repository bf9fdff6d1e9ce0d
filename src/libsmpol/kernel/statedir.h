/* statedir.h - the plugin's state directory: locks, files replaced whole, and the rules
 * that keep both out of other users' reach.
 *
 * Anyone who can open a lock file can flock it (a read-only descriptor is enough) and
 * so stall every step that waits for it. The directory is therefore this process's
 * effective user's alone (root's on a node), and every call checks it before use:
 *   - it is opened without following a symbolic link; a link, a file or anything else
 *     at its path is refused, never followed or replaced;
 *   - it must be owned by the caller's effective uid and not writable by its group or
 *     others; such a directory made by someone else is refused as it is (never
 *     chmod'ed into use); one of ours that others may read or enter (0755 from an
 *     earlier release) is made 0700;
 *   - a missing one is made 0700 when the caller may create (its parent must exist);
 *   - files in it are made 0600, opened without following links, and must be regular.
 * No lock is waited for longer than the host's lock_timeout_ms: then the call fails with
 * -ETIMEDOUT and the caller goes on without what the lock guards, and says so.
 */
#ifndef SMPOL_STATEDIR_H
#define SMPOL_STATEDIR_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>

#include "host.h"

/*
 * smpol_statedir_lock - open the host's STATEDIR/NAME (made when missing) and flock it with `how`
 * (LOCK_EX, LOCK_SH, optionally | LOCK_NB: then no wait at all); *fd holds the lock until
 * closed. create: make the directory when missing; otherwise a missing directory is
 * -ENOENT without a sentence (the lock file is made in an existing directory). A lock held by someone else for
 * longer than the host's lock_timeout_ms is -ETIMEDOUT (-EWOULDBLOCK with LOCK_NB).
 * 0 or -errno with a sentence (a read-only file system says so).
 */
int smpol_statedir_lock(const struct smpol_host *h, const char *name, bool create, int how, int *fd,
		       char *err, size_t errlen);

/* What a write or a removal must survive. DURABLE: a power loss too (the weights
 * journal, a record waiting for slurmctld). VOLATILE: a process crash only, for what a
 * reboot makes moot anyway or the kernel writes back within seconds (a running step's
 * kept placement, a record handed to the node's courier); it spares a step's start and
 * end their fsyncs. */
enum smpol_statedir_sync { SMPOL_STATEDIR_DURABLE, SMPOL_STATEDIR_VOLATILE };

/*
 * smpol_statedir_write - replace the host's STATEDIR/NAME by text where a crash never
 * leaves half of it: a temporary file (mode 0600) beside it, renamed over NAME; when
 * DURABLE, the file is fsynced before and its directory after. The state directory is
 * made (0700) when missing; a subdirectory in NAME ("spool/7.0.json") must exist
 * (smpol_statedir_mkdir). 0 or -errno with a sentence naming the file.
 */
int smpol_statedir_write(const struct smpol_host *h, const char *name, const char *text,
			 enum smpol_statedir_sync sync, char *err, size_t errlen);

/*
 * smpol_statedir_read - STATEDIR/NAME's text into buf (as smpol_read_text). -ENOENT
 * without a sentence when the directory or the file is missing; 0 or -errno with one.
 */
int smpol_statedir_read(const struct smpol_host *h, const char *name, char *buf, size_t len,
			char *err, size_t errlen);

/* The directory's entries, checked as above: *d (closedir it). -ENOENT without a sentence
 * when it is missing; 0 or -errno with one. */
int smpol_statedir_list(const struct smpol_host *h, DIR **d, char *err, size_t errlen);

/* Make the subdirectory STATEDIR/NAME (0700) when missing, the state directory too;
 * anything else at that path is refused. 0 or -errno with a sentence. */
int smpol_statedir_mkdir(const struct smpol_host *h, const char *name, char *err, size_t errlen);

/* Remove STATEDIR/NAME (a missing file is no error); when DURABLE, its directory is
 * fsynced after. 0 or -errno with a sentence. */
int smpol_statedir_remove(const struct smpol_host *h, const char *name, enum smpol_statedir_sync sync, char *err,
			  size_t errlen);

/* STATEDIR/NAME into buf. 0 or -ENAMETOOLONG. */
int smpol_statedir_path(const struct smpol_host *h, const char *name, char *buf, size_t len);

#endif
