/* heap.c - the malloc family: an allocation of at least the policy's minimum becomes a
 * placed block (blocks.h); everything smaller, and anything a block cannot serve, is
 * the next allocator's, unchanged (real.h). Every function keeps the C library's
 * contract, so what the program computes does not change. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "blocks.h"
#include "place.h"
#include "real.h"

#define EXPORT __attribute__((visibility("default")))

static bool large(size_t n)
{
	size_t min = place_min_bytes();

	return min && n >= min;
}

static bool power_of_two(size_t n)
{
	return n && !(n & (n - 1));
}

/* A block, or NULL when this allocation is not one (small, or not served). */
static void *try_block(size_t n, size_t align)
{
	return large(n) ? block_alloc(n, align) : NULL;
}

EXPORT void *malloc(size_t n)
{
	const struct real_functions *r = real_get();
	void *p;

	if (!r)
		return real_bootstrap_alloc(n);
	p = try_block(n, 0);
	return p ? p : r->malloc(n);
}

EXPORT void free(void *p)
{
	const struct real_functions *r;
	size_t len;

	if (!p || real_bootstrap_owns(p, &len))
		return;
	if (block_find(p, &len)) {
		block_free(p);
		return;
	}
	/* NULL only inside the lookup itself, which frees nothing it did not allocate */
	if ((r = real_get()))
		r->free(p);
}

EXPORT void *calloc(size_t n, size_t size)
{
	const struct real_functions *r = real_get();
	size_t total;
	void *p;

	if (__builtin_mul_overflow(n, size, &total))
		return r ? r->calloc(n, size) : NULL;   /* its own ENOMEM */
	if (!r)
		return real_bootstrap_alloc(total);
	/* a fresh mapping is already zero: no page is touched */
	p = try_block(total, 0);
	return p ? p : r->calloc(n, size);
}

/* The first `keep` bytes of p moved into q (a new allocation of n bytes), p freed.
 * NULL, p intact, when q is NULL (no room). */
static void *move_to(void *p, size_t keep, size_t n, void *q)
{
	if (!q)
		return NULL;
	memcpy(q, p, keep < n ? keep : n);
	free(p);
	return q;
}

EXPORT void *realloc(void *p, size_t n)
{
	const struct real_functions *r = real_get();
	size_t len;
	void *q;

	if (!p)
		return malloc(n);
	if (real_bootstrap_owns(p, &len))
		return move_to(p, len, n, malloc(n));
	if (!r) {
		/* the lookup itself holds nothing else */
		errno = ENOMEM;
		return NULL;
	}
	if (block_find(p, &len)) {
		if (n == 0) {
			/* as glibc: realloc(p, 0) frees p */
			block_free(p);
			return NULL;
		}
		if (large(n) && (q = block_resize(p, n)))
			return q;
		/* below the minimum it belongs on the task's node with the small ones; a
		 * resize the kernel refused is still the program's memory to have */
		return move_to(p, len, n, r->malloc(n));
	}
	/* growing past the minimum: into a placed block, when the old size can be known */
	if (large(n) && r->malloc_usable_size && (q = try_block(n, 0)))
		return move_to(p, r->malloc_usable_size(p), n, q);
	return r->realloc(p, n);
}

EXPORT void *reallocarray(void *p, size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, total);
}

EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	const struct real_functions *r = real_get();
	void *p;

	if (!r) {
		if (align > 16 || !(p = real_bootstrap_alloc(n)))
			return ENOMEM;
		*out = p;
		return 0;
	}
	/* an alignment the C library refuses gets its answer (EINVAL) */
	if (power_of_two(align) && align % sizeof(void *) == 0 && (p = try_block(n, align))) {
		*out = p;
		return 0;
	}
	return r->posix_memalign(out, align, n);
}

/* The real allocator's aligned allocation by whichever function it has. */
static void *real_aligned(const struct real_functions *r, void *(*fn)(size_t, size_t), size_t align, size_t n)
{
	void *p = NULL;
	int rc;

	if (fn)
		return fn(align, n);
	rc = r->posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, n);
	if (rc)
		errno = rc;
	return rc ? NULL : p;
}

/* aligned_alloc and memalign: a block, else the real allocator's own function of that
 * name (or posix_memalign where it has none). */
static void *aligned(size_t align, size_t n, bool as_memalign)
{
	const struct real_functions *r = real_get();
	void *p;

	if (!r)
		return align <= 16 ? real_bootstrap_alloc(n) : NULL;
	p = power_of_two(align) ? try_block(n, align) : NULL;
	return p ? p : real_aligned(r, as_memalign ? r->memalign : r->aligned_alloc, align, n);
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
	return aligned(align, n, false);
}

EXPORT void *memalign(size_t align, size_t n)
{
	return aligned(align, n, true);
}

EXPORT void *valloc(size_t n)
{
	const struct real_functions *r = real_get();
	size_t page = place_page_size();
	void *p;

	if (!r)
		return NULL;
	p = try_block(n, page);
	if (p || r->valloc)
		return p ? p : r->valloc(n);
	return real_aligned(r, NULL, page, n);
}

EXPORT void *pvalloc(size_t n)
{
	const struct real_functions *r = real_get();
	size_t page = place_page_size(), rounded;
	void *p;

	if (!r)
		return NULL;
	if (n > SIZE_MAX - page) {
		errno = ENOMEM;
		return NULL;
	}
	rounded = n ? (n + page - 1) & ~(page - 1) : page;
	p = try_block(rounded, page);
	if (p || r->pvalloc)
		return p ? p : r->pvalloc(n);
	return real_aligned(r, NULL, page, rounded);
}

EXPORT size_t malloc_usable_size(void *p)
{
	const struct real_functions *r;
	size_t len;

	if (!p)
		return 0;
	if (real_bootstrap_owns(p, &len) || block_find(p, &len))
		return len;
	r = real_get();
	return r && r->malloc_usable_size ? r->malloc_usable_size(p) : 0;
}
