/* kernel.c - probe the weighted-interleave rung of the kernel ladder from sysfs. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "error.h"
#include "kernel.h"
#include "sysfs.h"

bool smpol_is_auto_name(const char *name)
{
	/* 6.16 named it auto; some 6.18/6.19 builds leak the macro's name __auto_type */
	return !strcmp(name, "auto") || !strcmp(name, "__auto_type");
}

int smpol_kernel_probe(const char *fsroot, struct smpol_kernel_caps *caps, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	int rc;

	memset(caps, 0, sizeof(*caps));
	rc = smpol_fs_path(fsroot, path, sizeof(path), SMPOL_WI_DIR);
	if (rc)
		return smpol_fail(err, errlen, -rc, "the filesystem root '%s' is too long a path",
				 fsroot ? fsroot : "/");
	dir = opendir(path);
	if (!dir) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;   /* < 6.9: no weighted interleave */
		return smpol_fail(err, errlen, errno, "cannot read %s: %s", path, strerror(errno));
	}
	caps->weighted_interleave = true;
	while ((de = readdir(dir))) {
		if (smpol_is_auto_name(de->d_name)) {
			caps->auto_mode = true;
			strcpy(caps->auto_name, de->d_name);   /* both names fit */
		}
	}
	closedir(dir);
	/* 6.9-6.15 create nodeN for every possible node and have no auto switch */
	caps->weights_for_possible = !caps->auto_mode;
	return 0;
}

const char *smpol_kernel_path_name(enum smpol_kernel_path p)
{
	switch (p) {
	case SMPOL_PATH_WEIGHTED:
		return "weighted-interleave";
	case SMPOL_PATH_INTERLEAVE:
		return "interleave";
	case SMPOL_PATH_NONE:
		break;
	}
	return "none";
}
