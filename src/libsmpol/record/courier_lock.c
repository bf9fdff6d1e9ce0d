/* courier_lock.c - whether slurmd's courier listens (see courier_lock.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "courier_lock.h"
#include "statedir.h"

void smpol_courier_settings(const struct smpol_site_config *site, char *buf, size_t len)
{
	snprintf(buf, len, "record=%s dbd_client=%s", smpol_record_target_name(site->record), site->dbd_client);
}

int smpol_courier_probe(const struct smpol_site_config *site, char *held, size_t heldlen)
{
	char want[4200], text[4200];
	int fd, rc;

	/* no file: no courier ever listened here (the probe below would make one) */
	rc = smpol_statedir_read(&site->host, SMPOL_COURIER_LOCK, text, sizeof(text), NULL, 0);
	if (rc == -ENOENT)
		return SMPOL_COURIER_NONE;
	if (rc < 0)
		return rc;
	rc = smpol_statedir_lock(&site->host, SMPOL_COURIER_LOCK, false, LOCK_EX | LOCK_NB, &fd, NULL, 0);
	if (rc == 0) {
		close(fd);
		return SMPOL_COURIER_NONE;
	}
	if (rc != -EWOULDBLOCK)
		return rc;
	/* read again: a courier that started since writes its settings after locking */
	if (smpol_statedir_read(&site->host, SMPOL_COURIER_LOCK, text, sizeof(text), NULL, 0) < 0)
		text[0] = '\0';
	if (held)
		snprintf(held, heldlen, "%s", text);
	smpol_courier_settings(site, want, sizeof(want));
	return strcmp(text, want) == 0 ? SMPOL_COURIER_LISTENS : SMPOL_COURIER_OTHER;
}
