/* pmbind.c - process_mbind, probed before use (see pmbind.h). Raw syscalls. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/mempolicy.h>

#include "error.h"
#include "pmbind.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* The RFC's ABI: (pidfd, iovec, vlen, mode, nmask, flags), maxnode fixed by the kernel. */
static long pmbind(long nr, int pidfd, const struct iovec *iov, unsigned long vlen,
		   unsigned long mode, const unsigned long *mask, unsigned flags)
{
	return syscall(nr, pidfd, iov, vlen, mode, mask, flags);
}

/*
 * What only process_mbind does: MPOL_LOCAL on a page of the caller's own, through its
 * pidfd, shows in get_mempolicy(MPOL_F_ADDR) for that page. The page is never touched
 * and is unmapped after.
 */
static int sets_policy(long nr, int pidfd, char *err, size_t errlen)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	void *page = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct iovec iov = { .iov_base = page, .iov_len = pg };
	int mode = -1, rc = 0;

	if (page == MAP_FAILED)
		return smpol_fail(err, errlen, ENOMEM, "cannot probe process_mbind: mmap of one page: %s",
				  strerror(errno));
	if (pmbind(nr, pidfd, &iov, 1, MPOL_LOCAL, NULL, 0) != 0)
		rc = smpol_fail(err, errlen, EINVAL, "syscall %ld is not process_mbind: MPOL_LOCAL on a page of the "
				"caller's own failed (%s)", nr, strerror(errno));
	else if (syscall(SYS_get_mempolicy, &mode, NULL, 0, page, MPOL_F_ADDR) != 0 || mode == MPOL_DEFAULT)
		rc = smpol_fail(err, errlen, EINVAL, "syscall %ld is not process_mbind: it answered 0 to MPOL_LOCAL on "
				"a page of the caller's own, whose policy stayed the default", nr);
	munmap(page, pg);
	return rc;
}

int smpol_pmbind_probe(long nr, char *err, size_t errlen)
{
	long answer;
	int pidfd, rc;

	rc = smpol_pmbind_nr_check(nr, err, errlen);
	if (rc < 0)
		return rc;
	/* Harmless whatever the number is: no fd, no pointer, no length; a flag only
	 * process_mbind defines, which it answers with its node mask's size. */
	answer = pmbind(nr, -1, NULL, 0, 0, NULL, SMPOL_PMBIND_IDENTIFY);
	if (answer < 0 && errno == ENOSYS)
		return smpol_fail(err, errlen, ENOSYS, "syscall %ld is not implemented by this kernel (no process_mbind)",
				  nr);
	if (answer != SMPOL_MAX_NODES) {
		char said[64];

		if (answer < 0)
			snprintf(said, sizeof(said), "failed (%s)", strerror(errno));
		else
			snprintf(said, sizeof(said), "answered %ld", answer);
		return smpol_fail(err, errlen, EINVAL, "syscall %ld is not process_mbind: its identify call (flags 0x%x "
				  "alone) %s, where process_mbind answers its node mask size %d", nr,
				  SMPOL_PMBIND_IDENTIFY, said, SMPOL_MAX_NODES);
	}
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		return smpol_fail(err, errlen, ENOSYS, "cannot probe process_mbind: pidfd_open: %s", strerror(errno));
	rc = sets_policy(nr, pidfd, err, errlen);
	close(pidfd);
	return rc;
}

int smpol_pmbind_may_change_others(char *err, size_t errlen)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct caps[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, caps) != 0)
		return smpol_fail(err, errlen, errno, "cannot read this process's capabilities (capget): %s",
				  strerror(errno));
	if (!(caps[CAP_SYS_NICE / 32].effective & (1U << (CAP_SYS_NICE % 32))))
		return smpol_fail(err, errlen, EPERM, "process_mbind on another process needs CAP_SYS_NICE, which "
				  "this process lacks (run it as root)");
	return 0;
}

int smpol_pmbind_apply(long nr, int pidfd, const struct smpol_region *regions, int nregions,
		      int mode, const unsigned long *mask, char *err, size_t errlen)
{
	struct iovec *iov;
	int rc = 0;

	if (nregions <= 0)
		return 0;
	iov = calloc((size_t)nregions, sizeof(*iov));
	if (!iov)
		return smpol_fail(err, errlen, ENOMEM, "out of memory for %d ranges", nregions);
	for (int i = 0; i < nregions; i++) {
		iov[i].iov_base = (void *)regions[i].start;
		iov[i].iov_len = regions[i].end - regions[i].start;
	}
	/* The vector is bounded like process_madvise's (UIO_MAXIOV): batches of it. */
	for (int done = 0; done < nregions && rc == 0; done += SMPOL_PMBIND_MAX_RANGES) {
		int n = nregions - done < SMPOL_PMBIND_MAX_RANGES ? nregions - done : SMPOL_PMBIND_MAX_RANGES;

		if (pmbind(nr, pidfd, iov + done, (unsigned long)n, (unsigned long)mode, mask, 0) < 0)
			rc = smpol_fail(err, errlen, errno, "process_mbind over ranges %d-%d of %d failed: %s%s",
					done, done + n - 1, nregions, strerror(errno),
					errno == EPERM ? " (another process needs ptrace access and CAP_SYS_NICE)" : "");
	}
	free(iov);
	return rc;
}
