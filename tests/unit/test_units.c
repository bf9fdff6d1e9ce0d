/* test_units.c - strict size parsing (--mem), short size formatting, and the byte
 * counts of growing arrays. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "array.h"
#include "error.h"
#include "units.h"

static void test_parse_good(void **state)
{
	static const struct { const char *text; uint64_t kib; } cases[] = {
		{ "4G", 4194304 }, { "4g", 4194304 }, { "512M", 524288 }, { "1T", 1073741824 },
		{ "4096K", 4096 }, { "100", 102400 }, { "0", 0 }, { "007M", 7168 },
		{ "17179869183T", 17179869183ULL << 30 },
	};
	char err[SMPOL_ERRLEN];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t kib = 1;

		assert_int_equal(smpol_parse_size(cases[i].text, &kib, err, sizeof(err)), 0);
		assert_true(kib == cases[i].kib);
	}
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = { "", "G", "4GB", "4 G", " 4G", "4G ", "-1G", "+1G",
					   "1.5G", "4X", "4P", "0x10", "4GiB", "M4" };
	char err[SMPOL_ERRLEN];
	uint64_t kib = 99;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(smpol_parse_size(bad[i], &kib, err, sizeof(err)), -EINVAL);
		assert_true(strlen(err) > 10);   /* a sentence, not a code */
		assert_int_equal(kib, 99);
	}
	assert_int_equal(smpol_parse_size(NULL, &kib, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "empty"));
	assert_int_equal(smpol_parse_size("4X", &kib, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bad size '4X': its suffix is not K, M, G or T"));
}

static void test_parse_overflow(void **state)
{
	char err[SMPOL_ERRLEN];
	uint64_t kib = 99;

	(void)state;
	assert_int_equal(smpol_parse_size("99999999999999999999", &kib, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "too large"));
	assert_int_equal(smpol_parse_size("17179869184T", &kib, err, sizeof(err)), -ERANGE);
	assert_int_equal(smpol_parse_size("18014398509481984M", &kib, err, sizeof(err)), -ERANGE);
	assert_int_equal(kib, 99);
}

static void test_format(void **state)
{
	static const struct { uint64_t kib; const char *text; } cases[] = {
		{ 0, "0 KiB" }, { 512, "512 KiB" }, { 1024, "1 MiB" }, { 1048576, "1 GiB" },
		{ 1536 * 1024, "1.5 GiB" }, { 1073741824, "1 TiB" }, { 1503, "1.5 MiB" },
	};
	char buf[16];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(smpol_format_size(cases[i].kib, buf, sizeof(buf)), 0);
		assert_string_equal(buf, cases[i].text);
	}
	assert_int_equal(smpol_format_size(1536 * 1024, buf, 3), -ENOSPC);
}

/* The exact form reads back to the same size, whatever it is. */
static void test_format_exact(void **state)
{
	static const struct { uint64_t kib; const char *text; } cases[] = {
		{ 4, "4K" }, { 1024, "1M" }, { 1025, "1025K" }, { 65536, "64M" }, { 1536 * 1024, "1536M" },
		{ 1048576, "1G" }, { 1073741824, "1T" }, { 2048ULL << 30, "2048T" }, { 0, "0K" },
	};
	char buf[32], err[SMPOL_ERRLEN];
	uint64_t back;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(smpol_format_size_exact(cases[i].kib, buf, sizeof(buf)), 0);
		assert_string_equal(buf, cases[i].text);
		assert_int_equal(smpol_parse_size(buf, &back, err, sizeof(err)), 0);
		assert_true(back == cases[i].kib);
	}
	for (uint64_t kib = 1; kib < (UINT64_C(1) << 40); kib = kib * 3 + 1) {
		assert_int_equal(smpol_format_size_exact(kib, buf, sizeof(buf)), 0);
		assert_int_equal(smpol_parse_size(buf, &back, err, sizeof(err)), 0);
		assert_true(back == kib);
	}
	assert_int_equal(smpol_format_size_exact(65536, buf, 3), -ENOSPC);
}

/* An array grows to `first`, then doubles; a size that would overflow is refused with
 * the array and its capacity untouched. */
static void test_array_room(void **state)
{
	size_t cap = 0, big;
	int *v = NULL, *grown;

	(void)state;
	v = smpol_array_room(v, &cap, 0, sizeof(*v), 4);
	assert_non_null(v);
	assert_int_equal(cap, 4);
	assert_ptr_equal(smpol_array_room(v, &cap, 3, sizeof(*v), 4), v);
	assert_int_equal(cap, 4);
	for (int i = 0; i < 100; i++) {
		grown = smpol_array_room(v, &cap, (size_t)i, sizeof(*v), 4);
		assert_non_null(grown);
		v = grown;
		v[i] = i;
	}
	assert_int_equal(cap, 128);
	for (int i = 0; i < 100; i++)
		assert_int_equal(v[i], i);
	big = SIZE_MAX / 2 + 1;
	assert_null(smpol_array_room(v, &cap, big, sizeof(*v), 4));
	assert_int_equal(cap, 128);
	/* twice this many 16-byte elements is exactly 2^64 bytes, 0 once wrapped */
	cap = (SIZE_MAX >> 5) + 1;
	assert_null(smpol_array_room(v, &cap, cap, 16, 4));
	assert_int_equal(cap, (SIZE_MAX >> 5) + 1);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_parse_overflow),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_exact),
		cmocka_unit_test(test_array_room),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
