/* release.c - the plugin acts only on the Slurm release it was built for.
 *
 * slurm.h's structures (job_info_t for slurm_load_job, job_desc_msg_t for
 * slurm_update_job) change layout between releases, so a build for one release must
 * never call them in another. Slurm's loader (src/common/plugin.c, 20.11 to 26.05)
 * refuses any SPANK plugin whose plugin_version differs from its own major.minor,
 * before the plugin's code runs; what users then see is poor: with "required" in
 * plugstack.conf every srun fails and slurmd does not start, with "optional" srun
 * answers "unrecognized option '--mem-interleave'". (SPANK_PLUGIN's second argument,
 * spank_plugin_version, is read by no release.)
 *
 * The SPANK interface itself (spank.h: its items, contexts and struct spank_option) is
 * the same in every release from 20.11 to 26.05 (25.11 has one optional symbol
 * more than 24.11, slurm_spank_init_failure_mode: plugin.c), so the plugin can do better: an ELF
 * constructor runs inside dlopen, before the loader reads plugin_version, and sets it
 * to the running release when slurm_api_version() names a known one. The plugin then
 * sees the mismatch and touches nothing of Slurm's but SPANK: jobs that did not ask
 * run as without it, jobs that asked fail with one line, slurmd logs what to rebuild.
 */
#include <stdio.h>
#include <slurm/slurm.h>

#include "mi_log.h"
#include "release.h"

/* What SPANK_PLUGIN(mem_interleave, 1) defines, but with plugin_version writable. */
const char plugin_name[] = "mem_interleave";
const char plugin_type[] = "spank";
unsigned int plugin_version = SLURM_VERSION_NUMBER;
const unsigned int spank_plugin_version = 1;

/* Resolved from the libslurmfull of srun, slurmd or slurmstepd; absent elsewhere. */
#pragma weak slurm_api_version

/* API_CURRENT of each release whose SPANK interface is the one built against (Slurm's
 * META file; API_AGE is 0 in all of them, so slurm_api_version() >> 16 is API_CURRENT). */
static const struct {
	unsigned api, major, minor;
} known[] = {
	{ 36, 20, 11 }, { 37, 21, 8 }, { 38, 22, 5 }, { 39, 23, 2 }, { 40, 23, 11 },
	{ 41, 24, 5 }, { 42, 24, 11 }, { 43, 25, 5 }, { 44, 25, 11 }, { 45, 26, 5 },
};

#define MAJOR_MINOR(v) ((v) & 0xffff00u)

void release_adopt(long api_version)
{
	unsigned api = (unsigned)(api_version >> 16) & 0xff;

	if (api_version <= 0)
		return;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (known[i].api == api)
			plugin_version = SLURM_VERSION_NUM(known[i].major, known[i].minor,
							   SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER));
}

/* Why a constructor: it runs inside dlopen, before Slurm's loader compares
 * plugin_version with its own release and refuses a mismatch without calling any of
 * our code. Setting it here to a known running release lets the plugin load and
 * explain the mismatch instead (the top of this file). */
__attribute__((constructor)) static void adopt_running_release(void)
{
	if (slurm_api_version)
		release_adopt(slurm_api_version());
}

/* The loader accepted plugin_version, so it holds the running major.minor. */
const char *release_mismatch(void)
{
	static char why[192];

	if (MAJOR_MINOR(plugin_version) == MAJOR_MINOR((unsigned)SLURM_VERSION_NUMBER))
		return NULL;
	snprintf(why, sizeof(why), "built for Slurm %u.%02u, this node runs Slurm %u.%02u: the administrator "
		 "must rebuild the plugin; --mem-interleave is unavailable",
		 SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER), SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
		 SLURM_VERSION_MAJOR(plugin_version), SLURM_VERSION_MINOR(plugin_version));
	return why;
}

void release_log_mismatch(spank_t sp)
{
	unsigned major = SLURM_VERSION_MAJOR(plugin_version), minor = SLURM_VERSION_MINOR(plugin_version);
	char *running = NULL, short_name[16];

	if (!release_mismatch())
		return;
	snprintf(short_name, sizeof(short_name), "%u.%02u", major, minor);
	if (spank_get_item(sp, S_SLURM_VERSION, &running) != ESPANK_SUCCESS || !running)
		running = short_name;
	slurm_error(MI_LOG "built for Slurm %u.%02u.%u, but this slurmd is Slurm %s: rebuild mem_interleave.so "
		    "against Slurm %s's headers (libslurm-dev, slurm-smd-dev or slurm-devel %s) and install it; until "
		    "then jobs that ask for --mem-interleave fail and other jobs run without it",
		    SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER), SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER),
		    SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER), running, short_name, short_name);
}
