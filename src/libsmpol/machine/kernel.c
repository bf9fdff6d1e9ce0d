/* kernel.c - names of the kernel paths a task's policy can take, and the numbers
 * process_mbind may not have. */
#include <errno.h>

#include "error.h"
#include "kernel.h"

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

int smpol_pmbind_nr_check(long nr, char *err, size_t errlen)
{
	if (nr == 457 || nr == 458)
		return smpol_fail(err, errlen, EINVAL,
				 "syscall %ld is %s upstream, not process_mbind: refused without calling it",
				 nr, nr == 457 ? "statmount" : "listmount");
	if (nr < SMPOL_PMBIND_FIRST_FREE_NR || nr > SMPOL_PMBIND_LAST_NR)
		return smpol_fail(err, errlen, EINVAL,
				 "syscall %ld is not a free number (upstream Linux uses 0-%d, tables end at %d): "
				 "refused without calling it", nr, SMPOL_PMBIND_FIRST_FREE_NR - 1, SMPOL_PMBIND_LAST_NR);
	return 0;
}
