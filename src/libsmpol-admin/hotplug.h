/* hotplug.h - memory and NUMA node hotplug, from the kernel's uevents (netlink).
 *
 * The kernel announces a hot-added DIMM or CXL region as one "add" then "online" event
 * per memory block (SUBSYSTEM=memory) and, when a node gets its first memory, an "add"
 * or "online" event for the node (SUBSYSTEM=node). A DIMM of 1 GiB is eight blocks of
 * 128 MiB, so events come in bursts: the listener waits until no new event has come
 * for the settle delay and then reports the burst once.
 */
#ifndef SMPOL_HOTPLUG_H
#define SMPOL_HOTPLUG_H

#include <signal.h>
#include <stddef.h>
#include <stdbool.h>

#include "bitmap.h"

struct smpol_uevent {
	char action[16];               /* add, online, remove, offline, change ... */
	char subsystem[32];            /* memory, node, ... */
	char devpath[256];             /* /devices/system/memory/memory32 */
	int node;                      /* node id for SUBSYSTEM=node, else -1 */
};

struct smpol_hotplug_burst {
	int events;                    /* relevant events in the burst */
	int memory_blocks;             /* memory blocks onlined */
	struct smpol_bitmap nodes;      /* nodes that were added or came online */
};

/*
 * smpol_uevent_parse - one kernel uevent message ("ACTION@DEVPATH" then KEY=VALUE
 * strings, NUL-separated). -EINVAL when it is not one (udev's re-broadcasts, garbage).
 */
int smpol_uevent_parse(const char *buf, size_t len, struct smpol_uevent *ev);

/* Memory onlined, or a node added or onlined: what changes the plans. */
bool smpol_uevent_is_hotplug(const struct smpol_uevent *ev);

/* A netlink socket on the kernel's uevent group (any user may listen). */
int smpol_hotplug_open(int *fd, char *err, size_t errlen);

/*
 * smpol_hotplug_wait - block until a hotplug event arrives, then gather events until
 * settle_ms pass without one. kernel_only: ignore messages not sent by the kernel
 * (netlink port 0). Returns 0 with the burst; 1 when *stop was raised (no burst);
 * 2 when idle_ms passed before any event came (idle_ms < 0: wait for ever); -errno
 * when reading fails.
 */
int smpol_hotplug_wait(int fd, unsigned settle_ms, int idle_ms, bool kernel_only, const volatile sig_atomic_t *stop,
		       struct smpol_hotplug_burst *burst, char *err, size_t errlen);

#endif
