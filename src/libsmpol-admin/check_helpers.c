/* check_helpers.c - the two programs the plugin hands work to, as the plugstack line
 * names them (see checks.h): mem_interleave_dbd, which slurmstepd runs as root, and the
 * interposer, which region-aware steps' tasks preload. Either missing shows only at the
 * first job that needs it (slurmd's log); either writable by others hands that user
 * root (the client) or every job's account (the interposer). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"

bool smpol_file_unsafe(const struct stat *st)
{
	return st->st_uid != 0 || (st->st_mode & (S_IWGRP | S_IWOTH));
}

/* Why path cannot serve as a file with access mode (0: it can): an errno, EISDIR for
 * anything but a regular file. */
static int file_error(const char *path, int mode, struct stat *st)
{
	if (stat(path, st))
		return errno;
	if (!S_ISREG(st->st_mode))
		return EISDIR;
	return access(path, mode) ? errno : 0;
}

static const char *file_error_name(int err)
{
	return err == EISDIR ? "not a file" : strerror(err);
}

static void check_dbd_client(const struct smpol_site_config *cfg, struct smpol_findings *f)
{
	const char *path = cfg->dbd_client;
	struct stat st;
	int err;

	if (cfg->record == SMPOL_RECORD_NONE) {
		smpol_findings_add(f, SMPOL_SEV_INFO, "dbd-client", -1, "", "record=none: no record is written, so "
				   "the slurmdbd client %s is not needed", path);
		return;
	}
	err = file_error(path, X_OK, &st);
	if (err) {
		smpol_findings_add(f, SMPOL_SEV_WARNING, "dbd-client-missing", -1, "install mem_interleave_dbd (the "
				   "packages do) or correct the line's dbd_client=", "the slurmdbd client %s cannot run "
				   "(%s): the records of jobs that end during a step wait in the node's spool until it can, "
				   "a record that jobstats' summary replaces in AdminComment is not moved to "
				   "SystemComment, and entries another node's write drops are not merged back",
				   path, file_error_name(err));
	} else if (smpol_file_unsafe(&st)) {
		smpol_findings_add(f, SMPOL_SEV_ERROR, "dbd-client-unsafe", -1, "chown root and chmod go-w it",
				   "the slurmdbd client %s is owned by uid %u with mode %04o, and slurmstepd runs it as "
				   "root", path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	} else {
		smpol_findings_add(f, SMPOL_SEV_OK, "dbd-client", -1, "", "the slurmdbd client %s can run", path);
	}
}

static void check_preload(const char *path, struct smpol_findings *f)
{
	struct stat st;
	int err;

	if (!path[0]) {
		smpol_findings_add(f, SMPOL_SEV_INFO, "preload", -1, "", "preload=none: region-aware steps (min_region=) "
				   "leave their large allocations to the sampler");
		return;
	}
	err = file_error(path, R_OK, &st);
	if (err) {
		smpol_findings_add(f, SMPOL_SEV_WARNING, "preload-missing", -1, "install the interposer (the packages "
				   "do), correct preload= or set preload=none", "the interposer %s cannot be read (%s): "
				   "region-aware steps leave their large allocations to the sampler", path,
				   file_error_name(err));
	} else if (smpol_file_unsafe(&st)) {
		smpol_findings_add(f, SMPOL_SEV_ERROR, "preload-unsafe", -1, "chown root and chmod go-w it",
				   "the interposer %s is owned by uid %u with mode %04o, and region-aware steps' tasks "
				   "load it", path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	} else {
		smpol_findings_add(f, SMPOL_SEV_OK, "preload", -1, "", "the interposer %s can be read", path);
	}
}

void smpol_check_helpers(const struct smpol_site_config *cfg, struct smpol_findings *f)
{
	check_dbd_client(cfg, f);
	check_preload(cfg->preload, f);
}
