/* test_run_cmd.c - running a command and capturing what it prints: both pipes are read
 * together, so a child that fills its stderr first cannot block it (or us). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "run_cmd.h"

static int run_sh(const char *script, size_t max, char **out, char *err)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };

	return smpol_run_capture(argv, max, out, err, SMPOL_ERRLEN);
}

/* 1 MiB on stderr before anything on stdout: more than a pipe holds. The alarm fails
 * the test where reading stdout to its end first would wait forever. */
static void test_stderr_first(void **state)
{
	char err[SMPOL_ERRLEN], *out = NULL;

	(void)state;
	alarm(30);
	assert_int_equal(run_sh("head -c 1048576 /dev/zero | tr '\\0' e >&2; echo done", 1 << 20, &out, err), 0);
	assert_string_equal(out, "done\n");
	free(out);
	/* the same child failing: its first stderr line (kept bounded) is the reason */
	assert_int_equal(run_sh("echo no such job >&2; head -c 1048576 /dev/zero >&2; exit 3", 1 << 20, &out, err),
			 -ECHILD);
	alarm(0);
	assert_null(out);
	assert_string_equal(err, "sh failed (exit 3): no such job");
}

/* Both pipes busy at once, stdout larger than a pipe too. */
static void test_both_large(void **state)
{
	char err[SMPOL_ERRLEN], *out = NULL;

	(void)state;
	alarm(30);
	assert_int_equal(run_sh("head -c 300000 /dev/zero >&2 & head -c 300000 /dev/zero | tr '\\0' o; wait",
				1 << 20, &out, err), 0);
	alarm(0);
	assert_int_equal(strlen(out), 300000);
	free(out);
}

static void test_limits_and_missing(void **state)
{
	char err[SMPOL_ERRLEN], *out = NULL;
	char *missing[] = { "mpolctl-no-such-program", NULL };

	(void)state;
	assert_int_equal(run_sh("head -c 10000 /dev/zero", 4096, &out, err), -EFBIG);
	assert_null(out);
	assert_non_null(strstr(err, "printed more than 4096 bytes"));
	assert_int_equal(smpol_run_capture(missing, 4096, &out, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "not found in PATH"));
	assert_int_equal(run_sh("true", 4096, &out, err), 0);
	assert_string_equal(out, "");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stderr_first),
		cmocka_unit_test(test_both_large),
		cmocka_unit_test(test_limits_and_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
