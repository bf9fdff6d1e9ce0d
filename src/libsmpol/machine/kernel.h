/* kernel.h - the memory-policy ABI bits Debian 12's headers lack, the path a task's
 * policy took on the kernel ladder, and which system call numbers process_mbind may have.
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

#include <stddef.h>

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

/* process_mbind is not upstream (pages/pmbind.h): the numbers it may be called by. The
 * site's configuration checks one as it parses it, before anything calls it. */
/* Numbers below this are system calls of upstream Linux (6.18 ends at 469). */
#define SMPOL_PMBIND_FIRST_FREE_NR 470
/* The largest number a system call table could hold. */
#define SMPOL_PMBIND_LAST_NR 4095

/*
 * smpol_pmbind_nr_check - may nr be called as process_mbind at all? 0, or -EINVAL
 * naming what it is: 457/458 (statmount, listmount), another upstream number, or one
 * above SMPOL_PMBIND_LAST_NR. Calls nothing.
 */
int smpol_pmbind_nr_check(long nr, char *err, size_t errlen);

#endif
