/* kernel.h - what this kernel can do for memory policy, probed at run time.
 *
 * Never by version string: the weighted-interleave sysfs directory (under fsroot)
 * tells which rung of the ladder applies, and the apply path still falls back when
 * set_mempolicy itself answers EINVAL.
 *   >= 6.16: sysfs nodeN for memory nodes + auto (or __auto_type)
 *   6.9-6.15: sysfs nodeN for every possible node, no auto
 *   < 6.9:   no sysfs directory, no MPOL_WEIGHTED_INTERLEAVE
 */
#ifndef SMPOL_KERNEL_H
#define SMPOL_KERNEL_H

#include <stddef.h>
#include <stdbool.h>

/* Debian 12's headers predate Linux 6.9. */
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif

/* The weighted-interleave sysfs directory, relative to fsroot. */
#define SMPOL_WI_DIR "/sys/kernel/mm/mempolicy/weighted_interleave"

enum smpol_kernel_path {
	SMPOL_PATH_NONE,                /* no policy set */
	SMPOL_PATH_WEIGHTED,            /* MPOL_WEIGHTED_INTERLEAVE */
	SMPOL_PATH_INTERLEAVE,          /* MPOL_INTERLEAVE (old kernel, or asked for) */
};

struct smpol_kernel_caps {
	bool weighted_interleave;      /* the sysfs directory exists */
	bool auto_mode;                /* an auto file exists (6.16+) */
	char auto_name[16];            /* "auto" or "__auto_type" */
	bool weights_for_possible;     /* 6.9-6.15 layout: a file for every possible node */
};

/*
 * smpol_kernel_probe - fill caps from SMPOL_WI_DIR under fsroot (NULL or "" = "/").
 * A missing directory is not an error (an old kernel: every cap false).
 * Returns 0, or -errno when the directory exists but cannot be read.
 */
int smpol_kernel_probe(const char *fsroot, struct smpol_kernel_caps *caps, char *err, size_t errlen);

/* True for the names the auto file has had: "auto" (6.16) and "__auto_type" (some 6.18/6.19). */
bool smpol_is_auto_name(const char *name);

const char *smpol_kernel_path_name(enum smpol_kernel_path p);   /* "weighted-interleave" ... */

#endif
