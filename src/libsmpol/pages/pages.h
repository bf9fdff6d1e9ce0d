/* pages.h - where a task's pages are and moving them: move_pages, migrate_pages, and
 * process_mbind where a kernel really has it.
 *
 * Backends, best first:
 *   process_mbind  not upstream (pmbind.h). Used only when the admin names its
 *                  syscall number and a harmless probe answers as the RFC specifies.
 *                  It sets each region's policy, so that new faults in those
 *                  regions follow the plan; the pages then move with move_pages.
 *   move_pages     upstream since 2.6.18: per-page query and per-page targets, so
 *                  only the surplus moves (movement.h). The default.
 *   migrate_pages  upstream: moves every page of whole nodes. Only good for emptying
 *                  nodes that left the plan; the last resort.
 * Only the task's private anonymous memory is considered (heap, stack, anonymous
 * mappings): file pages and shared memory are placed by whoever touched them first
 * and moving them would move them for every process that maps them.
 */
#ifndef SMPOL_PAGES_H
#define SMPOL_PAGES_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bitmap.h"

enum smpol_backend {
	SMPOL_BACKEND_AUTO,
	SMPOL_BACKEND_PROCESS_MBIND,
	SMPOL_BACKEND_MOVE_PAGES,
	SMPOL_BACKEND_MIGRATE_PAGES,
};

struct smpol_region {
	uintptr_t start, end;      /* [start, end), page aligned */
	uint64_t rss_kb;           /* resident, from smaps' Rss (0 when read from maps) */
};

/* "auto", "process_mbind", "move_pages", "migrate_pages" <-> enum. -EINVAL naming the choices. */
int smpol_backend_parse(const char *text, enum smpol_backend *b, char *err, size_t errlen);
const char *smpol_backend_name(enum smpol_backend b);

/*
 * smpol_backend_choose - the backend to use and why (a sentence for the output).
 * pmbind_nr is the admin's process_mbind syscall number, 0 = not configured.
 * auto: process_mbind when configured, the probe confirms it and this process has
 * CAP_SYS_NICE (which the kernel asks for another process), else move_pages when the
 * kernel has it, else migrate_pages. An explicit choice that this kernel cannot
 * honour is an error (-ENOSYS, -EINVAL for a refused syscall number).
 */
int smpol_backend_choose(enum smpol_backend want, long pmbind_nr, enum smpol_backend *chosen,
			char *why, size_t whylen, char *err, size_t errlen);

/*
 * smpol_pages_regions - the private anonymous mappings of pid with some access.
 * resident_only: those with at least one resident page (from /proc/PID/smaps: a
 * reserved but untouched mapping, however large, is not walked); else every one (from
 * /proc/PID/maps: a policy set on a mapping governs the pages it faults later).
 * *regions is malloc'ed; free it. -ESRCH when the process is gone.
 */
int smpol_pages_regions(pid_t pid, bool resident_only, struct smpol_region **regions, int *nregions,
		       char *err, size_t errlen);

/* Parse the text of a smaps (or maps: no Rss, every mapping kept) file the same way. */
int smpol_pages_regions_parse(const char *text, struct smpol_region **regions, int *nregions,
			     char *err, size_t errlen);

/*
 * smpol_pages_present - the runs of present pages in [start, end) of the task whose
 * /proc/PID/pagemap is open as pagemap_fd, from the PAGEMAP_SCAN ioctl (Linux 6.7):
 * the kernel walks only populated page tables, so a huge, sparsely touched mapping
 * (a sanitizer's shadow, a runtime's reservation) costs what it holds, not its size.
 * Fills out[0..*n) (at most max runs) and *walk_end (== end when the range is done).
 * -ENOTTY when the kernel has no PAGEMAP_SCAN: walk every page instead.
 */
int smpol_pages_present(int pagemap_fd, uintptr_t start, uintptr_t end, struct smpol_region *out, int max,
		       int *n, uintptr_t *walk_end);

/*
 * smpol_pages_query - status[i] = node of page addrs[i], or -errno (-ENOENT not
 * present, -EFAULT unmapped). -ESRCH when the task is gone, -EPERM when not allowed.
 */
int smpol_pages_query(pid_t pid, void **addrs, unsigned long n, int *status, char *err, size_t errlen);

/*
 * smpol_pages_move - move page addrs[i] to nodes[i] (MPOL_MF_MOVE: pages mapped only by
 * this task). status[i] = the node it is on afterwards or -errno (-EBUSY busy or
 * pinned, -EACCES shared with another process, -ENOMEM target full). A partial
 * failure is 0: the caller reads status. -ESRCH / -EPERM as above.
 */
int smpol_pages_move(pid_t pid, void **addrs, const int *nodes, unsigned long n, int *status,
		    char *err, size_t errlen);

/* migrate_pages(2): every page of the task on `from` to `to`. *left = pages that did not move. */
int smpol_pages_migrate(pid_t pid, const struct smpol_bitmap *from, const struct smpol_bitmap *to,
		       long *left, char *err, size_t errlen);

#endif
