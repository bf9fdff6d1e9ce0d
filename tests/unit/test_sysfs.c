/* test_sysfs.c - paths under a root and small-file reads and writes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fake_tree.h"
#include "sysfs.h"

static int setup(void **state)
{
	*state = fake_tree_new();
	return 0;
}

static int teardown(void **state)
{
	fake_tree_free(*state);
	return 0;
}

/* root + path as the tests write files there */
static const char *at(const char *root, const char *path)
{
	static char buf[4096];

	assert_int_equal(smpol_fs_path(root, buf, sizeof(buf), "%s", path), 0);
	return buf;
}

static void test_fs_path(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(smpol_fs_path(NULL, buf, sizeof(buf), "/sys/node%d", 3), 0);
	assert_string_equal(buf, "/sys/node3");
	assert_int_equal(smpol_fs_path("", buf, sizeof(buf), "/sys"), 0);
	assert_string_equal(buf, "/sys");
	assert_int_equal(smpol_fs_path("/", buf, sizeof(buf), "/sys"), 0);
	assert_string_equal(buf, "/sys");
	assert_int_equal(smpol_fs_path("/tmp/root//", buf, sizeof(buf), "/sys"), 0);
	assert_string_equal(buf, "/tmp/root/sys");
	assert_int_equal(smpol_fs_path("/tmp/root", buf, 12, "/sys"), -ENAMETOOLONG);
	assert_int_equal(smpol_fs_path("/a-root-longer-than-the-buffer", buf, 8, "/s"), -ENAMETOOLONG);
	assert_int_equal(smpol_fs_path("/r", buf, 0, "/s"), -ENAMETOOLONG);
}

static void test_read_text(void **state)
{
	const char *root = *state;
	char buf[16];

	fake_tree_write(root, "/a", "0-3\n\n");
	assert_int_equal(smpol_read_text(at(root, "/a"), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0-3");
	fake_tree_write(root, "/empty", "");
	assert_int_equal(smpol_read_text(at(root, "/empty"), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(smpol_read_text(at(root, "/missing"), buf, sizeof(buf)), -ENOENT);
	/* exactly fits (15 chars + NUL) vs one byte too many */
	fake_tree_write(root, "/fits", "123456789012345");
	assert_int_equal(smpol_read_text(at(root, "/fits"), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "123456789012345");
	fake_tree_write(root, "/big", "1234567890123456");
	assert_int_equal(smpol_read_text(at(root, "/big"), buf, sizeof(buf)), -EFBIG);
	assert_int_equal(smpol_read_text(root, buf, sizeof(buf)), -EISDIR);
}

static void test_read_u64(void **state)
{
	const char *root = *state;
	static const char *const bad[] = { "", "abc", "-1", "+5", "1.5", "12 13", "0x10", "7kB" };
	uint64_t v = 42;

	fake_tree_write(root, "/n", "  224000 \n");
	assert_int_equal(smpol_read_u64(at(root, "/n"), &v), 0);
	assert_int_equal(v, 224000);
	fake_tree_write(root, "/max", "18446744073709551615\n");
	assert_int_equal(smpol_read_u64(at(root, "/max"), &v), 0);
	assert_true(v == UINT64_MAX);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 42;
		fake_tree_write(root, "/bad", bad[i]);
		assert_int_equal(smpol_read_u64(at(root, "/bad"), &v), -EINVAL);
		assert_int_equal(v, 42);   /* untouched on failure */
	}
	fake_tree_write(root, "/huge", "18446744073709551616");
	assert_int_equal(smpol_read_u64(at(root, "/huge"), &v), -ERANGE);
	assert_int_equal(smpol_read_u64(at(root, "/nope"), &v), -ENOENT);
}

static void test_write_text(void **state)
{
	const char *root = *state;

	fake_tree_write(root, "/w", "1\n");
	assert_int_equal(smpol_write_text(at(root, "/w"), "7"), 0);
	assert_string_equal(fake_tree_read(root, "/w"), "7");
	/* never creates a file: sysfs attributes exist or the kernel lacks them */
	assert_int_equal(smpol_write_text(at(root, "/absent"), "7"), -ENOENT);
	assert_string_equal(fake_tree_read(root, "/absent"), "<missing>");
	assert_int_equal(smpol_write_text(root, "7"), -EISDIR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fs_path),
		cmocka_unit_test_setup_teardown(test_read_text, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_u64, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_text, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
