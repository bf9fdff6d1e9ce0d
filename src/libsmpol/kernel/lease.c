/* lease.c - journal, lock and restore for the global weighted-interleave table. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "lease.h"
#include "proc_stat.h"
#include "statedir.h"

#define JOURNAL_NAME "weights.journal"
#define JOURNAL_VERSION "slurm-mempolicy lease v1"

struct lease_files {
	const struct smpol_host *host;
	int lock_fd;
	char journal[4200];
};

int smpol_lease_owner_self(struct smpol_lease_owner *owner, char *err, size_t errlen)
{
	int rc;

	if (owner->pid == 0)
		owner->pid = getpid();
	rc = smpol_proc_stat(owner->pid, &owner->pid_start, NULL, NULL, 0);
	if (rc < 0)
		return smpol_fail(err, errlen, -rc, "cannot read the start time of pid %d from /proc: %s",
				 (int)owner->pid, strerror(-rc));
	return 0;
}

bool smpol_lease_owner_alive(const struct smpol_lease_owner *owner)
{
	return smpol_proc_alive(owner->pid, owner->pid_start);
}

static bool same_owner(const struct smpol_lease_owner *a, const struct smpol_lease_owner *b)
{
	return a->job_id == b->job_id && a->step_id == b->step_id && a->pid == b->pid &&
	       a->pid_start == b->pid_start;
}

static void describe_owner(const struct smpol_lease_owner *o, char *buf, size_t len)
{
	snprintf(buf, len, "job %" PRIu32 " step %" PRIu32 " (uid %u, pid %d)", o->job_id, o->step_id,
		 (unsigned)o->uid, (int)o->pid);
}

/*
 * Open the state directory's lock and hold it (shared for readers) until unlock_files.
 * create: make the directory when missing; otherwise a missing one is -ENOENT (nothing
 * was ever journaled). The lock file itself is made when missing and the caller may.
 */
static int lock_files(const struct smpol_host *h, bool create, int how, struct lease_files *f,
		      char *err, size_t errlen)
{
	f->host = h;
	f->lock_fd = -1;
	if (smpol_statedir_path(h, JOURNAL_NAME, f->journal, sizeof(f->journal)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the state directory name '%s' is too long", h->statedir);
	return smpol_statedir_lock(h, "lock", create, how, &f->lock_fd, err, errlen);
}

/* rc, with more said after the sentence already in err. */
static int append(char *err, size_t errlen, int rc, const char *more)
{
	size_t used = err ? strlen(err) : 0;

	if (err && used < errlen)
		snprintf(err + used, errlen - used, "%s", more);
	return rc;
}

static void unlock_files(struct lease_files *f)
{
	if (f->lock_fd >= 0)
		close(f->lock_fd);   /* drops the flock */
	f->lock_fd = -1;
}

static int parse_owner(const char *line, struct smpol_lease_owner *o)
{
	unsigned uid;
	int pid, used = 0;

	if (sscanf(line, "owner job=%" SCNu32 " step=%" SCNu32 " uid=%u pid=%d start=%" SCNu64 "%n",
		   &o->job_id, &o->step_id, &uid, &pid, &o->pid_start, &used) != 5 || line[used] != '\0')
		return -EINVAL;
	o->uid = (uid_t)uid;
	o->pid = (pid_t)pid;
	return 0;
}

/* Read the journal: 0, -ENOENT when there is none, -EBADMSG with a sentence when malformed. */
static int read_journal(const struct lease_files *f, struct smpol_lease_state *st, char *err, size_t errlen)
{
	char buf[16384], werr[SMPOL_ERRLEN];
	char *owner, *saved;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = smpol_statedir_read(f->host, JOURNAL_NAME, buf, sizeof(buf), err, errlen);
	if (rc < 0)
		return rc;
	owner = strchr(buf, '\n');
	saved = owner ? strchr(owner + 1, '\n') : NULL;
	if (saved) {
		*owner++ = '\0';
		*saved++ = '\0';
	}
	if (!saved || strcmp(buf, JOURNAL_VERSION) || parse_owner(owner, &st->owner) < 0 ||
	    strncmp(saved, "saved ", 6) || strchr(saved, '\n'))
		return smpol_fail(err, errlen, EBADMSG,
				 "the lease journal %s is malformed (not the 3 lines this version writes); nothing "
				 "was changed: check the weights with 'mpolctl show', then remove the file", f->journal);
	if (smpol_wi_parse(saved + 6, &st->saved, werr, sizeof(werr)) < 0)
		return smpol_fail(err, errlen, EBADMSG,
				 "the lease journal %s is malformed (%s); nothing was changed: check the weights "
				 "with 'mpolctl show', then remove the file", f->journal, werr);
	st->held = true;
	st->holder_alive = smpol_lease_owner_alive(&st->owner);
	return 0;
}

/* Write the journal where a crash can never leave half of it. */
static int write_journal(const struct smpol_host *h, const struct smpol_lease_owner *o,
			 const struct smpol_wi_table *saved, char *err, size_t errlen)
{
	char table[8192], text[8400];

	if (smpol_wi_format(saved, table, sizeof(table)) < 0)
		return smpol_fail(err, errlen, ENOSPC, "the weights table is too large to journal");
	snprintf(text, sizeof(text), JOURNAL_VERSION "\nowner job=%" PRIu32 " step=%" PRIu32
		 " uid=%u pid=%d start=%" PRIu64 "\nsaved %s\n",
		 o->job_id, o->step_id, (unsigned)o->uid, (int)o->pid, o->pid_start, table);
	return smpol_statedir_write(h, JOURNAL_NAME, text, SMPOL_STATEDIR_DURABLE, err, errlen);
}

static int remove_journal(const struct lease_files *f, char *err, size_t errlen)
{
	char why[SMPOL_ERRLEN];

	if (smpol_statedir_remove(f->host, JOURNAL_NAME, SMPOL_STATEDIR_DURABLE, why, sizeof(why)) < 0)
		return smpol_fail(err, errlen, EIO, "weights restored, but %s", why);
	return 0;
}

/* Put the journaled table back and drop the journal (kept when a node write failed). */
static int restore_journal(const struct lease_files *f, const struct smpol_lease_state *st, const struct smpol_host *h,
			   bool *auto_failed, char *err, size_t errlen)
{
	char rerr[SMPOL_ERRLEN] = "";
	int rc;

	rc = smpol_wi_restore(h, &st->saved, auto_failed, rerr, sizeof(rerr));
	if (rc < 0)
		return smpol_fail(err, errlen, -rc, "%s; the journal %s stays for 'mpolctl recover'", rerr, f->journal);
	rc = remove_journal(f, err, errlen);
	if (rc == 0 && *auto_failed)
		smpol_fail(err, errlen, ENODEV, "%s", rerr);
	return rc;
}

int smpol_lease_acquire(const struct smpol_host *h, const struct smpol_lease_owner *owner,
		       const struct smpol_wi_table *weights, const struct smpol_bitmap *which,
		       char *err, size_t errlen)
{
	struct lease_files f;
	struct smpol_lease_state st;
	struct smpol_wi_table now;
	char who[128];
	bool auto_failed, ours = false;
	int n, rc;

	rc = lock_files(h, true, LOCK_EX, &f, err, errlen);
	if (rc < 0)
		return append(err, errlen, rc, "; nothing was written");
	rc = read_journal(&f, &st, err, errlen);
	if (rc == 0 && same_owner(&st.owner, owner)) {
		ours = true;
	} else if (rc == 0 && st.holder_alive) {
		describe_owner(&st.owner, who, sizeof(who));
		rc = smpol_fail(err, errlen, EBUSY, "the node's interleave weights are held by %s; "
			       "this step runs on the current weights", who);
		goto out;
	} else if (rc == 0) {
		/* The previous holder died without restoring: undo it before journaling anew. */
		rc = restore_journal(&f, &st, h, &auto_failed, err, errlen);
		if (rc < 0)
			goto out;
	} else if (rc != -ENOENT) {
		goto out;
	}
	rc = smpol_wi_read(h, &now, err, errlen);
	if (rc < 0)
		goto out;
	if (!now.present) {
		rc = smpol_fail(err, errlen, EOPNOTSUPP, "this kernel has no weighted-interleave weights in sysfs "
			       "(needs Linux 6.9); nothing was written");
		goto out;
	}
	for (n = smpol_bitmap_next(which, 0); n >= 0; n = smpol_bitmap_next(which, n + 1)) {
		if (n >= SMPOL_MAX_NODES || !smpol_bitmap_test(&now.has_file, n)) {
			rc = smpol_fail(err, errlen, ENOENT, "node %d has no weighted-interleave weight file: it is "
				       "offline or has no memory; nothing was written", n);
			goto out;
		}
	}
	if (!ours) {
		rc = write_journal(h, owner, &now, err, errlen);
		if (rc < 0)
			goto out;
		st.saved = now;
	}
	rc = smpol_wi_write(h, weights, which, err, errlen);
	if (rc < 0) {
		char rerr[SMPOL_ERRLEN];

		/* Undo the nodes already written; the caller sees the write error. */
		if (restore_journal(&f, &st, h, &auto_failed, rerr, sizeof(rerr)) < 0 && err)
			smpol_fail(err + strlen(err), errlen - strlen(err), EIO, "; %s", rerr);
	}
out:
	unlock_files(&f);
	return rc;
}

int smpol_lease_release(const struct smpol_host *h, const struct smpol_lease_owner *owner,
		       bool *auto_failed, char *err, size_t errlen)
{
	struct lease_files f;
	struct smpol_lease_state st;
	char who[128];
	bool af = false;
	int rc;

	rc = lock_files(h, false, LOCK_EX, &f, err, errlen);
	if (rc == -ENOENT)
		return smpol_fail(err, errlen, ENOENT, "no weights lease is held under %s", h->statedir);
	if (rc < 0)
		return append(err, errlen, rc, "; the weights stay as journaled until the next step or "
			      "'mpolctl recover' restores them");
	rc = read_journal(&f, &st, err, errlen);
	if (rc == -ENOENT)
		rc = smpol_fail(err, errlen, ENOENT, "no weights lease is held under %s", h->statedir);
	if (rc < 0)
		goto out;
	if (!same_owner(&st.owner, owner)) {
		describe_owner(&st.owner, who, sizeof(who));
		rc = smpol_fail(err, errlen, EPERM, "the weights lease is held by %s, not by this step; left as it is", who);
		goto out;
	}
	rc = restore_journal(&f, &st, h, &af, err, errlen);
out:
	if (auto_failed)
		*auto_failed = af;
	unlock_files(&f);
	return rc;
}

int smpol_lease_recover(const struct smpol_host *h, bool force,
		       struct smpol_lease_state *found, char *err, size_t errlen)
{
	struct lease_files f;
	char who[128];
	int rc;

	memset(found, 0, sizeof(*found));
	rc = lock_files(h, false, LOCK_EX, &f, err, errlen);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0)
		return rc;
	rc = read_journal(&f, found, err, errlen);
	if (rc == -ENOENT) {
		rc = 0;
		goto out;
	}
	if (rc < 0)
		goto out;
	if (found->holder_alive && !force) {
		describe_owner(&found->owner, who, sizeof(who));
		rc = smpol_fail(err, errlen, EBUSY, "the weights lease belongs to %s, which is still running; "
			       "it restores them itself at step end (--force restores now)", who);
		goto out;
	}
	rc = restore_journal(&f, found, h, &found->auto_failed, err, errlen);
	found->restored = rc == 0;
out:
	unlock_files(&f);
	return rc;
}

int smpol_lease_set_system(const struct smpol_host *h, const struct smpol_wi_table *weights,
			  const struct smpol_bitmap *which, char *err, size_t errlen)
{
	struct lease_files f;
	struct smpol_lease_state st;
	char who[128];
	bool auto_failed;
	int rc;

	rc = lock_files(h, true, LOCK_EX, &f, err, errlen);
	if (rc < 0)
		return rc;
	rc = read_journal(&f, &st, err, errlen);
	if (rc == 0 && st.holder_alive) {
		describe_owner(&st.owner, who, sizeof(who));
		rc = smpol_fail(err, errlen, EBUSY, "%s holds the weights and restores its journal at step end, "
			       "which would undo the system weights; try again when it has ended", who);
		goto out;
	}
	if (rc == 0)
		rc = restore_journal(&f, &st, h, &auto_failed, err, errlen);
	else if (rc == -ENOENT)
		rc = 0;
	if (rc < 0)
		goto out;
	rc = weights ? smpol_wi_write(h, weights, which, err, errlen) : smpol_wi_set_auto(h, err, errlen);
out:
	unlock_files(&f);
	return rc;
}

int smpol_lease_inspect(const struct smpol_host *h, struct smpol_lease_state *st, char *err, size_t errlen)
{
	struct lease_files f;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = lock_files(h, false, LOCK_SH, &f, err, errlen);
	if (rc == -ENOENT)
		return 0;
	if (rc < 0)
		return rc;
	rc = read_journal(&f, st, err, errlen);
	if (rc == -ENOENT)
		rc = 0;
	unlock_files(&f);
	return rc;
}
