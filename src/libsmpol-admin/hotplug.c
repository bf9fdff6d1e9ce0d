/* hotplug.c - listen for memory and node hotplug uevents (see hotplug.h). */
#include <errno.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "hotplug.h"

#define UEVENT_MAX 8192

int smpol_uevent_parse(const char *buf, size_t len, struct smpol_uevent *ev)
{
	const char *at, *end = buf + len;

	memset(ev, 0, sizeof(*ev));
	ev->node = -1;
	at = memchr(buf, '@', len);
	/* The kernel's header is "ACTION@DEVPATH"; udev's start with "libudev". */
	if (!len || !at || !memchr(buf, '\0', len) || at > (const char *)memchr(buf, '\0', len))
		return -EINVAL;
	for (const char *p = buf + strlen(buf) + 1; p < end; p += strnlen(p, (size_t)(end - p)) + 1) {
		size_t n = strnlen(p, (size_t)(end - p));

		if (n == (size_t)(end - p))
			break;     /* unterminated tail: ignore it */
		if (!strncmp(p, "ACTION=", 7))
			snprintf(ev->action, sizeof(ev->action), "%s", p + 7);
		else if (!strncmp(p, "SUBSYSTEM=", 10))
			snprintf(ev->subsystem, sizeof(ev->subsystem), "%s", p + 10);
		else if (!strncmp(p, "DEVPATH=", 8))
			snprintf(ev->devpath, sizeof(ev->devpath), "%s", p + 8);
	}
	if (!ev->action[0] || !ev->subsystem[0] || !ev->devpath[0])
		return -EINVAL;
	if (!strcmp(ev->subsystem, "node")) {
		const char *base = strrchr(ev->devpath, '/');
		char *tail;
		long id;

		if (base && !strncmp(base, "/node", 5)) {
			id = strtol(base + 5, &tail, 10);
			if (tail != base + 5 && !*tail && id >= 0 && id < SMPOL_MAX_NODES)
				ev->node = (int)id;
		}
	}
	return 0;
}

bool smpol_uevent_is_hotplug(const struct smpol_uevent *ev)
{
	if (!strcmp(ev->subsystem, "memory"))
		return !strcmp(ev->action, "online");
	if (!strcmp(ev->subsystem, "node"))
		return ev->node >= 0 && (!strcmp(ev->action, "add") || !strcmp(ev->action, "online"));
	return false;
}

int smpol_hotplug_open(int *fd, char *err, size_t errlen)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);

	if (s < 0)
		return smpol_fail(err, errlen, errno, "cannot open the kernel's uevent socket: %s", strerror(errno));
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		close(s);
		return smpol_fail(err, errlen, e, "cannot listen to the kernel's uevents: %s", strerror(e));
	}
	*fd = s;
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Read one message; 1 when it is a hotplug event (added to the burst). */
static int read_event(int fd, bool kernel_only, struct smpol_hotplug_burst *b, char *err, size_t errlen)
{
	char buf[UEVENT_MAX];
	struct sockaddr_nl from;
	socklen_t fromlen = sizeof(from);
	struct smpol_uevent ev;
	ssize_t n;

	memset(&from, 0, sizeof(from));
	n = recvfrom(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT, (struct sockaddr *)&from, &fromlen);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		/* ENOBUFS: the kernel dropped events; the burst still ends in a rebalance. */
		if (errno == ENOBUFS) {
			b->events++;
			return 1;
		}
		return smpol_fail(err, errlen, errno, "reading uevents failed: %s", strerror(errno));
	}
	buf[n] = '\0';
	if (kernel_only && (fromlen < sizeof(from) || from.nl_family != AF_NETLINK || from.nl_pid != 0))
		return 0;
	if (smpol_uevent_parse(buf, (size_t)n, &ev) < 0 || !smpol_uevent_is_hotplug(&ev))
		return 0;
	b->events++;
	if (ev.node >= 0)
		smpol_bitmap_set(&b->nodes, ev.node);
	else
		b->memory_blocks++;
	return 1;
}

int smpol_hotplug_wait(int fd, unsigned settle_ms, int idle_ms, bool kernel_only, const volatile sig_atomic_t *stop,
		       struct smpol_hotplug_burst *burst, char *err, size_t errlen)
{
	long deadline = -1, idle_end = idle_ms < 0 ? -1 : now_ms() + idle_ms;

	memset(burst, 0, sizeof(*burst));
	smpol_bitmap_clear(&burst->nodes);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long wait = deadline < 0 ? 1000 : deadline - now_ms();
		int rc;

		if (stop && *stop)
			return 1;
		if (deadline >= 0 && wait <= 0)
			return 0;
		if (deadline < 0 && idle_end >= 0 && now_ms() >= idle_end)
			return 2;
		rc = poll(&p, 1, (int)(wait > 1000 ? 1000 : wait));
		if (rc < 0 && errno != EINTR)
			return smpol_fail(err, errlen, errno, "waiting for uevents failed: %s", strerror(errno));
		if (rc <= 0)
			continue;
		rc = read_event(fd, kernel_only, burst, err, errlen);
		if (rc < 0)
			return rc;
		/* Each new event of the burst starts the settle delay again. */
		if (rc == 1)
			deadline = now_ms() + (long)settle_ms;
	}
}
