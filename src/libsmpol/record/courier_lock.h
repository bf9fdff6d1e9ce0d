/* courier_lock.h - how slurmd's courier of placement records says that it listens
 * (mem_interleave's record_courier.h): it holds STATEDIR/courier.lock shared while it
 * watches the node's spool, and the file holds the settings it writes records by
 * (record=, dbd_client=). A lock dies with its holder, so a crashed slurmd never looks
 * alive. Read by the plugin's steps (hand the record over?) and mpolctl check. */
#ifndef SMPOL_COURIER_LOCK_H
#define SMPOL_COURIER_LOCK_H

#include <stddef.h>

#include "site_config.h"

#define SMPOL_COURIER_LOCK "courier.lock"

enum smpol_courier_state {
	SMPOL_COURIER_NONE,     /* no courier holds the lock */
	SMPOL_COURIER_OTHER,    /* one does, with other settings than site's */
	SMPOL_COURIER_LISTENS,  /* one does, with site's settings */
};

/* The settings line of site, as a courier's lock file holds it (no newline). */
void smpol_courier_settings(const struct smpol_site_config *site, char *buf, size_t len);

/* Whether a courier listens in site's state directory, and with its settings; held
 * (may be NULL) gets the listening courier's settings. Creates nothing. -errno (the
 * directory cannot be read: not root) or the state. */
int smpol_courier_probe(const struct smpol_site_config *site, char *held, size_t heldlen);

#endif
