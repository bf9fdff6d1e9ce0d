/* test_statedir.c - the state directory's rules on fake directories: made 0700, never
 * followed or taken over when someone else made the path, files 0600, bounded lock
 * waits, a read-only file system named as such. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "fake_tree.h"
#include "statedir.h"
#include "sysfs.h"

#define OTHER_UID 65534   /* nobody */

static unsigned mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

static const char *in_dir(const struct fake_state *fx, const char *name)
{
	static char path[4300];

	snprintf(path, sizeof(path), "%s/%s", fx->dir, name);
	return path;
}

/* A missing directory is made 0700, its files 0600; a lock is exclusive. */
static void test_made_private(void **state)
{
	struct fake_state *fx = *state;
	char err[SMPOL_ERRLEN], text[64];
	int fd, other;

	assert_int_equal(smpol_statedir_lock(&fx->host, "lock", false, LOCK_EX, &fd, err, sizeof(err)), -ENOENT);
	assert_int_equal(fd, -1);
	assert_int_equal(smpol_statedir_lock(&fx->host, "lock", true, LOCK_EX, &fd, err, sizeof(err)), 0);
	assert_int_equal(mode_of(fx->dir), 0700);
	assert_int_equal(mode_of(in_dir(fx, "lock")), 0600);
	assert_int_equal(smpol_statedir_lock(&fx->host, "lock", false, LOCK_EX | LOCK_NB, &other, err, sizeof(err)),
			 -EWOULDBLOCK);
	assert_non_null(strstr(err, "cannot lock"));
	close(fd);
	assert_int_equal(smpol_statedir_lock(&fx->host, "lock", false, LOCK_EX | LOCK_NB, &other, err, sizeof(err)), 0);
	close(other);
	assert_int_equal(smpol_statedir_write(&fx->host, "file", "text\n", SMPOL_STATEDIR_DURABLE,
						      err, sizeof(err)), 0);
	assert_int_equal(mode_of(in_dir(fx, "file")), 0600);
	assert_int_equal(smpol_statedir_read(&fx->host, "file", text, sizeof(text), err, sizeof(err)), 0);
	assert_string_equal(text, "text");
	/* a volatile write (no fsync) replaces the file all the same, leaving no temporary */
	assert_int_equal(smpol_statedir_write(&fx->host, "file", "other\n", SMPOL_STATEDIR_VOLATILE,
						      err, sizeof(err)), 0);
	assert_int_equal(mode_of(in_dir(fx, "file")), 0600);
	assert_int_equal(smpol_statedir_read(&fx->host, "file", text, sizeof(text), err, sizeof(err)), 0);
	assert_string_equal(text, "other");
	assert_string_equal(fake_tree_read(fx->dir, "/.file.tmp"), "<missing>");
	assert_int_equal(smpol_statedir_read(&fx->host, "gone", text, sizeof(text), err, sizeof(err)), -ENOENT);
	assert_int_equal(smpol_statedir_remove(&fx->host, "file", SMPOL_STATEDIR_DURABLE, err, sizeof(err)), 0);
	assert_string_equal(fake_tree_read(fx->dir, "/file"), "<missing>");
}

/* A subdirectory (the record spool's): made 0700, files written beside their name. */
static void test_subdirectory(void **state)
{
	struct fake_state *fx = *state;
	char err[SMPOL_ERRLEN], text[16];

	assert_int_equal(smpol_statedir_write(&fx->host, "spool/7.0.json", "{}", SMPOL_STATEDIR_DURABLE,
						      err, sizeof(err)), -ENOENT);
	assert_int_equal(smpol_statedir_mkdir(&fx->host, "spool", err, sizeof(err)), 0);
	assert_int_equal(mode_of(fx->dir), 0700);
	assert_int_equal(mode_of(in_dir(fx, "spool")), 0700);
	assert_int_equal(smpol_statedir_mkdir(&fx->host, "spool", err, sizeof(err)), 0);
	assert_int_equal(smpol_statedir_write(&fx->host, "spool/7.0.json", "{}", SMPOL_STATEDIR_DURABLE,
						      err, sizeof(err)), 0);
	assert_int_equal(mode_of(in_dir(fx, "spool/7.0.json")), 0600);
	assert_string_equal(fake_tree_read(fx->dir, "/spool/.7.0.json.tmp"), "<missing>");
	assert_int_equal(smpol_statedir_read(&fx->host, "spool/7.0.json", text, sizeof(text), err, sizeof(err)), 0);
	assert_string_equal(text, "{}");
	assert_int_equal(smpol_statedir_remove(&fx->host, "spool/7.0.json", SMPOL_STATEDIR_VOLATILE, err, sizeof(err)), 0);
	fake_tree_write(fx->dir, "/file", "x");
	assert_int_equal(smpol_statedir_mkdir(&fx->host, "file", err, sizeof(err)), -ENOTDIR);
	assert_non_null(strstr(err, "is not a directory of this user's"));
}

/* An earlier release made the directory 0755 and its locks 0644: ours, so tightened. */
static void test_own_loose_directory_tightened(void **state)
{
	struct fake_state *fx = *state;
	char err[SMPOL_ERRLEN];
	int fd;

	assert_int_equal(mkdir(fx->dir, 0755), 0);
	assert_int_equal(chmod(fx->dir, 0755), 0);
	fake_tree_write(fx->dir, "/record.lock", "");
	assert_int_equal(chmod(in_dir(fx, "record.lock"), 0644), 0);
	assert_int_equal(smpol_statedir_lock(&fx->host, "record.lock", true, LOCK_EX, &fd, err, sizeof(err)), 0);
	close(fd);
	assert_int_equal(mode_of(fx->dir), 0700);
	assert_int_equal(mode_of(in_dir(fx, "record.lock")), 0600);
}

/* What someone else put at the path is refused as it is: a link is never followed. */
static void test_symlink_never_followed(void **state)
{
	struct fake_state *fx = *state;
	char err[SMPOL_ERRLEN], target[4300];
	int fd, rc;

	snprintf(target, sizeof(target), "%s/elsewhere", fx->root);
	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(symlink(target, fx->dir), 0);
	rc = smpol_statedir_lock(&fx->host, "lock", true, LOCK_EX, &fd, err, sizeof(err));
	assert_true(rc == -ELOOP || rc == -ENOTDIR);
	assert_non_null(strstr(err, "is a symbolic link: it is refused, never followed"));
	assert_int_equal(smpol_statedir_write(&fx->host, "file", "x", SMPOL_STATEDIR_DURABLE, err, sizeof(err)), rc);
	assert_string_equal(fake_tree_read(target, "/lock"), "<missing>");
	assert_string_equal(fake_tree_read(target, "/.file.tmp"), "<missing>");
	assert_string_equal(fake_tree_read(target, "/file"), "<missing>");
}

static void test_file_refused(void **state)
{
	struct fake_state *fx = *state;
	char err[SMPOL_ERRLEN];
	int fd;

	fake_tree_write(fx->root, "/state", "not a directory");
	assert_int_equal(smpol_statedir_lock(&fx->host, "lock", true, LOCK_EX, &fd, err, sizeof(err)), -ENOTDIR);
	assert_non_null(strstr(err, "is not a directory"));
	assert_string_equal(fake_tree_read(fx->root, "/state"), "not a directory");
}

/* Writable by group or others: anyone could replace the lock; refused, mode kept. */
static void test_writable_by_others_refused(void **state)
{
	struct fake_state *fx = *state;
	char err[SMPOL_ERRLEN];
	int fd;

	assert_int_equal(mkdir(fx->dir, 0700), 0);
	assert_int_equal(chmod(fx->dir, 01777), 0);
	assert_int_equal(smpol_statedir_lock(&fx->host, "lock", true, LOCK_EX, &fd, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "may be written by its group or others (mode 1777)"));
	assert_int_equal(mode_of(fx->dir), 01777);
	assert_string_equal(fake_tree_read(fx->dir, "/lock"), "<missing>");
}

/* A user made the directory first: refused, never chmod'ed into use. */
static void test_someone_elses_directory_refused(void **state)
{
	struct fake_state *fx = *state;
	char err[SMPOL_ERRLEN];
	int fd;

	if (geteuid() != 0)
		skip();   /* only root can give a directory away */
	assert_int_equal(mkdir(fx->dir, 0755), 0);
	assert_int_equal(chown(fx->dir, OTHER_UID, OTHER_UID), 0);
	assert_int_equal(smpol_statedir_lock(&fx->host, "lock", true, LOCK_EX, &fd, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "belongs to uid 65534, not to uid 0"));
	assert_int_equal(smpol_statedir_write(&fx->host, "step.1.0.json", "{}", SMPOL_STATEDIR_DURABLE,
						      err, sizeof(err)), -EPERM);
	assert_int_equal(mode_of(fx->dir), 0755);
	assert_string_equal(fake_tree_read(fx->dir, "/lock"), "<missing>");
}

/* Another user cannot even open a lock to hold it (flock needs only a read descriptor). */
static void test_other_user_cannot_reach_lock(void **state)
{
	struct fake_state *fx = *state;
	char err[SMPOL_ERRLEN];
	int fd, status;
	pid_t pid;

	if (geteuid() != 0)
		skip();   /* needs root to act as another user */
	assert_int_equal(smpol_statedir_lock(&fx->host, "record.lock", true, LOCK_EX, &fd, err, sizeof(err)), 0);
	close(fd);
	/* the fake tree's parents are 0700 too: let the other user reach the state dir's parent */
	assert_int_equal(chmod(fx->root, 0755), 0);
	pid = fork();
	if (pid == 0) {
		char e2[SMPOL_ERRLEN];
		int f2;

		if (setgid(OTHER_UID) || setuid(OTHER_UID))
			_exit(3);
		f2 = open(in_dir(fx, "record.lock"), O_RDONLY);
		if (f2 >= 0 || errno != EACCES)
			_exit(1);
		if (smpol_statedir_lock(&fx->host, "record.lock", false, LOCK_SH, &f2, e2, sizeof(e2)) != -EACCES ||
		    !strstr(e2, "is closed to uid 65534"))
			_exit(2);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

/* A lock someone holds is waited for at most lock_timeout_ms, then -ETIMEDOUT. The
 * alarm turns an unbounded wait into a failure instead of a hang. */
static void test_lock_wait_bounded(void **state)
{
	struct fake_state *fx = *state;
	char err[SMPOL_ERRLEN];
	int held, fd;

	assert_int_equal(smpol_statedir_lock(&fx->host, "lock", true, LOCK_EX, &held, err, sizeof(err)), 0);
	fx->host.lock_timeout_ms = 200;
	alarm(20);
	assert_int_equal(smpol_statedir_lock(&fx->host, "lock", true, LOCK_EX, &fd, err, sizeof(err)), -ETIMEDOUT);
	assert_int_equal(fd, -1);
	assert_non_null(strstr(err, "another process held it for longer than 0.200 s (lock_timeout=)"));
	fx->host.lock_timeout_ms = 0;   /* one try */
	assert_int_equal(smpol_statedir_lock(&fx->host, "lock", true, LOCK_SH, &fd, err, sizeof(err)), -ETIMEDOUT);
	alarm(0);
	close(held);
	assert_int_equal(smpol_statedir_lock(&fx->host, "lock", true, LOCK_SH, &fd, err, sizeof(err)), 0);
	close(fd);
}

/* Inside the directory: a link or a FIFO where a lock or file should be is refused. */
static void test_odd_files_refused(void **state)
{
	struct fake_state *fx = *state;
	char err[SMPOL_ERRLEN], text[16];
	int fd;

	assert_int_equal(mkdir(fx->dir, 0700), 0);
	assert_int_equal(symlink("/etc/passwd", in_dir(fx, "lock")), 0);
	assert_int_equal(smpol_statedir_lock(&fx->host, "lock", true, LOCK_EX, &fd, err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "it is a symbolic link"));
	assert_int_equal(mkfifo(in_dir(fx, "weights.journal"), 0600), 0);
	alarm(10);
	assert_int_equal(smpol_statedir_read(&fx->host, "weights.journal", text, sizeof(text), err, sizeof(err)),
			 -SMPOL_ENOTREG);
	alarm(0);
	assert_non_null(strstr(err, "is not a regular file"));
}

/* Mount a read-only tmpfs over ROOT in a mount namespace of this child, with the state
 * directory made before it turned read-only. Exit status: 0 pass, 1 fail, 77 skip. */
static int read_only_child(struct fake_state *fx)
{
	char err[SMPOL_ERRLEN];
	int fd;

	if (unshare(geteuid() == 0 ? CLONE_NEWNS : CLONE_NEWUSER | CLONE_NEWNS) < 0 ||
	    mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", fx->root, "tmpfs", 0, "mode=0700") < 0 || mkdir(fx->dir, 0700) < 0 ||
	    mount("tmpfs", fx->root, NULL, MS_REMOUNT | MS_RDONLY, NULL) < 0)
		return 77;
	if (smpol_statedir_lock(&fx->host, "lock", true, LOCK_EX, &fd, err, sizeof(err)) != -EROFS ||
	    !strstr(err, "the file system is read-only; give statedir=")) {
		fprintf(stderr, "lock on a read-only file system said: %s\n", err);
		return 1;
	}
	if (smpol_statedir_write(&fx->host, "step.1.0.json", "{}", SMPOL_STATEDIR_DURABLE, err,
				 sizeof(err)) != -EROFS ||
	    !strstr(err, "read-only")) {
		fprintf(stderr, "write on a read-only file system said: %s\n", err);
		return 1;
	}
	return 0;
}

static void test_read_only_file_system(void **state)
{
	struct fake_state *fx = *state;
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(read_only_child(fx));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();   /* no mount namespace here */
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, fake_state_setup, fake_state_teardown)
	const struct CMUnitTest tests[] = {
		T(test_made_private),
		T(test_subdirectory),
		T(test_own_loose_directory_tightened),
		T(test_symlink_never_followed),
		T(test_file_refused),
		T(test_writable_by_others_refused),
		T(test_someone_elses_directory_refused),
		T(test_other_user_cannot_reach_lock),
		T(test_lock_wait_bounded),
		T(test_odd_files_refused),
		T(test_read_only_file_system),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
