/* pmbind.h - process_mbind: another process's memory policy, per address range.
 *
 * Not upstream: an RFC of 2023 (which numbered it 457: that number is statmount
 * upstream, 458 is listmount). The VM tier's pmbind kernel carries it as system call
 * 500 (tests/vm/README.md). It is called only where an administrator names its number
 * (mpolctl --process-mbind-nr, the plugin's process_mbind_nr=) and a harmless probe
 * answers as the RFC specifies; an upstream number is refused without being called.
 *
 *   long process_mbind(int pidfd, const struct iovec *vec, size_t vlen,
 *                      unsigned long mode, const unsigned long *nmask, unsigned int flags);
 *
 * nmask holds SMPOL_MAX_NODES bits; at most SMPOL_PMBIND_MAX_RANGES ranges per call.
 */
#ifndef SMPOL_PMBIND_H
#define SMPOL_PMBIND_H

#include <stddef.h>

#include "bitmap.h"
#include "kernel.h"
#include "pages.h"

/* Ranges per call: the kernel refuses more (UIO_MAXIOV). */
#define SMPOL_PMBIND_MAX_RANGES 1024

/* process_mbind's flag PROCESS_MBIND_IDENTIFY: alone, with pidfd -1 and every other
 * argument 0, the call answers its node mask size (SMPOL_MAX_NODES) and does nothing. */
#define SMPOL_PMBIND_IDENTIFY (1U << 24)

/*
 * smpol_pmbind_probe - is syscall nr process_mbind? smpol_pmbind_nr_check (kernel.h) first.
 * Then the identify call, which no other system call answers with the node mask size,
 * and MPOL_LOCAL set on a page of the caller's own through its pidfd must show in
 * get_mempolicy(MPOL_F_ADDR). 0 when it behaved so; -ENOSYS (absent) or -EINVAL
 * (another call, or one that does not work) with a sentence.
 */
int smpol_pmbind_probe(long nr, char *err, size_t errlen);

/*
 * smpol_pmbind_may_change_others - may this process call process_mbind on another
 * process? The kernel asks CAP_SYS_NICE for any process but the caller's own (and ptrace
 * access, which root has). 0, or -EPERM with a sentence.
 */
int smpol_pmbind_may_change_others(char *err, size_t errlen);

/*
 * smpol_pmbind_apply - set the policy `mode` (with its MPOL_F_* flags) over the nodes
 * of `mask` (SMPOL_MASK_LONGS longs) on every region of the process behind pidfd,
 * moving no page (flags 0). Regions go in batches of SMPOL_PMBIND_MAX_RANGES.
 * 0 or -errno with a sentence (-EFAULT: a region was unmapped meanwhile; the regions
 * before it have the policy).
 */
int smpol_pmbind_apply(long nr, int pidfd, const struct smpol_region *regions, int nregions,
		      int mode, const unsigned long *mask, char *err, size_t errlen);

#endif
