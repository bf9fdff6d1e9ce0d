/* fuzz_topology.c - smpol_topology_read on a captured sysfs tree (two-socket-cxl) in
 * which one file holds the fuzzed bytes. The first input byte picks the file, the
 * rest is its content. The tree is copied once into a tmpfs directory, and the file
 * is put back after each input. Every outcome is a topology or a sentence. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <unistd.h>

#include "error.h"
#include "fuzz.h"
#include "topology.h"

#define MAX_FILES 256

static char root[256];
static struct smpol_host host;   /* sysfs under root */
static char *files[MAX_FILES];
static int nfiles;

static int add_file(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_F && nfiles < MAX_FILES)
		files[nfiles++] = strdup(path);
	return 0;
}

static void remove_root(void)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		fprintf(stderr, "fuzz_topology: could not remove %s\n", root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("MPOL_FUZZ_TMP") ? getenv("MPOL_FUZZ_TMP") : "/dev/shm";
	const char *fixture = getenv("MPOL_FUZZ_FIXTURE");
	char cmd[1024];

	(void)argc;
	(void)argv;
	if (!fixture) {
		fprintf(stderr, "fuzz_topology: set MPOL_FUZZ_FIXTURE to a captured tree (tests/fixtures/two-socket-cxl)\n");
		exit(2);
	}
	snprintf(root, sizeof(root), "%s/mpol-fuzz-topology.%d", tmp, (int)getpid());
	snprintf(cmd, sizeof(cmd), "cp -a '%s' '%s'", fixture, root);
	if (system(cmd)) {
		fprintf(stderr, "fuzz_topology: cannot copy %s to %s\n", fixture, root);
		exit(2);
	}
	atexit(remove_root);
	if (smpol_host_default(&host) < 0 || smpol_host_set_fsroot(&host, root, NULL, 0) < 0) {
		fprintf(stderr, "fuzz_topology: %s is not an absolute directory\n", root);
		exit(2);
	}
	nftw(root, add_file, 16, FTW_PHYS);
	if (!nfiles) {
		fprintf(stderr, "fuzz_topology: no files under %s\n", root);
		exit(2);
	}
	return 0;
}

static int write_file(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = size ? write(fd, data, size) : 0;
	close(fd);
	return n == (ssize_t)size ? 0 : -EIO;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char saved[8192], err[SMPOL_ERRLEN] = "";
	struct smpol_topology topo;
	const char *path;
	ssize_t len;
	int fd, rc;

	if (!size)
		return 0;
	path = files[data[0] % nfiles];
	fd = open(path, O_RDONLY);
	fuzz_check(fd >= 0, "cannot open %s", path);
	len = read(fd, saved, sizeof(saved));
	close(fd);
	fuzz_check(len >= 0, "cannot read %s", path);
	fuzz_check(write_file(path, data + 1, size - 1) == 0, "cannot write %s", path);
	rc = smpol_topology_read(&host, &topo, err, sizeof(err));
	if (rc)
		fuzz_check(rc < 0 && err[0], "rc %d without a sentence (file %s)", rc, path);
	else
		smpol_topology_free(&topo);
	fuzz_check(write_file(path, saved, (size_t)len) == 0, "cannot put back %s", path);
	return 0;
}
