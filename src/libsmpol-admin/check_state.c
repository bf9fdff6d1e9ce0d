/* check_state.c - the plugin's state directory: who may write it, the weights lease
 * and the kept placements in it (see checks.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"
#include "lease.h"
#include "step_state.h"

/* Root's, a directory, and writable by no one else: whoever can write there can forge a
 * lease journal, which a step then "restores" into the kernel's weights. */
static bool check_dir(const struct smpol_host *h, struct smpol_findings *f)
{
	struct stat st;

	if (lstat(h->statedir, &st)) {
		if (errno == ENOENT)
			smpol_findings_add(f, SMPOL_SEV_INFO, "statedir", -1, "nothing to do: the first step that needs it "
					   "makes it", "the state directory %s does not exist yet", h->statedir);
		else
			smpol_findings_add(f, SMPOL_SEV_ERROR, "statedir", -1, "make it reachable for root, or name "
					   "another with statedir=", "the state directory %s: %s", h->statedir,
					   strerror(errno));
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		smpol_findings_add(f, SMPOL_SEV_ERROR, "statedir", -1, "remove it, or name another with statedir=",
				   "the state directory %s is %s, not a directory", h->statedir,
				   S_ISLNK(st.st_mode) ? "a symbolic link" : "a file");
		return false;
	}
	if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		smpol_findings_add(f, SMPOL_SEV_ERROR, "statedir-unsafe", -1, "chown root and chmod go-w it",
				   "the state directory %s is owned by uid %u with mode %04o: others could forge the "
				   "weights journal a step restores", h->statedir, (unsigned)st.st_uid,
				   (unsigned)(st.st_mode & 07777));
		return true;
	}
	smpol_findings_add(f, SMPOL_SEV_OK, "statedir", -1, "", "the state directory %s is root's (mode %04o)",
			   h->statedir, (unsigned)(st.st_mode & 07777));
	return true;
}

static void check_lease(const struct smpol_host *h, struct smpol_findings *f, bool *live)
{
	struct smpol_lease_state st;
	char err[SMPOL_ERRLEN];
	int rc = smpol_lease_inspect(h, &st, err, sizeof(err));

	*live = false;
	if (rc == -EACCES || rc == -EPERM) {
		smpol_findings_add(f, SMPOL_SEV_SKIPPED, "lease", -1, "run mpolctl check as root to check it", "%s", err);
		return;
	}
	if (rc) {
		smpol_findings_add(f, SMPOL_SEV_ERROR, "lease-journal", -1, "look at it; mpolctl recover --force "
				   "restores what it can", "%s", err);
		return;
	}
	if (!st.held)
		return;
	*live = st.holder_alive;
	if (st.holder_alive)
		smpol_findings_add(f, SMPOL_SEV_INFO, "lease-held", -1, "nothing to do: it restores the weights at step end",
				   "job %u step %u (pid %d) holds the node's weights", st.owner.job_id, st.owner.step_id,
				   (int)st.owner.pid);
	else
		smpol_findings_add(f, SMPOL_SEV_WARNING, "lease-dead", -1, "run mpolctl recover (the next step that "
				   "needs the weights does it too)", "job %u step %u (pid %d) died holding the weights: "
				   "its weights are still in the kernel's table", st.owner.job_id, st.owner.step_id,
				   (int)st.owner.pid);
}

static void check_kept(const struct smpol_host *h, struct smpol_findings *f)
{
	struct smpol_step_state *kept;
	char err[SMPOL_ERRLEN], list[256] = "";
	int n, bad, dead = 0;

	if (smpol_step_state_list(h, &kept, &n, &bad, err, sizeof(err))) {
		smpol_findings_add(f, SMPOL_SEV_SKIPPED, "kept-placements", -1, "run mpolctl check as root to check them",
				   "%s", err);
		return;
	}
	for (int i = 0; i < n; i++) {
		size_t used = strlen(list);

		if (kept[i].holder_alive)
			continue;
		dead++;
		snprintf(list + used, sizeof(list) - used, "%sjob %u step %u", used ? ", " : "", kept[i].job_id,
			 kept[i].step_id);
	}
	if (dead)
		smpol_findings_add(f, SMPOL_SEV_WARNING, "kept-dead", -1, "the next job step on the node removes them; "
				   "meanwhile rebalance ignores them, or remove STATEDIR/step.JOB.STEP.json by hand",
				   "%d kept placement(s) of steps that died: %s", dead, list);
	if (bad)
		smpol_findings_add(f, SMPOL_SEV_WARNING, "kept-malformed", -1, "remove them by hand once no step of theirs "
				   "runs", "%d kept placement file(s) in %s do not parse (or are not files)", bad,
				   h->statedir);
	if (n - dead > 0)
		smpol_findings_add(f, SMPOL_SEV_INFO, "kept-live", -1, "", "%d running step(s) keep their placement here",
				   n - dead);
	smpol_step_states_free(kept, n);
}

void smpol_check_state(const struct smpol_host *h, struct smpol_findings *f, bool *lease_live)
{
	*lease_live = false;
	if (!check_dir(h, f))
		return;
	check_lease(h, f, lease_live);
	check_kept(h, f);
}
