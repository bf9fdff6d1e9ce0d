/* real.c - the next malloc family and mmap (see real.h). */
#include <dlfcn.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "real.h"

enum { UNRESOLVED, RESOLVING, RESOLVED };

static struct real_functions real;
static atomic_int state = UNRESOLVED;
static atomic_long resolver;           /* the thread id doing the lookup */

/* Enough for dlsym's error state and a constructor or two; 16-byte units, each with
 * its size in the unit before it. */
#define BOOTSTRAP_BYTES (64 * 1024)
static _Alignas(16) unsigned char bootstrap[BOOTSTRAP_BYTES];
static atomic_size_t bootstrap_used;

void *real_bootstrap_alloc(size_t n)
{
	size_t need = 16 + ((n + 15) & ~(size_t)15), at;

	if (n > BOOTSTRAP_BYTES)
		return NULL;
	at = atomic_fetch_add(&bootstrap_used, need);
	if (at + need > BOOTSTRAP_BYTES)
		return NULL;
	memcpy(bootstrap + at, &n, sizeof(n));
	return bootstrap + at + 16;      /* static storage: already zero */
}

bool real_bootstrap_owns(const void *p, size_t *size)
{
	const unsigned char *c = p;

	if (c < bootstrap + 16 || c >= bootstrap + BOOTSTRAP_BYTES)
		return false;
	memcpy(size, c - 16, sizeof(*size));
	return true;
}

static void die(const char *what)
{
	static const char head[] = "mem_interleave_regions.so: the C library has no ";
	static const char tail[] = "; remove the library from LD_PRELOAD\n";

	/* no stdio: it would allocate */
	if (write(2, head, sizeof(head) - 1) < 0 || write(2, what, strlen(what)) < 0 ||
	    write(2, tail, sizeof(tail) - 1) < 0)
		_exit(127);
	_exit(127);
}

#define NEXT(name) (real.name = (__typeof__(real.name))dlsym(RTLD_NEXT, #name))

static void resolve(void)
{
	/* the required ones first: dlsym may allocate through them while it works */
	if (!NEXT(malloc) || !NEXT(free) || !NEXT(calloc) || !NEXT(realloc))
		die("malloc, free, calloc or realloc");
	if (!NEXT(posix_memalign) || !NEXT(mmap) || !NEXT(mremap))
		die("posix_memalign, mmap or mremap");
	NEXT(aligned_alloc);
	NEXT(memalign);
	NEXT(valloc);
	NEXT(pvalloc);
	NEXT(malloc_usable_size);
	NEXT(mmap64);
}

const struct real_functions *real_get(void)
{
	long me;
	int expected = UNRESOLVED;

	if (atomic_load_explicit(&state, memory_order_acquire) == RESOLVED)
		return &real;
	me = syscall(SYS_gettid);
	if (atomic_compare_exchange_strong(&state, &expected, RESOLVING)) {
		atomic_store(&resolver, me);
		resolve();
		atomic_store_explicit(&state, RESOLVED, memory_order_release);
		return &real;
	}
	if (atomic_load(&resolver) == me)
		return NULL;            /* dlsym allocating: the caller uses the buffer */
	while (atomic_load_explicit(&state, memory_order_acquire) != RESOLVED)
		sched_yield();
	return &real;
}
