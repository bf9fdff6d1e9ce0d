/* fake_tree.h - temporary sysfs-like trees of regular files for unit tests. */
#ifndef SMPOL_TEST_FAKE_TREE_H
#define SMPOL_TEST_FAKE_TREE_H

#include <stddef.h>

#include "host.h"

#define FAKE_WI_DIR "/sys/kernel/mm/mempolicy/weighted_interleave"

/* A fresh directory under $TMPDIR (or /tmp); aborts the test program on failure. */
char *fake_tree_new(void);
/* Remove the tree and free the name. */
void fake_tree_free(char *root);
/* Write root + path (parents created), replacing what was there. */
void fake_tree_write(const char *root, const char *path, const char *text);
/* Write bytes (a binary file such as an ACPI table) to root + path. */
void fake_tree_write_bytes(const char *root, const char *path, const void *buf, size_t len);
/* Copy every file of the directory src (a fixture tree) into root, links as links. */
void fake_tree_copy(const char *root, const char *src);
/* The file's text without trailing newlines, in a static buffer ("<missing>" when absent). */
const char *fake_tree_read(const char *root, const char *path);
/* A weighted-interleave table: "auto=true 0:7 1:7 2:2" -> the auto file named
 * auto_name (omitted when auto_name is NULL) and one nodeN file per pair. */
void fake_tree_wi(const char *root, const char *auto_name, const char *auto_value, const char *pairs);

/* A host reading sysfs under fsroot, with its state in statedir (NULL = the default).
 * Points into a small ring of static hosts, each freed when the ring comes back to
 * it: good for a few calls at once (smpol_host_copy one to keep it). */
const struct smpol_host *fake_host(const char *fsroot, const char *statedir);

/* A state directory not made yet (ROOT/state, ROOT a fresh tree) and a host that keeps
 * its state there: the fixture of the tests of what lives in STATEDIR. */
struct fake_state {
	char *root;
	char dir[4200];
	struct smpol_host host;        /* its own (teardown frees it) */
};
/* cmocka setup and teardown: *state is a struct fake_state. */
int fake_state_setup(void **state);
int fake_state_teardown(void **state);

/* The captured or crafted tree tests/fixtures/NAME ($MPOL_TEST_FIXTURES, which `make
 * check` sets), in a static buffer; exits the test program when the variable is unset. */
const char *fixture_path(const char *name);

#endif
