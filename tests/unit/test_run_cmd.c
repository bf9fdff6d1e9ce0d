/* test_run_cmd.c - running a command and capturing what it prints: both pipes are read
 * together, so a child that fills its stderr first cannot block it (or us); a child
 * that runs too long is killed with its process group. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "run_cmd.h"

static int run_sh(const char *script, size_t max, char **out, char *err)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };

	return smpol_run_capture(argv, -1, max, 30, out, err, SMPOL_ERRLEN);
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
	assert_int_equal(smpol_run_capture(missing, -1, 4096, 30, &out, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "not found in PATH"));
	/* 127 with a reason, as the dynamic loader exits when a library is missing */
	assert_int_equal(run_sh("echo 'error while loading shared libraries: libslurm.so.43' >&2; exit 127",
				4096, &out, err), -ECHILD);
	assert_string_equal(err, "sh failed (exit 127): error while loading shared libraries: libslurm.so.43");
	assert_int_equal(run_sh("true", 4096, &out, err), 0);
	assert_string_equal(out, "");
	free(out);
}

/* Whether a process still runs: a zombie (killed, not yet reaped by whoever adopted
 * it) does not. */
static int alive(pid_t pid)
{
	char path[64], stat[256], *paren;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(stat, 1, sizeof(stat) - 1, f);
	fclose(f);
	stat[n] = '\0';
	paren = strrchr(stat, ')');
	return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* A child that never ends, and one that starts a grandchild and closes its output: both
 * are killed at the time limit, with everything in their process group. */
static void test_timeout_kills_the_group(void **state)
{
	char err[SMPOL_ERRLEN], *out = NULL, script[128];
	char *argv[] = { "sh", "-c", script, NULL };
	FILE *f;
	pid_t grandchild = 0;
	char pidfile[] = "/tmp/test_run_cmd.XXXXXX";
	int fd = mkstemp(pidfile);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	alarm(30);
	snprintf(script, sizeof(script), "sleep 600 & echo $! >%s; exec sleep 600", pidfile);
	assert_int_equal(smpol_run_capture(argv, -1, 4096, 1, &out, err, sizeof(err)), -ETIMEDOUT);
	assert_null(out);
	assert_string_equal(err, "sh did not finish within 1 s: it was killed, with every process it started");
	f = fopen(pidfile, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &grandchild), 1);
	fclose(f);
	/* SIGKILL takes effect asynchronously: give it a moment */
	for (int i = 0; i < 200 && alive(grandchild); i++)
		usleep(10000);
	assert_false(alive(grandchild));
	/* output closed, process still running: the limit holds for the wait too */
	snprintf(script, sizeof(script), "exec >&- 2>&-; sleep 600");
	assert_int_equal(smpol_run_capture(argv, -1, 4096, 1, &out, err, sizeof(err)), -ETIMEDOUT);
	alarm(0);
	unlink(pidfile);
}

/* The caller killed (an admin's kill -9 of mpolctl): its child goes too, not left
 * blocked behind it. */
static void test_caller_killed(void **state)
{
	char pidfile[] = "/tmp/test_run_cmd.XXXXXX", script[128];
	int fd = mkstemp(pidfile), status;
	pid_t caller, child = 0;
	FILE *f = NULL;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	unlink(pidfile);
	alarm(30);
	caller = fork();
	assert_true(caller >= 0);
	if (caller == 0) {
		char err[SMPOL_ERRLEN], *out = NULL;
		char *argv[] = { "sh", "-c", script, NULL };

		snprintf(script, sizeof(script), "echo $$ >%s.tmp && mv %s.tmp %s; exec sleep 600", pidfile, pidfile,
			 pidfile);
		smpol_run_capture(argv, -1, 4096, 600, &out, err, sizeof(err));
		_exit(0);
	}
	for (int i = 0; i < 1000 && !(f = fopen(pidfile, "r")); i++)
		usleep(10000);
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &child), 1);
	fclose(f);
	unlink(pidfile);
	kill(caller, SIGKILL);
	waitpid(caller, &status, 0);
	for (int i = 0; i < 200 && alive(child); i++)
		usleep(10000);
	alarm(0);
	assert_false(alive(child));
}

/* Standard input is /dev/null: a child that reads it ends instead of waiting. */
static void test_stdin_is_empty(void **state)
{
	char err[SMPOL_ERRLEN], *out = NULL;

	(void)state;
	alarm(30);
	assert_int_equal(run_sh("cat; echo end", 4096, &out, err), 0);
	alarm(0);
	assert_string_equal(out, "end\n");
	free(out);
}

/* The child reads input_fd from where it stands; the caller's fd stays open. */
static void test_stdin_from_fd(void **state)
{
	char err[SMPOL_ERRLEN], *out = NULL, *argv[] = { "cat", NULL };
	FILE *in = tmpfile();

	(void)state;
	assert_non_null(in);
	fputs("skipped\n{\"n1\": {}}\n", in);
	fflush(in);
	fseek(in, 8, SEEK_SET);
	alarm(30);
	assert_int_equal(smpol_run_capture(argv, fileno(in), 4096, 30, &out, err, sizeof(err)), 0);
	alarm(0);
	assert_string_equal(out, "{\"n1\": {}}\n");
	free(out);
	assert_int_not_equal(fcntl(fileno(in), F_GETFD), -1);
	fclose(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stderr_first),
		cmocka_unit_test(test_both_large),
		cmocka_unit_test(test_limits_and_missing),
		cmocka_unit_test(test_timeout_kills_the_group),
		cmocka_unit_test(test_caller_killed),
		cmocka_unit_test(test_stdin_is_empty),
		cmocka_unit_test(test_stdin_from_fd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
