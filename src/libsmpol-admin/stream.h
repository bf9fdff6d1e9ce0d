/* stream.h - STREAM-style memory bandwidth from a set of CPUs to memory placed by a
 * given policy: what `mpolctl calibrate` measures per (initiator, memory node) and
 * what bench/stream compares placements with.
 *
 * One thread per CPU, each pinned to its CPU (as task/affinity pins a job's tasks),
 * each working on its own contiguous slice of three arrays of doubles. The arrays are
 * mapped, given the policy with mbind(2) before anything touches them, and first
 * touched by their threads. Passes, each timed between two barriers:
 *   read   sum of a[]                       8 bytes per element
 *   write  a[] = s                          8 bytes (write-allocate traffic not counted,
 *                                           as STREAM does not)
 *   copy   c[] = a[]                        16 bytes
 *   triad  a[] = b[] + s * c[]              24 bytes
 * Each pass is repeated; the result per pass is the median of the repeats (the best is
 * kept too). MB/s are 10^6 bytes per second, HMAT's unit.
 */
#ifndef SMPOL_STREAM_H
#define SMPOL_STREAM_H

#include <stddef.h>

#include "bitmap.h"

enum smpol_stream_pass { SMPOL_STREAM_READ, SMPOL_STREAM_WRITE, SMPOL_STREAM_COPY, SMPOL_STREAM_TRIAD };
#define SMPOL_STREAM_PASSES 4

struct smpol_stream_opts {
	struct smpol_cpus cpus;        /* one thread on each (the caller's to free) */
	int mode;                      /* mbind mode: MPOL_BIND, MPOL_INTERLEAVE, MPOL_WEIGHTED_INTERLEAVE */
	struct smpol_bitmap nodes;     /* the policy's nodes */
	size_t array_bytes;            /* each of the three arrays */
	int repeats;                   /* >= 1 */
};

struct smpol_stream_result {
	double median[SMPOL_STREAM_PASSES];   /* MB/s */
	double best[SMPOL_STREAM_PASSES];
};

/* "read", "write", "copy", "triad". */
const char *smpol_stream_pass_name(enum smpol_stream_pass p);

/*
 * smpol_stream_run - measure. 0, or -errno with a sentence: -EINVAL (no CPU, no node,
 * arrays under 1 MiB, repeats < 1), the error of mmap, mbind (the kernel refused the
 * policy: EINVAL for weighted interleave before 6.9), or pinning a thread to a CPU it
 * may not use.
 */
int smpol_stream_run(const struct smpol_stream_opts *o, struct smpol_stream_result *r, char *err, size_t errlen);

/*
 * smpol_stream_array_bytes - the array size to use: `factor` times the largest cache
 * (the size files of sysfs cpu0/cache/indexN, under fsroot), rounded up to 1 MiB, at
 * least 64 MiB.
 */
size_t smpol_stream_array_bytes(const char *fsroot, unsigned factor);

#endif
