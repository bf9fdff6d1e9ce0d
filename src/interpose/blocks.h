/* blocks.h - the large allocations the interposer serves itself, each its own mapping.
 *
 * A block of at least the policy's minimum is mapped anonymously, placed (place.h)
 * before it is returned, and unmapped when freed: its pages fault by the plan from the
 * first touch, it never shares a page with a small object, and memory freed and
 * allocated again at the same address is placed again (it is a new mapping). Resizing
 * uses mremap, which carries the policy along. Blocks start on a page boundary, so a
 * pointer that does not is never looked up.
 *
 * They are tracked in a fixed table without locks (an atomic compare-and-swap claims
 * a slot; lookups only read), so free() in any thread, after fork, or from a library
 * loaded later finds them. A block that finds no free slot near its hash is not
 * served (the caller passes the allocation on to the real allocator).
 */
#ifndef SMPOL_INTERPOSE_BLOCKS_H
#define SMPOL_INTERPOSE_BLOCKS_H

#include <stdbool.h>
#include <stddef.h>

/* A placed block of size bytes aligned to align (a power of two), or NULL (mapping
 * refused, size too large, the table full): serve it another way. Zero-filled. */
void *block_alloc(size_t size, size_t align);

/* Whether p is a block; *len = its mapped length (its usable size). */
bool block_find(const void *p, size_t *len);

/* Unmap block p (block_find said yes). */
void block_free(void *p);

/* Block p resized to size (>= the minimum) by mremap, policy kept; NULL with p intact
 * when the kernel refuses. */
void *block_resize(void *p, size_t size);

#endif
