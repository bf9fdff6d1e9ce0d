/* lease.h - a job step's temporary ownership of the global sysfs weights.
 *
 * Acquire: take the lock (flock on STATEDIR/lock), refuse if a live step of another
 * job holds the lease, recover a dead holder's journal, write the journal (the exact
 * prior table and the owner, fsync'ed, renamed into place), then write the weights.
 * Release: lock, check the owner, restore the journaled table, remove the journal.
 * A holder is alive when its pid exists with the same start time (so a recycled pid
 * does not keep a dead lease alive). Holders are processes of this host: /proc is
 * always the real one, even when fsroot points sysfs at a test tree.
 *
 * Files in STATEDIR: "lock" (flock), "weights.journal" (three lines: a version line,
 * "owner job=J step=S uid=U pid=P start=T", "saved <smpol_wi_format text>"). Every
 * call takes the lock for its whole duration, so two steps never interleave writes,
 * and waits for it at most the host's lock_timeout_ms (-ETIMEDOUT).
 */
#ifndef SMPOL_LEASE_H
#define SMPOL_LEASE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "host.h"
#include "wi.h"

struct smpol_lease_owner {
	uint32_t job_id;
	uint32_t step_id;
	uid_t uid;
	pid_t pid;                 /* slurmstepd (or mpolctl) holding it */
	uint64_t pid_start;        /* /proc/PID/stat starttime, guards against reuse */
};

struct smpol_lease_state {
	bool held;                 /* a journal exists */
	bool holder_alive;
	bool restored;             /* recover: the journal was put back and removed */
	bool auto_failed;          /* recover: auto=true was refused (ENODEV), nodes restored */
	struct smpol_lease_owner owner;
	struct smpol_wi_table saved; /* the table to restore */
};

/* Fill owner->pid_start for owner->pid (0 = the calling process, then set) from /proc. */
int smpol_lease_owner_self(struct smpol_lease_owner *owner, char *err, size_t errlen);

/* Is this owner's process still the one that took the lease (and not a zombie)? */
bool smpol_lease_owner_alive(const struct smpol_lease_owner *owner);

/*
 * smpol_lease_acquire - journal the whole current table, then write weights[n] for n in
 * `which`. Creates statedir (0700, statedir.h) when missing; a lock held longer than
 * the host's lock_timeout_ms is -ETIMEDOUT (nothing is written). -EBUSY when a live process holds the
 * lease (err names its job, step, uid and pid): nothing is written. A dead holder's
 * journal is restored first. When writing fails, the journaled table is put back.
 * The same owner acquiring again rewrites the weights under its existing journal.
 */
int smpol_lease_acquire(const struct smpol_host *h, const struct smpol_lease_owner *owner,
		       const struct smpol_wi_table *weights, const struct smpol_bitmap *which,
		       char *err, size_t errlen);

/*
 * smpol_lease_release - restore the journaled table and remove the journal.
 * -ENOENT when there is no journal, -EPERM when another owner holds it (nothing is
 * touched). When auto=true is refused (ENODEV), *auto_failed is set, err says so and
 * the return is 0. When a node cannot be written the journal stays for
 * `mpolctl recover`. auto_failed may be NULL.
 */
int smpol_lease_release(const struct smpol_host *h, const struct smpol_lease_owner *owner,
		       bool *auto_failed, char *err, size_t errlen);

/* Restore a dead holder's journal (force: even when the holder looks alive).
 * No journal: 0 with found->held false. A live holder without force: -EBUSY. */
int smpol_lease_recover(const struct smpol_host *h, bool force,
		       struct smpol_lease_state *found, char *err, size_t errlen);

/*
 * smpol_lease_set_system - set the node's system weights (mpolctl apply --system) under
 * the lease lock, without a journal: they are meant to stay. weights NULL hands the
 * table back to the kernel (auto=true; -ENODEV/-EOPNOTSUPP as smpol_wi_set_auto).
 * -EBUSY while a live step holds the lease (its release would undo them); a dead
 * holder's journal is restored first.
 */
int smpol_lease_set_system(const struct smpol_host *h, const struct smpol_wi_table *weights,
			  const struct smpol_bitmap *which, char *err, size_t errlen);

/* Read the journal without changing anything (st->held false when there is none). */
int smpol_lease_inspect(const struct smpol_host *h, struct smpol_lease_state *st, char *err, size_t errlen);

#endif
