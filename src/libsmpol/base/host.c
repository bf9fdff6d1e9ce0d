/* host.c - the node libsmpol acts on (see host.h). */
#include <errno.h>
#include <string.h>

#include "error.h"
#include "host.h"

void smpol_host_default(struct smpol_host *h)
{
	memset(h, 0, sizeof(*h));
	strcpy(h->fsroot, "/");
	strcpy(h->statedir, SMPOL_DEFAULT_STATEDIR);
	h->lock_timeout_ms = SMPOL_DEFAULT_LOCK_TIMEOUT_MS;
}

static int set_dir(const char *what, const char *value, char *out, size_t len, char *err, size_t errlen)
{
	char q[SMPOL_QUOTE_LEN];

	if (value[0] != '/')
		return smpol_fail(err, errlen, EINVAL, "the %s %s is not an absolute path: give one that "
				  "starts with /", what, smpol_quote(value, q, sizeof(q)));
	if (strlen(value) >= len)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the %s %s is longer than %zu characters",
				  what, smpol_quote(value, q, sizeof(q)), len - 1);
	strcpy(out, value);
	return 0;
}

int smpol_host_set_fsroot(struct smpol_host *h, const char *dir, char *err, size_t errlen)
{
	return set_dir("sysfs root", *dir ? dir : "/", h->fsroot, sizeof(h->fsroot), err, errlen);
}

int smpol_host_set_statedir(struct smpol_host *h, const char *dir, char *err, size_t errlen)
{
	return set_dir("state directory", dir, h->statedir, sizeof(h->statedir), err, errlen);
}
