/* test_pmbind_probe.c - how smpol_pmbind_probe (src/libsmpol/pages/pmbind.c) tells
 * process_mbind from other system calls, and when the rebalance backend choice takes
 * it. No kernel here has process_mbind: this program defines its own syscall(), which
 * the library's calls reach because the library is linked into it; system call
 * FAKE_NR behaves as the case says, every other number goes to the C library's. */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/mempolicy.h>
#include <cmocka.h>

#include "error.h"
#include "pages.h"
#include "pmbind.h"

#define FAKE_NR 500

/* What system call FAKE_NR is in a case. */
static enum {
	ANSWERS_ZERO,        /* 0 to everything, as a call that ignores its arguments */
	ANSWERS_EBADF,       /* EBADF, as most calls taking an fd would answer fd -1 */
	WRONG_MASK_SIZE,     /* process_mbind of a kernel with 512-bit masks */
	IDENTIFIES_ONLY,     /* the identify answer, but no policy is ever set */
	PROCESS_MBIND,       /* process_mbind on the caller's own memory */
} fake;
static int fake_calls;    /* calls of FAKE_NR in the case */

typedef long (*syscall_fn)(long, ...);

/* The identify call: the flag alone, nothing else (int arguments: their low 32 bits). */
static bool is_identify(const long *a)
{
	return (int)a[0] == -1 && !a[1] && !a[2] && !a[3] && !a[4] && (unsigned)a[5] == SMPOL_PMBIND_IDENTIFY;
}

static long fake_pmbind(syscall_fn real, const long *a)
{
	const struct iovec *iov = (const struct iovec *)a[1];

	fake_calls++;
	switch (fake) {
	case ANSWERS_ZERO:
		return 0;
	case ANSWERS_EBADF:
		errno = EBADF;
		return -1;
	case WRONG_MASK_SIZE:
		if (is_identify(a))
			return 512;
		break;
	case IDENTIFIES_ONLY:
		if (is_identify(a))
			return SMPOL_MAX_NODES;
		return 0;
	case PROCESS_MBIND:
		if (is_identify(a))
			return SMPOL_MAX_NODES;
		/* Only the probe's own page, through its own pidfd, is asked for. */
		if (a[2] == 1 && !a[5])
			return real(SYS_mbind, iov->iov_base, iov->iov_len, a[3], a[4], a[4] ? SMPOL_MAX_NODES + 1 : 0, 0);
		break;
	}
	errno = EINVAL;
	return -1;
}

long syscall(long nr, ...)
{
	static syscall_fn real;
	va_list ap;
	long a[6];

	if (!real)
		real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (nr == FAKE_NR)
		return fake_pmbind(real, a);
	return real(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static int probe(int how, char *err, size_t errlen)
{
	fake = how;
	fake_calls = 0;
	return smpol_pmbind_probe(FAKE_NR, err, errlen);
}

/* Every call that is not process_mbind is refused by the identify call, before the
 * probe passes it a pointer; one that identifies must also set a policy. */
static void test_probe_identifies(void **state)
{
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(probe(ANSWERS_ZERO, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "syscall 500 is not process_mbind: its identify call (flags 0x1000000 alone) "
			    "answered 0, where process_mbind answers its node mask size 1024");
	assert_int_equal(fake_calls, 1);
	assert_int_equal(probe(ANSWERS_EBADF, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "syscall 500 is not process_mbind: its identify call (flags 0x1000000 alone) "
			    "failed (Bad file descriptor), where process_mbind answers its node mask size 1024");
	assert_int_equal(fake_calls, 1);
	assert_int_equal(probe(WRONG_MASK_SIZE, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "answered 512, where process_mbind answers its node mask size 1024"));
	assert_int_equal(probe(IDENTIFIES_ONLY, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "syscall 500 is not process_mbind: it answered 0 to MPOL_LOCAL on a page of the "
			    "caller's own, whose policy stayed the default");
	assert_int_equal(fake_calls, 2);
	assert_int_equal(probe(PROCESS_MBIND, err, sizeof(err)), 0);
	assert_int_equal(fake_calls, 2);
}

/* Runs in a child: CAP_SYS_NICE dropped, then what auto and an explicit
 * process_mbind choose. Exit 0 when they chose as expected. */
static int choose_without_cap_sys_nice(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];
	char why[512], err[SMPOL_ERRLEN];
	enum smpol_backend b;

	if (syscall(SYS_capget, &hdr, caps) != 0)
		return 10;
	caps[CAP_SYS_NICE / 32].effective &= ~(1U << (CAP_SYS_NICE % 32));
	if (syscall(SYS_capset, &hdr, caps) != 0)
		return 11;
	if (smpol_backend_choose(SMPOL_BACKEND_AUTO, FAKE_NR, &b, why, sizeof(why), err, sizeof(err)) != 0 ||
	    b != SMPOL_BACKEND_MOVE_PAGES ||
	    !strstr(why, "move_pages: process_mbind on another process needs CAP_SYS_NICE, which this process "
		    "lacks (run it as root)"))
		return 12;
	if (smpol_backend_choose(SMPOL_BACKEND_PROCESS_MBIND, FAKE_NR, &b, why, sizeof(why), err, sizeof(err)) !=
	    -EPERM || !strstr(err, "needs CAP_SYS_NICE"))
		return 13;
	return 0;
}

/* The backend choice: process_mbind only where this process may use it on others. */
static void test_choice_needs_cap_sys_nice(void **state)
{
	char why[512], err[SMPOL_ERRLEN];
	enum smpol_backend b;
	int st;
	pid_t pid;

	(void)state;
	fake = PROCESS_MBIND;
	if (geteuid() == 0) {
		assert_int_equal(smpol_backend_choose(SMPOL_BACKEND_AUTO, FAKE_NR, &b, why, sizeof(why), err,
						      sizeof(err)), 0);
		assert_int_equal(b, SMPOL_BACKEND_PROCESS_MBIND);
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(choose_without_cap_sys_nice());
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_identifies),
		cmocka_unit_test(test_choice_needs_cap_sys_nice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
