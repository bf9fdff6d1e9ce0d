/* watch_log.c - how every part of `mpolctl watch` reports what it does: one line on
 * stderr (the service's journal) and one in syslog. Its own file so that the verb
 * (cmd_watch.c) and the migration scan (watch_migration.c) both call down to it and
 * never each other both ways. */
#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

#include "watch.h"

void watch_log(int prio, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(stderr, "mpolctl watch: %s\n", msg);
	syslog(prio, "watch: %s", msg);
}
