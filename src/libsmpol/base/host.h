/* host.h - the node libsmpol acts on: where its sysfs is read and written, and where
 * the plugin keeps its state.
 *
 * One small value passed by pointer, as hwloc's topology carries its fsroot, instead
 * of two path strings threaded through every call:
 *   fsroot    "/" on a live node; a captured sysfs tree in tests and containers.
 *             /proc is always the real one (processes are this host's).
 *   statedir  the weights lease's journal, the locks and each running step's kept
 *             placement (default /run/slurm-mempolicy); statedir.h has its rules.
 *   lock_timeout_ms  how long a lock in statedir is waited for before the caller goes
 *             on without what it guards (a step never waits longer; lock_timeout=).
 */
#ifndef SMPOL_HOST_H
#define SMPOL_HOST_H

#include <stddef.h>

#define SMPOL_DEFAULT_STATEDIR "/run/slurm-mempolicy"
#define SMPOL_DEFAULT_LOCK_TIMEOUT_MS 5000
#define SMPOL_MAX_LOCK_TIMEOUT_MS 300000
#define SMPOL_HOST_PATH_MAX 1024   /* either directory is shorter */

/* Its directories are its own heap strings, as long as they are (a step keeps one for
 * days): smpol_host_copy, never `=`, and smpol_host_free. A pointer to a host lends it. */
struct smpol_host {
	char *fsroot;          /* "/" or an absolute directory */
	char *statedir;        /* an absolute directory */
	unsigned lock_timeout_ms;
};

/* fsroot "/", the default state directory and lock timeout into h, which holds nothing
 * before. 0, or -ENOMEM (h then holds nothing). */
int smpol_host_default(struct smpol_host *h);

/* dst = src, with strings of its own (what dst held is freed). 0, or -ENOMEM (dst
 * unchanged). */
int smpol_host_copy(struct smpol_host *dst, const struct smpol_host *src);

/* Free the directories; h then holds nothing (freeing it again does nothing). */
void smpol_host_free(struct smpol_host *h);

/*
 * Set one directory. It must be absolute (a relative state directory would depend on
 * the caller's working directory; the plugin and mpolctl refuse it alike): -EINVAL
 * "the state directory 'x' is not an absolute path...", -ENAMETOOLONG when too long.
 * fsroot "" means "/". -ENOMEM. Nothing changes on error.
 */
int smpol_host_set_fsroot(struct smpol_host *h, const char *dir, char *err, size_t errlen);
int smpol_host_set_statedir(struct smpol_host *h, const char *dir, char *err, size_t errlen);

#endif
