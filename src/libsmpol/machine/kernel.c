/* kernel.c - names of the kernel paths a task's policy can take. */
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
