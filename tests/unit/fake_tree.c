/* fake_tree.c - temporary sysfs-like trees of regular files for unit tests. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fake_tree.h"
#include "text.h"

static void die(const char *what, const char *path)
{
	perror(path);
	fprintf(stderr, "fake_tree: %s failed\n", what);
	abort();
}

char *fake_tree_new(void)
{
	const char *tmp = getenv("TMPDIR");
	char *root;

	if (asprintf(&root, "%s/mpol-test-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		abort();
	if (!mkdtemp(root))
		die("mkdtemp", root);
	return root;
}

void fake_tree_free(char *root)
{
	char *cmd;

	/* Only ever a directory made by fake_tree_new. */
	if (strstr(root, "/mpol-test-") && asprintf(&cmd, "rm -rf '%s'", root) >= 0) {
		if (system(cmd) != 0)
			fprintf(stderr, "fake_tree: could not remove %s\n", root);
		free(cmd);
	}
	free(root);
}

static void make_parents(char *path)
{
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
}

void fake_tree_write(const char *root, const char *path, const char *text)
{
	char full[4096];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	make_parents(full);
	f = fopen(full, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		die("write", full);
}

void fake_tree_write_bytes(const char *root, const char *path, const void *buf, size_t len)
{
	char full[4096];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	make_parents(full);
	f = fopen(full, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0)
		die("write", full);
}

void fake_tree_copy(const char *root, const char *src)
{
	char *cmd;

	/* cp -a keeps sysfs's symlink cycles as links */
	if (asprintf(&cmd, "cp -a '%s'/. '%s'/", src, root) < 0)
		abort();
	if (system(cmd) != 0)
		die("cp -a", src);
	free(cmd);
}

const char *fake_tree_read(const char *root, const char *path)
{
	static char buf[16384];
	char full[4096];
	size_t n;
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	f = fopen(full, "r");
	if (!f)
		return "<missing>";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return buf;
}

void fake_tree_wi(const char *root, const char *auto_name, const char *auto_value, const char *pairs)
{
	char path[4096], val[16];
	const char *p = pairs;
	int node, weight, used;

	if (auto_name) {
		snprintf(path, sizeof(path), FAKE_WI_DIR "/%s", auto_name);
		fake_tree_write(root, path, auto_value);
	}
	while (sscanf(p, " %d:%d%n", &node, &weight, &used) == 2) {
		snprintf(path, sizeof(path), FAKE_WI_DIR "/node%d", node);
		snprintf(val, sizeof(val), "%d\n", weight);
		fake_tree_write(root, path, val);
		p += used;
	}
	/* An empty table still has the directory. */
	snprintf(path, sizeof(path), "%s" FAKE_WI_DIR, root);
	strcat(path, "/");
	make_parents(path);
}

const char *fixture_path(const char *name)
{
	static char path[4096];
	const char *dir = getenv("MPOL_TEST_FIXTURES");

	if (!dir) {
		fprintf(stderr, "MPOL_TEST_FIXTURES is not set (make check sets it)\n");
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

const struct smpol_host *fake_host(const char *fsroot, const char *statedir)
{
	static struct smpol_host ring[8];
	static unsigned next;
	struct smpol_host *h = &ring[next++ % 8];

	smpol_host_free(h);   /* the ring's oldest */
	if (smpol_host_default(h) < 0 || smpol_text_set(&h->fsroot, fsroot && *fsroot ? fsroot : "/") < 0 ||
	    (statedir && smpol_text_set(&h->statedir, statedir) < 0)) {
		fprintf(stderr, "fake_host: out of memory\n");
		exit(1);
	}
	return h;
}

int fake_state_setup(void **state)
{
	struct fake_state *fx = calloc(1, sizeof(*fx));

	fx->root = fake_tree_new();
	snprintf(fx->dir, sizeof(fx->dir), "%s/state", fx->root);
	if (smpol_host_copy(&fx->host, fake_host(NULL, fx->dir)) < 0)
		return -1;
	*state = fx;
	return 0;
}

int fake_state_teardown(void **state)
{
	struct fake_state *fx = *state;

	fake_tree_free(fx->root);
	smpol_host_free(&fx->host);
	free(fx);
	return 0;
}
