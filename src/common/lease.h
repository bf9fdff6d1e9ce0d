/* lease.h - a job step's temporary ownership of the global sysfs weights.
 *
 * Acquire: take the lock (flock on STATEDIR/lock), refuse if a live step of another
 * job holds the lease, recover a dead holder's journal, write the journal (the exact
 * prior table and the owner, fsync'ed, renamed into place), then write the weights.
 * Release: lock, check the owner, restore the journaled table, remove the journal.
 * A holder is alive when its pid exists with the same start time (so a recycled pid
 * does not keep a dead lease alive).
 */
#ifndef MPOL_LEASE_H
#define MPOL_LEASE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "wi.h"

struct mpol_lease_owner {
	uint32_t job_id;
	uint32_t step_id;
	uid_t uid;
	pid_t pid;                 /* slurmstepd (or mpolctl) holding it */
	uint64_t pid_start;        /* /proc/PID/stat starttime, guards against reuse */
};

struct mpol_lease_state {
	bool held;                 /* a journal exists */
	bool holder_alive;
	struct mpol_lease_owner owner;
	struct mpol_wi_table saved; /* the table to restore */
};

/* Fill owner->pid_start for owner->pid from /proc (under fsroot). */
int mpol_lease_owner_self(const char *fsroot, struct mpol_lease_owner *owner, char *err, size_t errlen);

int mpol_lease_acquire(const char *statedir, const char *fsroot, const struct mpol_lease_owner *owner,
		       const struct mpol_wi_table *weights, const struct mpol_bitmap *which,
		       char *err, size_t errlen);

int mpol_lease_release(const char *statedir, const char *fsroot, const struct mpol_lease_owner *owner,
		       char *err, size_t errlen);

/* Restore a dead holder's journal (force: even when the holder looks alive). */
int mpol_lease_recover(const char *statedir, const char *fsroot, bool force,
		       struct mpol_lease_state *found, char *err, size_t errlen);

int mpol_lease_inspect(const char *statedir, const char *fsroot, struct mpol_lease_state *st,
		       char *err, size_t errlen);

#endif
