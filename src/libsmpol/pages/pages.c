/* pages.c - page queries and moves on another task (see pages.h). Raw syscalls, no libnuma. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "array.h"
#include "error.h"
#include "pages.h"
#include "pmbind.h"

#define SMPOL_MF_MOVE_FLAG (1 << 1)  /* MPOL_MF_MOVE in <linux/mempolicy.h> */

static const char *const backend_names[] = {
	[SMPOL_BACKEND_AUTO] = "auto",
	[SMPOL_BACKEND_PROCESS_MBIND] = "process_mbind",
	[SMPOL_BACKEND_MOVE_PAGES] = "move_pages",
	[SMPOL_BACKEND_MIGRATE_PAGES] = "migrate_pages",
};

int smpol_backend_parse(const char *text, enum smpol_backend *b, char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(backend_names) / sizeof(backend_names[0]); i++) {
		if (text && !strcmp(text, backend_names[i])) {
			*b = (enum smpol_backend)i;
			return 0;
		}
	}
	char q[SMPOL_QUOTE_LEN];

	return smpol_fail(err, errlen, EINVAL,
			 "unknown backend %s: choose auto, process_mbind, move_pages or migrate_pages",
			 smpol_quote(text, q, sizeof(q)));
}

const char *smpol_backend_name(enum smpol_backend b)
{
	return (unsigned)b < sizeof(backend_names) / sizeof(backend_names[0]) ? backend_names[b] : "?";
}

int smpol_backend_choose(enum smpol_backend want, long pmbind_nr, enum smpol_backend *chosen,
			char *why, size_t whylen, char *err, size_t errlen)
{
	char perr[SMPOL_ERRLEN] = "";
	bool have_move;
	int rc;

	/* A zero-length query of ourselves: 0 on a NUMA kernel, ENOSYS without NUMA. */
	have_move = syscall(SYS_move_pages, 0, 0UL, NULL, NULL, NULL, 0) == 0;
	switch (want) {
	case SMPOL_BACKEND_PROCESS_MBIND:
		if (!pmbind_nr)
			return smpol_fail(err, errlen, EINVAL,
					 "backend process_mbind needs its syscall number (--process-mbind-nr): it is not upstream");
		rc = smpol_pmbind_probe(pmbind_nr, err, errlen);
		if (rc == 0)
			rc = smpol_pmbind_may_change_others(err, errlen);
		if (rc < 0)
			return rc;
		if (!have_move)
			return smpol_fail(err, errlen, ENOSYS, "this kernel has no move_pages (built without NUMA)");
		snprintf(why, whylen, "process_mbind (syscall %ld) as asked; the probe confirmed it", pmbind_nr);
		break;
	case SMPOL_BACKEND_MOVE_PAGES:
		if (!have_move)
			return smpol_fail(err, errlen, ENOSYS, "this kernel has no move_pages (built without NUMA)");
		snprintf(why, whylen, "move_pages as asked: only the surplus pages move");
		break;
	case SMPOL_BACKEND_MIGRATE_PAGES:
		snprintf(why, whylen, "migrate_pages as asked: whole nodes move, only nodes outside the plan are emptied");
		break;
	case SMPOL_BACKEND_AUTO:
	default:
		if (pmbind_nr && smpol_pmbind_probe(pmbind_nr, perr, sizeof(perr)) == 0 &&
		    smpol_pmbind_may_change_others(perr, sizeof(perr)) == 0 && have_move) {
			want = SMPOL_BACKEND_PROCESS_MBIND;
			snprintf(why, whylen, "process_mbind (syscall %ld) is configured and the probe confirmed it", pmbind_nr);
		} else if (have_move) {
			want = SMPOL_BACKEND_MOVE_PAGES;
			snprintf(why, whylen, "move_pages: %s; only the surplus pages move",
				 pmbind_nr ? perr : "process_mbind is not configured (it is not upstream)");
		} else {
			want = SMPOL_BACKEND_MIGRATE_PAGES;
			snprintf(why, whylen, "migrate_pages: this kernel answers ENOSYS to move_pages");
		}
		break;
	}
	*chosen = want;
	return 0;
}

/* One maps line: "start-end perms offset dev inode [path]". */
static bool wanted_mapping(const char *perms, const char *path)
{
	if (perms[3] != 'p' || !strncmp(perms, "---", 3))
		return false;
	return !*path || !strcmp(path, "[heap]") || !strncmp(path, "[stack", 6) ||
	       !strncmp(path, "[anon:", 6);
}

int smpol_pages_regions_parse(const char *text, struct smpol_region **regions, int *nregions,
			     char *err, size_t errlen)
{
	struct smpol_region *r = NULL, *bigger;
	int n = 0, lineno = 0;
	size_t cap = 0;
	bool kept = false;             /* the last mapping header was appended to r */
	const char *line = text;

	*regions = NULL;
	*nregions = 0;
	while (line && *line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		char buf[4096], perms[8] = "", path[4096] = "";
		uintmax_t start, end;
		int used = 0;

		lineno++;
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = '\0';
		line = eol ? eol + 1 : NULL;
		if (!*buf)
			continue;
		if (sscanf(buf, "%jx-%jx %7s %*s %*s %*s %n", &start, &end, perms, &used) < 3) {
			size_t key = strspn(buf, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_");
			unsigned long long kb;

			/* smaps: "Key: value" lines follow each mapping. A mapping with no
			 * resident page costs a walk and moves nothing: drop it. */
			if (sscanf(buf, "Rss: %llu kB", &kb) == 1 && kept && kb == 0)
				n--;
			else if (sscanf(buf, "Rss: %llu kB", &kb) == 1 && kept)
				r[n - 1].rss_kb = kb;
			if (key > 0 && buf[key] == ':') {
				kept = kept && strncmp(buf, "Rss:", 4);
				continue;
			}
		}
		kept = false;
		if (strlen(perms) < 4 || end < start) {
			free(r);
			return smpol_fail(err, errlen, EINVAL, "maps line %d is malformed: '%.80s'", lineno, buf);
		}
		if (used > 0)
			snprintf(path, sizeof(path), "%s", buf + used);
		if (!wanted_mapping(perms, path) || end == start)
			continue;
		bigger = smpol_array_room(r, &cap, (size_t)n, sizeof(*r), 32);
		if (!bigger) {
			free(r);
			return smpol_fail(err, errlen, ENOMEM, "out of memory for %d mappings", n + 1);
		}
		r = bigger;
		r[n].start = (uintptr_t)start;
		r[n].end = (uintptr_t)end;
		r[n].rss_kb = 0;
		n++;
		kept = true;
	}
	*regions = r;
	*nregions = n;
	return 0;
}

int smpol_pages_regions(pid_t pid, bool resident_only, struct smpol_region **regions, int *nregions,
		       char *err, size_t errlen)
{
	char path[64], *text = NULL;
	size_t len = 0;
	FILE *f, *mem;
	int c, rc;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, resident_only ? "smaps" : "maps");
	f = fopen(path, "re");
	if (!f) {
		rc = errno;
		if (rc == ENOENT || rc == ESRCH)
			return smpol_fail(err, errlen, ESRCH, "process %d has exited", (int)pid);
		return smpol_fail(err, errlen, rc, "cannot read %s: %s", path, strerror(rc));
	}
	mem = open_memstream(&text, &len);
	if (!mem) {
		fclose(f);
		return smpol_fail(err, errlen, ENOMEM, "out of memory reading %s", path);
	}
	while ((c = getc(f)) != EOF)
		putc(c, mem);
	rc = ferror(f) ? errno : 0;
	fclose(f);
	fclose(mem);
	if (rc) {
		free(text);
		return smpol_fail(err, errlen, rc == ESRCH ? ESRCH : rc, "cannot read %s: %s", path, strerror(rc));
	}
	rc = smpol_pages_regions_parse(text, regions, nregions, err, errlen);
	free(text);
	return rc;
}

/* PAGEMAP_SCAN from <linux/fs.h> of Linux 6.7; Debian 12's headers predate it. */
#define PAGE_IS_PRESENT_CATEGORY (1 << 3)

struct pm_page_region {
	uint64_t start, end, categories;
};

struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define PAGEMAP_SCAN_IOCTL _IOWR('f', 16, struct pm_scan_arg)

int smpol_pages_present(int pagemap_fd, uintptr_t start, uintptr_t end, struct smpol_region *out, int max,
		       int *n, uintptr_t *walk_end)
{
	struct pm_page_region vec[64];
	struct pm_scan_arg arg = {
		.size = sizeof(arg), .start = start, .end = end, .vec = (uintptr_t)vec,
		.vec_len = (uint64_t)(max < 64 ? max : 64),
		.category_mask = PAGE_IS_PRESENT_CATEGORY, .return_mask = PAGE_IS_PRESENT_CATEGORY,
	};
	int rc;

	*n = 0;
	do
		rc = ioctl(pagemap_fd, PAGEMAP_SCAN_IOCTL, &arg);
	while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -errno;
	for (int i = 0; i < rc; i++) {
		out[i].start = (uintptr_t)vec[i].start;
		out[i].end = (uintptr_t)vec[i].end;
	}
	*n = rc;
	*walk_end = (uintptr_t)arg.walk_end;
	return 0;
}

static int task_error(pid_t pid, int e, const char *what, char *err, size_t errlen)
{
	if (e == ESRCH)
		return smpol_fail(err, errlen, ESRCH, "process %d has exited", (int)pid);
	if (e == EPERM || e == EACCES)
		return smpol_fail(err, errlen, EPERM,
				 "not allowed to %s the pages of process %d (another user's process needs root or CAP_SYS_NICE)",
				 what, (int)pid);
	if (e == ENOSYS)
		return smpol_fail(err, errlen, ENOSYS, "this kernel has no %s (built without NUMA)",
				 !strcmp(what, "migrate") ? "migrate_pages" : "move_pages");
	return smpol_fail(err, errlen, e, "cannot %s the pages of process %d: %s", what, (int)pid, strerror(e));
}

int smpol_pages_query(pid_t pid, void **addrs, unsigned long n, int *status, char *err, size_t errlen)
{
	long rc;

	do
		rc = syscall(SYS_move_pages, pid, n, addrs, NULL, status, 0);
	while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return task_error(pid, errno, "query", err, errlen);
	return 0;
}

int smpol_pages_move(pid_t pid, void **addrs, const int *nodes, unsigned long n, int *status,
		    char *err, size_t errlen)
{
	long rc;

	/* A positive return counts pages left behind; their status says why. A signal
	 * may cut the call short: moving a page again to where it is costs nothing. */
	do
		rc = syscall(SYS_move_pages, pid, n, addrs, nodes, status, SMPOL_MF_MOVE_FLAG);
	while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return task_error(pid, errno, "move", err, errlen);
	return 0;
}

int smpol_pages_migrate(pid_t pid, const struct smpol_bitmap *from, const struct smpol_bitmap *to,
		       long *left, char *err, size_t errlen)
{
	unsigned long old_mask[SMPOL_MASK_LONGS], new_mask[SMPOL_MASK_LONGS];
	long rc;

	smpol_bitmap_to_mask(from, old_mask);
	smpol_bitmap_to_mask(to, new_mask);
	rc = syscall(SYS_migrate_pages, pid, (unsigned long)SMPOL_MAX_NODES + 1, old_mask, new_mask);
	if (rc < 0)
		return task_error(pid, errno, "migrate", err, errlen);
	*left = rc;
	return 0;
}
