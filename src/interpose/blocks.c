/* blocks.c - large allocations mapped, placed and tracked (see blocks.h). */
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "blocks.h"
#include "place.h"

/* 16,384 slots hold 1 TiB of live blocks at min_region=64M; a lookup reads at most
 * PROBE of them. Untouched slots cost no memory. */
#define SLOTS_BITS 14
#define SLOTS (1u << SLOTS_BITS)
#define PROBE 64

struct slot {
	atomic_uintptr_t addr;         /* 0 = free */
	size_t len;                    /* written by the claimer, read after the block was handed out */
};

static struct slot slots[SLOTS];
static atomic_long live;

static unsigned hash(uintptr_t addr)
{
	return (unsigned)(((uint64_t)(addr >> 12) * 0x9E3779B97F4A7C15ull) >> (64 - SLOTS_BITS));
}

static bool claim(void *p, size_t len)
{
	unsigned h = hash((uintptr_t)p);

	for (unsigned i = 0; i < PROBE; i++) {
		struct slot *s = &slots[(h + i) & (SLOTS - 1)];
		uintptr_t empty = 0;

		if (atomic_compare_exchange_strong(&s->addr, &empty, (uintptr_t)p)) {
			s->len = len;
			atomic_fetch_add(&live, 1);
			return true;
		}
	}
	return false;
}

static struct slot *lookup(const void *p)
{
	unsigned h;

	if (!p || ((uintptr_t)p & (place_page_size() - 1)) || atomic_load(&live) == 0)
		return NULL;
	h = hash((uintptr_t)p);
	for (unsigned i = 0; i < PROBE; i++) {
		struct slot *s = &slots[(h + i) & (SLOTS - 1)];

		if (atomic_load(&s->addr) == (uintptr_t)p)
			return s;
	}
	return NULL;
}

static void release(struct slot *s)
{
	atomic_store(&s->addr, 0);
	atomic_fetch_sub(&live, 1);
}

/* Raw system calls: our own mappings must not pass through an interposed mmap. */
static void *map(size_t len)
{
	void *p = (void *)syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void unmap(void *p, size_t len)
{
	if (len)
		syscall(SYS_munmap, p, len);
}

void *block_alloc(size_t size, size_t align)
{
	size_t page = place_page_size(), len, extra;
	uintptr_t base, start;
	void *p;

	if (align < page)
		align = page;
	if (size > SIZE_MAX / 2 || align > SIZE_MAX / 4)
		return NULL;
	len = (size + page - 1) & ~(page - 1);
	extra = align - page;
	p = map(len + extra);
	if (!p)
		return NULL;
	/* a larger alignment: map more and give back both ends */
	base = (uintptr_t)p;
	start = (base + align - 1) & ~(uintptr_t)(align - 1);
	unmap(p, start - base);
	unmap((void *)(start + len), base + len + extra - (start + len));
	p = (void *)start;
	if (!claim(p, len)) {
		unmap(p, len);
		return NULL;
	}
	place_range(p, len);
	return p;
}

bool block_find(const void *p, size_t *len)
{
	struct slot *s = lookup(p);

	if (s)
		*len = s->len;
	return s != NULL;
}

void block_free(void *p)
{
	struct slot *s = lookup(p);
	size_t len;

	if (!s)
		return;
	len = s->len;
	/* out of the table before the address can be handed out again */
	release(s);
	unmap(p, len);
}

void *block_resize(void *p, size_t size)
{
	size_t page = place_page_size(), newlen;
	struct slot *s = lookup(p);
	void *q;

	if (!s || size > SIZE_MAX / 2)
		return NULL;
	newlen = (size + page - 1) & ~(page - 1);
	/* in place (always when shrinking), the same slot */
	if (newlen == s->len || (void *)syscall(SYS_mremap, p, s->len, newlen, 0) == p) {
		s->len = newlen;
		return p;
	}
	/* elsewhere: claim the destination first, so that the block is tracked throughout;
	 * mremap moves the mapping with its policy onto the reservation */
	q = map(newlen);
	if (!q)
		return NULL;
	if (!claim(q, newlen)) {
		unmap(q, newlen);
		return NULL;
	}
	if ((void *)syscall(SYS_mremap, p, s->len, newlen, MREMAP_MAYMOVE | MREMAP_FIXED, q) != q) {
		release(lookup(q));
		unmap(q, newlen);
		return NULL;
	}
	release(s);
	return q;
}
