/* prom_textfile.c - node_exporter textfile metrics of a step (see prom_textfile.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "numa_maps.h"
#include "proc_stat.h"
#include "prom_textfile.h"
#include "record.h"

#define PREFIX "slurm_mempolicy_"
#define WRITER_MARK "# slurm-mempolicy writer "

static void help_type(FILE *f, const char *name, const char *help)
{
	fprintf(f, "# HELP " PREFIX "%s %s\n# TYPE " PREFIX "%s gauge\n", name, help, name);
}

int smpol_prom_format(uint32_t job, const char *step, const struct smpol_sampling *s, char **text)
{
	uint64_t total = 0;
	double tsum = 0, drift;
	size_t len = 0;
	FILE *f;

	*text = NULL;
	f = open_memstream(text, &len);
	if (!f)
		return -ENOMEM;
	for (int n = 0; n <= s->max_node; n++) {
		total += s->last[n];
		tsum += s->expect[n] > 0 ? s->expect[n] : 0;
	}
	help_type(f, "anon_bytes", "Resident anonymous memory of the job step's tasks on the NUMA node at the last sample.");
	for (int n = 0; n <= s->max_node; n++)
		fprintf(f, PREFIX "anon_bytes{jobid=\"%u\",step=\"%s\",numa_node=\"%d\"} %llu\n", job, step, n,
			(unsigned long long)s->last[n] * SMPOL_PAGE_KIB * 1024);
	if (total > 0) {
		help_type(f, "share_ratio", "Share of the job step's anonymous memory on the NUMA node.");
		for (int n = 0; n <= s->max_node; n++)
			fprintf(f, PREFIX "share_ratio{jobid=\"%u\",step=\"%s\",numa_node=\"%d\"} %.6g\n", job, step,
				n, (double)s->last[n] / (double)total);
	}
	if (s->have_target && tsum > 0) {
		help_type(f, "target_ratio", "Share of the job step's memory that the weights in force aim at for the NUMA node.");
		for (int n = 0; n <= s->max_node; n++)
			fprintf(f, PREFIX "target_ratio{jobid=\"%u\",step=\"%s\",numa_node=\"%d\"} %.6g\n", job, step,
				n, s->expect[n] > 0 ? s->expect[n] / tsum : 0);
		drift = smpol_placement_drift(s->expect, s->last, s->max_node);
		if (drift >= 0) {
			help_type(f, "drift_ratio", "How far the job step's placement is from its target: half the L1 distance of the share vectors (0 = on target, 1 = disjoint).");
			fprintf(f, PREFIX "drift_ratio{jobid=\"%u\",step=\"%s\"} %.6g\n", job, step, drift);
		}
	}
	help_type(f, "sample_timestamp_seconds", "Unix time of the job step's last placement sample.");
	fprintf(f, PREFIX "sample_timestamp_seconds{jobid=\"%u\",step=\"%s\"} %lld\n", job, step, (long long)s->time);
	if (fclose(f) != 0) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The step's file name (hidden: the temporary, outside node_exporter's *.prom). */
static int file_name(uint32_t job, const char *step, bool temporary, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s" PREFIX "%u_%s%s", temporary ? "." : "", job, step,
			 temporary ? ".tmp" : ".prom");

	return n >= 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
}

/* The metrics directory, opened and checked: a directory, ours (root's for slurmstepd)
 * and writable by no one else, so no other user can plant a file node_exporter serves
 * or a FIFO the sampler blocks on. A descriptor, or -errno with a sentence. */
static int open_dir(const char *dir, char *err, size_t errlen)
{
	struct stat st;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return smpol_fail(err, errlen, errno, "the metrics directory %s: %s", dir, strerror(errno));
	if (fstat(dfd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(dfd);
		return smpol_fail(err, errlen, EPERM, "the metrics directory %s must belong to uid %u and be writable "
				  "by no one else (chown %u %s; chmod go-w %s)", dir, (unsigned)geteuid(),
				  (unsigned)geteuid(), dir, dir);
	}
	return dfd;
}

/* "# slurm-mempolicy writer PID START": who keeps the file, so that a sweep can tell
 * a dead step's file (node_exporter ignores comment lines). */
static int writer_line(char *buf, size_t len)
{
	uint64_t start;
	int rc = smpol_proc_stat(getpid(), &start, NULL, NULL, 0);

	if (rc < 0)
		return rc;
	snprintf(buf, len, WRITER_MARK "%d %" PRIu64 "\n", (int)getpid(), start);
	return 0;
}

static int write_file(int dfd, const char *name, const char *writer, const char *text)
{
	size_t wlen = strlen(writer), len = strlen(text);
	int fd, rc = 0;

	/* a temporary a killed writer left goes first: O_EXCL then never opens what
	 * someone else put there */
	if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	/* readable by node_exporter, which need not run as root */
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	errno = 0;
	if (write(fd, writer, wlen) != (ssize_t)wlen || write(fd, text, len) != (ssize_t)len)
		rc = -(errno ? errno : EIO);
	if (close(fd) < 0 && !rc)
		rc = -errno;
	return rc;
}

int smpol_prom_write(const char *dir, uint32_t job, const char *step, const struct smpol_sampling *s,
		     char *err, size_t errlen)
{
	char name[256], tmp[256], writer[96], *text = NULL;
	int dfd, rc;

	if (file_name(job, step, false, name, sizeof(name)) < 0 || file_name(job, step, true, tmp, sizeof(tmp)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the step name '%s' is too long for a metrics file", step);
	if (writer_line(writer, sizeof(writer)) < 0)
		return smpol_fail(err, errlen, ESRCH, "cannot read this process's start time from /proc");
	if (smpol_prom_format(job, step, s, &text) < 0)
		return smpol_fail(err, errlen, ENOMEM, "out of memory formatting the step's metrics");
	dfd = open_dir(dir, err, errlen);
	if (dfd < 0) {
		free(text);
		return dfd;
	}
	rc = write_file(dfd, tmp, writer, text);
	if (!rc && renameat(dfd, tmp, dfd, name) < 0)
		rc = -errno;
	free(text);
	if (rc) {
		unlinkat(dfd, tmp, 0);
		smpol_fail(err, errlen, -rc, "cannot write %s/%s: %s", dir, name, strerror(-rc));
	}
	close(dfd);
	return rc;
}

int smpol_prom_remove(const char *dir, uint32_t job, const char *step, char *err, size_t errlen)
{
	char path[4200];
	int n = snprintf(path, sizeof(path), "%s/" PREFIX "%u_%s.prom", dir, job, step);

	if (n < 0 || (size_t)n >= sizeof(path))
		return smpol_fail(err, errlen, ENAMETOOLONG, "the metrics directory %s is too long", dir);
	if (unlink(path) < 0 && errno != ENOENT)
		return smpol_fail(err, errlen, errno, "cannot remove %s: %s", path, strerror(errno));
	return 0;
}

/* Is this entry of the directory a file of ours whose writer is gone? Only regular
 * files are read (opened non-blocking: never a FIFO's wait; a FIFO or socket of our
 * name is stale). A file without a writer line (an older release's) is stale once a
 * day old. */
static bool stale(int dfd, const char *name, time_t now)
{
	char line[128] = "";
	struct stat st;
	ssize_t n;
	int pid, fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	uint64_t start;
	bool gone;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		gone = fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode);
		close(fd);
		return gone;
	}
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	line[n > 0 ? n : 0] = '\0';
	if (sscanf(line, WRITER_MARK "%d %" SCNu64, &pid, &start) == 2)
		gone = !smpol_proc_alive(pid, start);
	else
		gone = now - st.st_mtime > SMPOL_PROM_UNOWNED_STALE_S;
	return gone;
}

int smpol_prom_sweep(const char *dir, int *removed, char *err, size_t errlen)
{
	int dfd, rc = 0;
	struct dirent *d;
	DIR *ds;

	*removed = 0;
	dfd = open_dir(dir, err, errlen);
	if (dfd < 0)
		return dfd;
	ds = fdopendir(dfd);
	if (!ds) {
		close(dfd);
		return smpol_fail(err, errlen, errno, "cannot list the metrics directory %s: %s", dir, strerror(errno));
	}
	while ((d = readdir(ds))) {
		const char *n = d->d_name + (d->d_name[0] == '.');

		if (strncmp(n, PREFIX, strlen(PREFIX)) || !stale(dfd, d->d_name, time(NULL)))
			continue;
		if (unlinkat(dfd, d->d_name, 0) == 0)
			(*removed)++;
		else if (errno != ENOENT && !rc)
			rc = smpol_fail(err, errlen, errno, "cannot remove %s/%s: %s", dir, d->d_name, strerror(errno));
	}
	closedir(ds);
	return rc;
}
