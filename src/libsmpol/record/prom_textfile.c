/* prom_textfile.c - node_exporter textfile metrics of a step (see prom_textfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "numa_maps.h"
#include "prom_textfile.h"
#include "record.h"

#define PREFIX "slurm_mempolicy_"

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

static int file_name(const char *dir, uint32_t job, const char *step, const char *prefix, char *buf, size_t len)
{
	return snprintf(buf, len, "%s/%sslurm_mempolicy_%u_%s.prom", dir, prefix, job, step) < (int)len ? 0 : -ENAMETOOLONG;
}

int smpol_prom_write(const char *dir, uint32_t job, const char *step, const struct smpol_sampling *s,
		     char *err, size_t errlen)
{
	char path[4200], tmp[4200], *text = NULL;
	int fd, rc = 0;
	size_t len;

	if (file_name(dir, job, step, "", path, sizeof(path)) < 0 || file_name(dir, job, step, ".", tmp, sizeof(tmp)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the metrics directory %s is too long", dir);
	if (smpol_prom_format(job, step, s, &text) < 0)
		return smpol_fail(err, errlen, ENOMEM, "out of memory formatting the step's metrics");
	len = strlen(text);
	/* readable by node_exporter, which need not run as root */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		rc = smpol_fail(err, errlen, errno, "cannot write the step's metrics into %s: %s", dir, strerror(errno));
		free(text);
		return rc;
	}
	errno = 0;
	if (write(fd, text, len) != (ssize_t)len)
		rc = -(errno ? errno : EIO);
	if (close(fd) < 0 && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path) < 0)
		rc = -errno;
	free(text);
	if (rc) {
		unlink(tmp);
		return smpol_fail(err, errlen, -rc, "cannot write %s: %s", path, strerror(-rc));
	}
	return 0;
}

int smpol_prom_remove(const char *dir, uint32_t job, const char *step, char *err, size_t errlen)
{
	char path[4200];

	if (file_name(dir, job, step, "", path, sizeof(path)) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the metrics directory %s is too long", dir);
	if (unlink(path) < 0 && errno != ENOENT)
		return smpol_fail(err, errlen, errno, "cannot remove %s: %s", path, strerror(errno));
	return 0;
}
