/* maps.c - anonymous mappings the program makes through the C library's mmap and
 * mremap: one of at least the policy's minimum is placed before it is returned, so its
 * pages fault by the plan. The C library's own mappings (its malloc arenas, thread
 * stacks) do not pass through here; a stack (MAP_GROWSDOWN, MAP_STACK) is one
 * thread's and stays on the task's node. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "place.h"
#include "real.h"

#define EXPORT __attribute__((visibility("default")))

static bool placeable(size_t len, int flags)
{
	size_t min = place_min_bytes();

	return min && len >= min && (flags & MAP_ANONYMOUS) && !(flags & (MAP_GROWSDOWN | MAP_STACK));
}

static void *mapped(void *p, size_t len, int flags)
{
	if (p != MAP_FAILED && placeable(len, flags))
		place_range(p, len);
	return p;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	const struct real_functions *r = real_get();

	if (!r)
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	return mapped(r->mmap(addr, len, prot, flags, fd, off), len, flags);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	const struct real_functions *r = real_get();

	if (!r)
		return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	return mapped((r->mmap64 ? r->mmap64 : r->mmap)(addr, len, prot, flags, fd, off), len, flags);
}

/*
 * Whether the mapping at addr is private and anonymous, from /proc/self/maps: its line
 * has no inode and no file name. Read without allocating; only a mapping that mremap
 * grew past the minimum asks, once.
 */
static bool private_anonymous(const void *addr)
{
	char buf[4096], key[24], *line, *nl;
	size_t keylen, have = 0;
	ssize_t got;
	bool found = false, anon = false;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	keylen = (size_t)snprintf(key, sizeof(key), "%lx-", (unsigned long)(uintptr_t)addr);
	while (!found && (got = read(fd, buf + have, sizeof(buf) - 1 - have)) > 0) {
		have += (size_t)got;
		buf[have] = '\0';
		for (line = buf; !found && (nl = strchr(line, '\n')); line = nl + 1) {
			unsigned long inode = 1;
			char perms[5] = "", dev[16];
			int tail = 0;

			*nl = '\0';
			if (strncmp(line, key, keylen))
				continue;
			found = true;
			/* "start-end perms offset dev inode [name]" */
			if (sscanf(line, "%*s %4s %*s %15s %lu %n", perms, dev, &inode, &tail) >= 3)
				anon = perms[3] == 'p' && inode == 0 && line[tail] == '\0';
		}
		/* keep the unfinished line for the next read */
		have = strlen(line);
		memmove(buf, line, have);
	}
	close(fd);
	return anon;
}

EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	const struct real_functions *r = real_get();
	void *target = NULL, *p;
	size_t min = place_min_bytes();
	va_list ap;

	if (flags & MREMAP_FIXED) {
		va_start(ap, flags);
		target = va_arg(ap, void *);
		va_end(ap);
	}
	p = r ? r->mremap(old, old_len, new_len, flags, target)
	      : (void *)syscall(SYS_mremap, old, old_len, new_len, flags, target);
	/* a mapping that was large already carries its policy along */
	if (p != MAP_FAILED && min && new_len >= min && old_len < min && private_anonymous(p))
		place_range(p, new_len);
	return p;
}
