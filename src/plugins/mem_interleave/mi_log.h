/* mi_log.h - how mem_interleave.so logs: Slurm's log functions (slurm_error,
 * slurm_info, slurm_debug from spank.h) with every line starting with the plugin's
 * name. Files that only log include this, not the dispatcher's plugin.h. */
#ifndef MEM_INTERLEAVE_MI_LOG_H
#define MEM_INTERLEAVE_MI_LOG_H

#include <slurm/spank.h>

#define MI_LOG "mem_interleave: "

#endif
