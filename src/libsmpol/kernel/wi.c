/* wi.c - read, write, restore and serialize the kernel's weighted-interleave table. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "sysfs.h"
#include "wi.h"

bool smpol_is_auto_name(const char *name)
{
	/* 6.16 named it auto; some 6.18/6.19 builds leak the macro's name __auto_type */
	return !strcmp(name, "auto") || !strcmp(name, "__auto_type");
}

bool smpol_wi_weights_for_possible(const struct smpol_wi_table *t)
{
	return t->present && !t->auto_name[0];
}

/* "node12" -> 12; -1 for any other name. */
static int node_from_name(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "node", 4) || name[4] < '0' || name[4] > '9')
		return -1;
	errno = 0;
	n = strtol(name + 4, &end, 10);
	if (errno || *end || n >= SMPOL_MAX_NODES)
		return -1;
	return (int)n;
}

static int read_weight(const char *path, int node, uint8_t *w, char *err, size_t errlen)
{
	uint64_t v;
	int rc = smpol_read_u64(path, &v);

	if (rc == -EINVAL || (rc == 0 && v > 255))
		return smpol_fail(err, errlen, EINVAL, "%s does not hold a weight 0-255 for node %d", path, node);
	if (rc < 0)
		return smpol_fail(err, errlen, -rc, "cannot read %s: %s", path, smpol_read_error(rc));
	*w = (uint8_t)v;
	return 0;
}

static int read_auto(const char *path, int *enabled, char *err, size_t errlen)
{
	char buf[32], q[SMPOL_QUOTE_LEN];
	int rc = smpol_read_text(path, buf, sizeof(buf));

	if (rc < 0)
		return smpol_fail(err, errlen, -rc, "cannot read %s: %s", path, smpol_read_error(rc));
	if (!strcmp(buf, "true") || !strcmp(buf, "1"))
		*enabled = 1;
	else if (!strcmp(buf, "false") || !strcmp(buf, "0"))
		*enabled = 0;
	else
		return smpol_fail(err, errlen, EINVAL, "%s holds %s, expected true or false", path,
				  smpol_quote(buf, q, sizeof(q)));
	return 0;
}

int smpol_wi_read(const struct smpol_host *h, struct smpol_wi_table *t, char *err, size_t errlen)
{
	char dir[4096], path[4400];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	t->auto_enabled = -1;
	if (smpol_fs_path(h->fsroot, dir, sizeof(dir), SMPOL_WI_DIR) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the sysfs root '%s' is too long", h->fsroot);
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;      /* kernel before 6.9: no table, not an error */
		return smpol_fail(err, errlen, errno, "cannot open %s: %s", dir, strerror(errno));
	}
	t->present = true;
	while (rc == 0 && (de = readdir(d))) {
		int node = node_from_name(de->d_name);

		if (node < 0 && !smpol_is_auto_name(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (node >= 0) {
			rc = read_weight(path, node, &t->weight[node], err, errlen);
			if (rc == 0)
				smpol_bitmap_set(&t->has_file, node);
		} else {
			if (strlen(de->d_name) < sizeof(t->auto_name))
				strcpy(t->auto_name, de->d_name);
			rc = read_auto(path, &t->auto_enabled, err, errlen);
		}
		/* A node hot-removed between readdir and read is simply not in the table. */
		if (rc == -ENOENT) {
			rc = 0;
			if (node < 0) {
				t->auto_name[0] = '\0';
				t->auto_enabled = -1;
			}
		}
	}
	closedir(d);
	return rc;
}

static int write_node(const struct smpol_host *h, int node, unsigned weight, char *err, size_t errlen)
{
	char path[4400], val[8];
	int rc;

	if (smpol_fs_path(h->fsroot, path, sizeof(path), SMPOL_WI_DIR "/node%d", node) < 0)
		return smpol_fail(err, errlen, ENAMETOOLONG, "the sysfs root '%s' is too long", h->fsroot);
	snprintf(val, sizeof(val), "%u", weight);
	rc = smpol_write_text(path, val);
	if (rc == -ENOENT)
		return smpol_fail(err, errlen, ENOENT,
				 "node %d has no weighted-interleave weight file (%s): it is offline or has no memory",
				 node, path);
	if (rc < 0)
		return smpol_fail(err, errlen, -rc, "cannot write weight %u to %s: %s", weight, path, smpol_read_error(rc));
	return 0;
}

int smpol_wi_write(const struct smpol_host *h, const struct smpol_wi_table *t,
		  const struct smpol_bitmap *which, char *err, size_t errlen)
{
	int n, rc;

	for (n = smpol_bitmap_next(which, 0); n >= 0; n = smpol_bitmap_next(which, n + 1)) {
		if (n >= SMPOL_MAX_NODES)
			return smpol_fail(err, errlen, EINVAL, "node %d is beyond the largest node id %d",
					 n, SMPOL_MAX_NODES - 1);
		if (t->weight[n] == 0)
			return smpol_fail(err, errlen, EINVAL, "weight 0 for node %d: weights are 1-255", n);
		rc = write_node(h, n, t->weight[n], err, errlen);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The auto file this kernel has, whatever the journal's kernel called it. */
static int find_auto(const struct smpol_host *h, char *path, size_t len)
{
	char dir[4096];
	struct dirent *de;
	int rc = -ENOENT;
	DIR *d;

	if (smpol_fs_path(h->fsroot, dir, sizeof(dir), SMPOL_WI_DIR) < 0)
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return -errno;
	while (rc == -ENOENT && (de = readdir(d)))
		if (smpol_is_auto_name(de->d_name))
			rc = snprintf(path, len, "%s/%s", dir, de->d_name) < (int)len ? 0 : -ENAMETOOLONG;
	closedir(d);
	return rc;
}

int smpol_wi_set_auto(const struct smpol_host *h, char *err, size_t errlen)
{
	char path[4400];
	int rc = find_auto(h, path, sizeof(path));

	if (rc == -ENOENT)
		return smpol_fail(err, errlen, EOPNOTSUPP, "this kernel has no auto mode for weighted interleave "
				 "(needs Linux 6.16); the weights stay as they are");
	if (rc == 0)
		rc = smpol_write_text(path, "true");
	if (rc == -ENODEV)
		return smpol_fail(err, errlen, ENODEV, "the kernel refused auto=true (ENODEV): it has no bandwidth "
				 "data (HMAT) to compute weights from, so auto stays off");
	if (rc < 0)
		return smpol_fail(err, errlen, -rc, "cannot turn auto mode on (%s): %s", path, smpol_read_error(rc));
	return 0;
}

int smpol_wi_restore(const struct smpol_host *h, const struct smpol_wi_table *saved, bool *auto_failed,
		    char *err, size_t errlen)
{
	struct smpol_wi_table now;
	char aerr[SMPOL_ERRLEN];
	bool known = smpol_wi_read(h, &now, NULL, 0) == 0;
	int n, rc, first = 0;

	*auto_failed = false;
	for (n = smpol_bitmap_next(&saved->has_file, 0); n >= 0 && n < SMPOL_MAX_NODES;
	     n = smpol_bitmap_next(&saved->has_file, n + 1)) {
		/* 6.9-6.15 show 0 for "never set" (default 1); there is nothing to put back. */
		if (saved->weight[n] == 0)
			continue;
		/* Only what changed: a node that refused the step's write still holds its value. */
		if (known && smpol_bitmap_test(&now.has_file, n) && now.weight[n] == saved->weight[n])
			continue;
		rc = write_node(h, n, saved->weight[n], first ? NULL : err, errlen);
		/* A node removed since the journal was written has nothing to restore. */
		if (rc < 0 && rc != -ENOENT && !first)
			first = rc;
	}
	if (first)
		return first;
	if (saved->auto_enabled != 1)
		return 0;      /* writing the nodes already turned auto off */
	rc = smpol_wi_set_auto(h, aerr, sizeof(aerr));
	if (rc == -ENODEV) {
		*auto_failed = true;
		smpol_fail(err, errlen, ENODEV, "node weights restored, but %s, with the restored weights", aerr);
		return 0;
	}
	if (rc < 0)
		return smpol_fail(err, errlen, -rc, "node weights restored, but %s", aerr);
	return 0;
}

int smpol_wi_format(const struct smpol_wi_table *t, char *buf, size_t len)
{
	size_t off;
	int n, w;

	w = snprintf(buf, len, "auto=%d", t->auto_enabled);
	if (w < 0 || (size_t)w >= len)
		return -ENOSPC;
	off = (size_t)w;
	for (n = smpol_bitmap_next(&t->has_file, 0); n >= 0 && n < SMPOL_MAX_NODES; n = smpol_bitmap_next(&t->has_file, n + 1)) {
		w = snprintf(buf + off, len - off, " %d:%u", n, t->weight[n]);
		if (w < 0 || (size_t)w >= len - off)
			return -ENOSPC;
		off += (size_t)w;
	}
	return 0;
}

static int parse_entry(const char *tok, struct smpol_wi_table *t, bool *seen_auto, char *err, size_t errlen)
{
	char *end, q[SMPOL_QUOTE_LEN];
	long node, weight;

	if (!strncmp(tok, "auto=", 5)) {
		if (*seen_auto)
			return smpol_fail(err, errlen, EINVAL, "'auto=' appears twice in the weights (%s)",
					  smpol_quote(tok, q, sizeof(q)));
		*seen_auto = true;
		if (!strcmp(tok + 5, "1") || !strcmp(tok + 5, "0") || !strcmp(tok + 5, "-1")) {
			t->auto_enabled = atoi(tok + 5);
			return 0;
		}
		return smpol_fail(err, errlen, EINVAL, "bad auto state %s: expected auto=1, auto=0 or auto=-1",
				  smpol_quote(tok, q, sizeof(q)));
	}
	node = isdigit((unsigned char)tok[0]) ? strtol(tok, &end, 10) : -1;
	if (node < 0 || *end != ':' || node >= SMPOL_MAX_NODES)
		return smpol_fail(err, errlen, EINVAL, "bad entry %s: expected NODE:WEIGHT with NODE 0-%d",
				 smpol_quote(tok, q, sizeof(q)), SMPOL_MAX_NODES - 1);
	weight = isdigit((unsigned char)end[1]) ? strtol(end + 1, &end, 10) : -1;
	if (weight < 0 || *end || weight > 255)
		return smpol_fail(err, errlen, EINVAL, "bad entry %s: the weight must be 0-255",
				  smpol_quote(tok, q, sizeof(q)));
	if (smpol_bitmap_test(&t->has_file, (int)node))
		return smpol_fail(err, errlen, EINVAL, "node %ld appears twice in the weights", node);
	smpol_bitmap_set(&t->has_file, (int)node);
	t->weight[node] = (uint8_t)weight;
	return 0;
}

int smpol_wi_parse(const char *text, struct smpol_wi_table *t, char *err, size_t errlen)
{
	char tok[64], q[SMPOL_QUOTE_LEN];
	bool seen_auto = false;
	const char *p = text;
	int rc;

	memset(t, 0, sizeof(*t));
	t->auto_enabled = -1;
	t->present = true;
	while (*p) {
		size_t n;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (!n)
			break;
		if (n >= sizeof(tok))
			return smpol_fail(err, errlen, EINVAL, "entry %s in the weights is too long",
					  smpol_quote_n(p, n, q, sizeof(q)));
		memcpy(tok, p, n);
		tok[n] = '\0';
		rc = parse_entry(tok, t, &seen_auto, err, errlen);
		if (rc < 0)
			return rc;
		p += n;
	}
	if (!seen_auto)
		return smpol_fail(err, errlen, EINVAL, "the weights %s lack the auto state (auto=1|0|-1)",
				  smpol_quote(text, q, sizeof(q)));
	return 0;
}
