/* kernel.h - the memory-policy ABI bits Debian 12's headers lack, and the path a
 * task's policy took on the kernel ladder.
 *
 * Which rung a kernel is on is probed at run time from its weighted-interleave sysfs
 * directory (wi.h), never by version string, and the apply path still falls back
 * when set_mempolicy itself answers EINVAL.
 *   >= 6.16: sysfs nodeN for memory nodes + auto (or __auto_type)
 *   6.9-6.15: sysfs nodeN for every possible node, no auto
 *   < 6.9:   no sysfs directory, no MPOL_WEIGHTED_INTERLEAVE
 */
#ifndef SMPOL_KERNEL_H
#define SMPOL_KERNEL_H

/* Debian 12's headers predate Linux 6.9. */
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE 6
#endif

enum smpol_kernel_path {
	SMPOL_PATH_NONE,                /* no policy set */
	SMPOL_PATH_WEIGHTED,            /* MPOL_WEIGHTED_INTERLEAVE */
	SMPOL_PATH_INTERLEAVE,          /* MPOL_INTERLEAVE (old kernel, or asked for) */
};

const char *smpol_kernel_path_name(enum smpol_kernel_path p);   /* "weighted-interleave" ... */

#endif
