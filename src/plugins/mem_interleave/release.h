/* release.h - the plugin acts only on the Slurm release (major.minor) it was built for. */
#ifndef MEM_INTERLEAVE_RELEASE_H
#define MEM_INTERLEAVE_RELEASE_H

#include <slurm/spank.h>

/*
 * release_adopt - called at load time with slurm_api_version() of the process: when
 * that is another known release, plugin_version takes its number so that Slurm's
 * loader lets the plugin say itself what is wrong (see release.c). Unknown API
 * versions change nothing (the loader then refuses the plugin as usual).
 */
void release_adopt(long api_version);

/*
 * release_mismatch - NULL when this process runs the release the plugin was built for;
 * else the sentence a job that asked for --mem-interleave fails with (no prefix).
 */
const char *release_mismatch(void);

/* release_log_mismatch - slurmd: on a mismatch, log what the administrator must rebuild. */
void release_log_mismatch(spank_t sp);

#endif
