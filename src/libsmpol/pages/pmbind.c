/* pmbind.c - process_mbind, probed before use (see pmbind.h). Raw syscalls. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
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
	unsigned long mask[SMPOL_MASK_LONGS] = { 1 };
	int pidfd, rc;

	rc = smpol_pmbind_nr_check(nr, err, errlen);
	if (rc < 0)
		return rc;
	pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		return smpol_fail(err, errlen, ENOSYS, "cannot probe process_mbind: pidfd_open: %s", strerror(errno));
	/* Each call is harmless for process_mbind: a bad fd, a bad mode, no ranges. */
	if (pmbind(nr, -1, NULL, 0, 0, NULL, 0) != -1 || errno != EBADF) {
		rc = errno == ENOSYS ? -ENOSYS : -EINVAL;
		smpol_fail(err, errlen, -rc, "syscall %ld is %s", nr,
			  rc == -ENOSYS ? "not implemented by this kernel (no process_mbind)" :
			  "not process_mbind: an invalid pidfd did not answer EBADF");
	} else if (pmbind(nr, pidfd, NULL, 0, 0xffff, mask, 0) != -1 || errno != EINVAL) {
		rc = smpol_fail(err, errlen, EINVAL,
			       "syscall %ld is not process_mbind: an invalid mode did not answer EINVAL", nr);
	} else if (pmbind(nr, pidfd, NULL, 0, 0, NULL, 0) != 0) {
		rc = smpol_fail(err, errlen, EINVAL,
			       "syscall %ld is not process_mbind: an empty range vector failed (%s)", nr,
			       strerror(errno));
	} else if (fcntl(pidfd, F_GETFD) < 0) {
		/* close(2) would have passed every check above. */
		rc = smpol_fail(err, errlen, EINVAL, "syscall %ld is not process_mbind: it closed the probe's pidfd", nr);
		pidfd = -1;
	} else {
		rc = sets_policy(nr, pidfd, err, errlen);
	}
	if (pidfd >= 0)
		close(pidfd);
	return rc;
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
					errno == EPERM ? " (another user's process needs CAP_SYS_NICE)" : "");
	}
	free(iov);
	return rc;
}
