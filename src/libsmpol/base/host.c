/* host.c - the node libsmpol acts on (see host.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "host.h"
#include "text.h"

void smpol_host_free(struct smpol_host *h)
{
	free(h->fsroot);
	free(h->statedir);
	h->fsroot = h->statedir = NULL;
}

int smpol_host_default(struct smpol_host *h)
{
	memset(h, 0, sizeof(*h));
	h->lock_timeout_ms = SMPOL_DEFAULT_LOCK_TIMEOUT_MS;
	if (smpol_text_set(&h->fsroot, "/") < 0 || smpol_text_set(&h->statedir, SMPOL_DEFAULT_STATEDIR) < 0) {
		smpol_host_free(h);
		return -ENOMEM;
	}
	return 0;
}

int smpol_host_copy(struct smpol_host *dst, const struct smpol_host *src)
{
	struct smpol_host copy = { .lock_timeout_ms = src->lock_timeout_ms };

	if (smpol_text_set(&copy.fsroot, src->fsroot) < 0 || smpol_text_set(&copy.statedir, src->statedir) < 0) {
		smpol_host_free(&copy);
		return -ENOMEM;
	}
	smpol_host_free(dst);
	*dst = copy;
	return 0;
}

static int set_dir(const char *what, const char *value, char **out, char *err, size_t errlen)
{
	char q[SMPOL_QUOTE_LEN];

	if (value[0] != '/')
		return smpol_fail(err, errlen, EINVAL, "the %s %s is not an absolute path: give one that "
				  "starts with /", what, smpol_quote(value, q, sizeof(q)));
	if (strlen(value) >= SMPOL_HOST_PATH_MAX)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the %s %s is longer than %d characters",
				  what, smpol_quote(value, q, sizeof(q)), SMPOL_HOST_PATH_MAX - 1);
	if (smpol_text_set(out, value) < 0)
		return smpol_fail(err, errlen, ENOMEM, "out of memory for the %s", what);
	return 0;
}

int smpol_host_set_fsroot(struct smpol_host *h, const char *dir, char *err, size_t errlen)
{
	return set_dir("sysfs root", *dir ? dir : "/", &h->fsroot, err, errlen);
}

int smpol_host_set_statedir(struct smpol_host *h, const char *dir, char *err, size_t errlen)
{
	return set_dir("state directory", dir, &h->statedir, err, errlen);
}
