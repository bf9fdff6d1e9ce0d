/* numa_maps.c - parse /proc/PID/numa_maps into pages per node and policy (see
 * numa_maps.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "numa_maps.h"

/* Policies whose name the kernel prints with a space in it. */
static const char *const spaced_policies[] = { "weighted interleave", "prefer (many)" };

void smpol_numa_usage_init(struct smpol_numa_usage *u)
{
	memset(u, 0, sizeof(*u));
	u->max_node = -1;
}

static bool parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]) || v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

/* Length of the policy at the start of s: one word, or a spaced name and its suffix. */
static size_t policy_length(const char *s)
{
	size_t n = 0;

	for (size_t i = 0; i < sizeof(spaced_policies) / sizeof(spaced_policies[0]); i++) {
		size_t len = strlen(spaced_policies[i]);

		if (!strncmp(s, spaced_policies[i], len)) {
			n = len;
			break;
		}
	}
	while (s[n] && s[n] != ' ')
		n++;
	return n;
}

static void add_policy(struct smpol_numa_usage *u, const char *policy, size_t len, uint64_t pages)
{
	int i;

	if (len >= sizeof(u->policies[0].policy))
		len = sizeof(u->policies[0].policy) - 1;
	for (i = 0; i < u->npolicies; i++)
		if (strlen(u->policies[i].policy) == len && !strncmp(u->policies[i].policy, policy, len))
			break;
	if (i == u->npolicies) {
		if (i == SMPOL_NUMA_POLICIES) {
			u->policies_dropped++;
			return;
		}
		memcpy(u->policies[i].policy, policy, len);
		u->policies[i].policy[len] = '\0';
		u->npolicies++;
	}
	u->policies[i].pages += pages;
	/* keep most pages first: bubble the grown entry up */
	for (; i > 0 && u->policies[i].pages > u->policies[i - 1].pages; i--) {
		struct smpol_numa_policy_pages t = u->policies[i];

		u->policies[i] = u->policies[i - 1];
		u->policies[i - 1] = t;
	}
}

/*
 * One VMA line (NUL-terminated, no newline). Two passes over its tokens: the page
 * size comes last on the line, and the counts before it are in its unit.
 */
static int parse_line(const char *line, int lineno, struct smpol_numa_usage *u, char *err, size_t errlen)
{
	const char *p = line, *policy, *tok;
	uint64_t page_kib = SMPOL_PAGE_KIB, vma_pages = 0;
	bool file = false;
	size_t policy_len;
	int pass;

	while (isxdigit((unsigned char)*p))
		p++;
	if (p == line || (*p != ' ' && *p != '\0'))
		return smpol_fail(err, errlen, EINVAL,
				 "numa_maps line %d does not start with an address: '%.60s'", lineno, line);
	while (*p == ' ')
		p++;
	policy = p;
	policy_len = policy_length(p);
	if (policy_len == 0)
		return smpol_fail(err, errlen, EINVAL, "numa_maps line %d has no policy: '%.60s'", lineno, line);
	p += policy_len;

	for (pass = 0; pass < 2; pass++) {
		for (tok = p; *tok;) {
			size_t n;
			const char *eq;

			while (*tok == ' ')
				tok++;
			n = strcspn(tok, " ");
			if (n == 0)
				break;
			eq = memchr(tok, '=', n);
			if (pass == 0 && n > 5 && !strncmp(tok, "file=", 5)) {
				file = true;
			} else if (pass == 0 && eq && (size_t)(eq - tok) == 17 &&
				   !strncmp(tok, "kernelpagesize_kB", 17)) {
				if (!parse_u64(eq + 1, n - 18, &page_kib) || page_kib < SMPOL_PAGE_KIB ||
				    page_kib % SMPOL_PAGE_KIB)
					return smpol_fail(err, errlen, EINVAL,
							 "numa_maps line %d: unsupported page size '%.*s'",
							 lineno, (int)n, tok);
			} else if (tok[0] == 'N' && eq && eq > tok + 1 && isdigit((unsigned char)tok[1])) {
				uint64_t node, count;

				if (!parse_u64(tok + 1, (size_t)(eq - tok - 1), &node) || node >= SMPOL_MAX_NODES ||
				    !parse_u64(eq + 1, n - (size_t)(eq - tok) - 1, &count))
					return smpol_fail(err, errlen, EINVAL,
							 "numa_maps line %d: bad page count '%.*s' (want N<node>=<pages>, node < %d)",
							 lineno, (int)n, tok, SMPOL_MAX_NODES);
				if (pass == 1) {
					uint64_t pages = count * (page_kib / SMPOL_PAGE_KIB);

					if (file)
						u->file[node] += pages;
					else
						u->anon[node] += pages;
					vma_pages += pages;
					if ((int)node > u->max_node)
						u->max_node = (int)node;
				} else if (count > UINT64_MAX / (1024 * 1024)) {
					return smpol_fail(err, errlen, EINVAL,
							 "numa_maps line %d: page count '%.*s' is out of range",
							 lineno, (int)n, tok);
				}
			}
			tok += n;
		}
	}
	if (!file && vma_pages)
		add_policy(u, policy, policy_len, vma_pages);
	return 0;
}

int smpol_numa_maps_parse(const char *text, struct smpol_numa_usage *u, char *err, size_t errlen)
{
	struct smpol_numa_usage *tmp;
	char *copy, *line, *save = NULL;
	int lineno = 0, rc = 0;

	/* parse into a copy so that a malformed text leaves u as it was */
	tmp = malloc(sizeof(*tmp));
	copy = strdup(text);
	if (!tmp || !copy) {
		free(tmp);
		free(copy);
		return smpol_fail(err, errlen, ENOMEM, "out of memory parsing numa_maps");
	}
	*tmp = *u;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		lineno++;
		if (line[strspn(line, " \t")] == '\0')
			continue;
		rc = parse_line(line, lineno, tmp, err, errlen);
		if (rc < 0)
			break;
	}
	if (rc == 0) {
		tmp->nprocs++;
		*u = *tmp;
	}
	free(copy);
	free(tmp);
	return rc;
}

/* The whole of a /proc file; *len excludes the NUL added at the end. */
static int read_proc_file(const char *path, char **buf, size_t *len)
{
	size_t cap = 16384;
	int fd, rc = 0;

	*len = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*buf = malloc(cap + 1);
	if (!*buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		ssize_t n;

		if (*len == cap) {
			char *bigger = realloc(*buf, cap * 2 + 1);

			if (!bigger) {
				rc = -ENOMEM;
				break;
			}
			*buf = bigger;
			cap *= 2;
		}
		n = read(fd, *buf + *len, cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		*len += (size_t)n;
	}
	close(fd);
	if (rc < 0) {
		free(*buf);
		*buf = NULL;
		return rc;
	}
	(*buf)[*len] = '\0';
	return 0;
}

static const char *root_of(const char *procroot)
{
	return procroot && *procroot && strcmp(procroot, "/") ? procroot : "";
}

int smpol_numa_maps_text(const char *procroot, pid_t pid, char **text, char *err, size_t errlen)
{
	char path[4200];
	size_t len;
	int rc;

	snprintf(path, sizeof(path), "%s/proc/%d/numa_maps", root_of(procroot), (int)pid);
	rc = read_proc_file(path, text, &len);
	if (rc == -ENOENT || rc == -ESRCH)
		return smpol_fail(err, errlen, -rc, "process %d has exited", (int)pid);
	if (rc < 0)
		return smpol_fail(err, errlen, -rc, "cannot read %s: %s%s", path, strerror(-rc),
				 rc == -EACCES || rc == -EPERM ? " (sampling needs root or the process owner)" : "");
	/* a process that is exiting (or a kernel thread) has no memory map left */
	if (len == 0) {
		free(*text);
		*text = NULL;
		return smpol_fail(err, errlen, ESRCH, "process %d has exited", (int)pid);
	}
	return 0;
}

int smpol_numa_maps_read(const char *procroot, pid_t pid, struct smpol_numa_usage *u,
			char *err, size_t errlen)
{
	char *text;
	int rc = smpol_numa_maps_text(procroot, pid, &text, err, errlen);

	if (rc == 0) {
		rc = smpol_numa_maps_parse(text, u, err, errlen);
		free(text);
	}
	return rc;
}

int smpol_numa_maps_mapping(const char *text, uintptr_t start, char *policy, size_t plen,
			    struct smpol_numa_usage *u, char *err, size_t errlen)
{
	char key[24], *line;
	const char *at = text;
	size_t keylen = (size_t)snprintf(key, sizeof(key), "%lx ", (unsigned long)start), n;
	int rc;

	while (at && strncmp(at, key, keylen))
		if ((at = strchr(at, '\n')))
			at++;
	if (!at || !*at)
		return smpol_fail(err, errlen, ENOENT, "no mapping starts at 0x%lx", (unsigned long)start);
	n = strcspn(at, "\n");
	if (!(line = strndup(at, n)))
		return smpol_fail(err, errlen, ENOMEM, "out of memory parsing numa_maps");
	rc = parse_line(line, 1, u, err, errlen);
	if (rc == 0) {
		size_t len = policy_length(line + keylen);

		snprintf(policy, plen, "%.*s", (int)len, line + keylen);
	}
	free(line);
	return rc;
}

/* Append the children of every thread of pid to out (best effort: it may exit). */
static void add_children(const char *root, pid_t pid, struct smpol_proc_member *out, int *n, int max)
{
	char path[4200];
	struct dirent *de;
	DIR *dir;

	snprintf(path, sizeof(path), "%s/proc/%d/task", root, (int)pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((de = readdir(dir)) && *n < max) {
		char file[4600], *text, *p, *end;
		size_t len;

		if (de->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s/children", path, de->d_name);
		if (read_proc_file(file, &text, &len) < 0)
			continue;
		for (p = text; *n < max; p = end) {
			long child = strtol(p, &end, 10);

			if (end == p)
				break;
			if (child > 0)
				out[(*n)++] = (struct smpol_proc_member){ (pid_t)child, pid };
		}
		free(text);
	}
	closedir(dir);
}

int smpol_proc_tree(const char *procroot, pid_t pid, int max, struct smpol_proc_member *out, int *n,
		    char *err, size_t errlen)
{
	const char *root = root_of(procroot);
	char path[4200];
	struct stat sb;

	*n = 0;
	if (max < 1)
		return smpol_fail(err, errlen, EINVAL, "max must be at least 1, not %d", max);
	snprintf(path, sizeof(path), "%s/proc/%d", root, (int)pid);
	if (stat(path, &sb) < 0)
		return smpol_fail(err, errlen, ESRCH, "process %d has exited", (int)pid);
	out[(*n)++] = (struct smpol_proc_member){ pid, 0 };
	for (int i = 0; i < *n; i++)
		add_children(root, out[i].pid, out, n, max);
	return 0;
}

int smpol_numa_maps_read_tree(const char *procroot, pid_t pid, int max_procs,
			     struct smpol_numa_usage *u, char *err, size_t errlen)
{
	struct smpol_proc_member *members;
	int n, rc;

	if (max_procs < 1)
		return smpol_fail(err, errlen, EINVAL, "max_procs must be at least 1, not %d", max_procs);
	members = malloc(sizeof(*members) * (size_t)max_procs);
	if (!members)
		return smpol_fail(err, errlen, ENOMEM, "out of memory sampling process %d", (int)pid);
	rc = smpol_numa_maps_read(procroot, pid, u, err, errlen);
	if (rc == 0)
		rc = smpol_proc_tree(procroot, pid, max_procs, members, &n, err, errlen);
	for (int i = 1; rc == 0 && i < n; i++) {
		char ignored[SMPOL_ERRLEN];

		/* a descendant that exits or is unreadable is simply not counted */
		smpol_numa_maps_read(procroot, members[i].pid, u, ignored, sizeof(ignored));
	}
	free(members);
	return rc;
}

uint64_t smpol_numa_usage_anon_total(const struct smpol_numa_usage *u)
{
	uint64_t sum = 0;

	for (int i = 0; i <= u->max_node; i++)
		sum += u->anon[i];
	return sum;
}

int smpol_numa_policy_nodes(const char *policy, struct smpol_bitmap *nodes)
{
	const char *colon = strrchr(policy, ':');

	if (!colon || !colon[1])
		return -ENOENT;
	return smpol_bitmap_parse_list(colon + 1, SMPOL_MAX_NODES, nodes, NULL, 0);
}
