/* pages-where.h - on which NUMA nodes a process's pages are, for the guest's test
 * programs (page-touch, pmbind-test): a move_pages(2) query of every page of a
 * range, the range's line in numa_maps (its policy and per-node counts), and where
 * the caller's mapping holding an address starts.
 * Raw syscalls: the guest has no libnuma. Header-only, as each program is one file.
 */
#ifndef VM_PAGES_WHERE_H
#define VM_PAGES_WHERE_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define WHERE_MAX_NODES 64
#define WHERE_BATCH 1024

/* cnt[node] = pages of [addr, addr + len) on node, *absent = pages not present.
 * pid 0 is the caller. -1 with errno when move_pages fails. */
static inline int where_query(pid_t pid, char *addr, size_t len, unsigned long *cnt, unsigned long *absent)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), np = len / pg;
	void *pages[WHERE_BATCH];
	int status[WHERE_BATCH];

	memset(cnt, 0, WHERE_MAX_NODES * sizeof(*cnt));
	*absent = 0;
	for (size_t done = 0; done < np;) {
		size_t n = np - done < WHERE_BATCH ? np - done : WHERE_BATCH;
		for (size_t i = 0; i < n; i++)
			pages[i] = addr + (done + i) * pg;
		/* nodes == NULL: only ask where each page is. */
		if (syscall(SYS_move_pages, pid, n, pages, NULL, status, 0) != 0)
			return -1;
		for (size_t i = 0; i < n; i++) {
			if (status[i] >= 0 && status[i] < WHERE_MAX_NODES)
				cnt[status[i]]++;
			else
				(*absent)++;
		}
		done += n;
	}
	return 0;
}

/* The numa_maps line of the mapping that starts at addr ("ADDR POLICY anon=.. N0=..
 * kernelpagesize_kB=4"): policy gets its policy field, cnt its N counts. pid 0 is the
 * caller. -1 with errno ENOENT when no mapping starts at addr, or fopen's errno. */
static inline int where_numa_maps(pid_t pid, const void *addr, char *policy, size_t plen, unsigned long *cnt)
{
	char path[64], key[32], line[8192];
	int found = 0;
	FILE *f;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/numa_maps", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/numa_maps");
	snprintf(key, sizeof(key), "%lx ", (unsigned long)addr);
	memset(cnt, 0, WHERE_MAX_NODES * sizeof(*cnt));
	if (!(f = fopen(path, "r")))
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, strlen(key)))
			continue;
		found = 1;
		line[strcspn(line, "\n")] = '\0';
		/* The policy is the first field, two for "weighted interleave" and
		 * "prefer (many)", each perhaps with "=static" and the nodes. */
		char *pol = line + strlen(key), *cut = strchr(pol, ' ');
		if (cut && (!strncmp(pol, "weighted ", 9) || !strncmp(pol, "prefer (many)", 13)))
			cut = strchr(cut + 1, ' ');
		snprintf(policy, plen, "%.*s", cut ? (int)(cut - pol) : (int)strlen(pol), pol);
		for (char *p = line; (p = strstr(p, " N")); p++) {
			int n;
			unsigned long c;
			if (sscanf(p, " N%d=%lu", &n, &c) == 2 && n >= 0 && n < WHERE_MAX_NODES)
				cnt[n] = c;
		}
	}
	fclose(f);
	if (!found)
		errno = ENOENT;
	return found ? 0 : -1;
}

/* Where the mapping holding addr starts, from /proc/self/maps; 0 when none does. */
static inline uintptr_t mapping_start(const void *addr)
{
	uintptr_t a = (uintptr_t)addr, start = 0, s, e;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !start && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &s, &e) == 2 && s <= a && a < e)
			start = s;
	if (f)
		fclose(f);
	return start;
}

#endif
