/* plugin.c - to be written */
#include <slurm/spank.h>
SPANK_PLUGIN(mem_interleave, 1);
