/* interpose-dl - a library interpose-check dlopens (its malloc is the interposer's
 * too), and which a test preloads beside the interposer (both must work: the plugin
 * joins LD_PRELOAD, it does not replace it). */
#include <stdio.h>
#include <stdlib.h>

void *interpose_dl_alloc(size_t n);

void *interpose_dl_alloc(size_t n)
{
	return malloc(n);
}

/* preloaded with INTERPOSE_DL_SAY set: say so, before the program runs */
__attribute__((constructor)) static void loaded(void)
{
	if (getenv("INTERPOSE_DL_SAY"))
		fprintf(stderr, "interpose-dl: loaded\n");
}
