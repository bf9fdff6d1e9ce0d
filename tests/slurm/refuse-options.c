/* refuse-options.c - for t_release_20_init_failure.sh: preloaded into slurmd (so into
 * the slurmstepd it starts), it makes Slurm refuse every SPANK option registered in
 * slurmstepd, the one way mem_interleave's slurm_spank_init can fail there. In every
 * other process and context Slurm's own spank_option_register answers. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <slurm/spank.h>

/* Slurm's functions are looked up when called, never linked: the cluster's other
 * daemons (munged, MariaDB) get the preload too, and have no Slurm library. */
typedef spank_err_t (*option_register_fn)(spank_t, struct spank_option *);
typedef spank_context_t (*context_fn)(void);

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	option_register_fn slurms = (option_register_fn)dlsym(RTLD_NEXT, "spank_option_register");
	context_fn context = (context_fn)dlsym(RTLD_DEFAULT, "spank_context");

	if (context && context() == S_CTX_REMOTE)
		return ESPANK_BAD_ARG;
	return slurms ? slurms(sp, opt) : ESPANK_ERROR;
}
