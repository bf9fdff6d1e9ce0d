/* page-hold - a process with touched memory for the rebalance tests.
 *
 *   page-hold TOUCH_MIB [RESERVE_MIB [STATIC_NODES]]
 * With STATIC_NODES ("0,3") it first sets its own policy to weighted interleave
 * over those nodes with MPOL_F_STATIC_NODES (the mask may name nodes without
 * memory: the kernel keeps it and uses the nodes that have memory), then
 * maps TOUCH_MIB MiB of private anonymous memory with base pages (MADV_NOHUGEPAGE),
 * writes a pattern into every page, maps RESERVE_MIB MiB more that it never touches
 * but its first page (a huge, sparse mapping), prints "ready PID" and waits.
 * SIGUSR1 checks the pattern and prints "intact" or "corrupt PAGE"; SIGTERM exits.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t check_requested;

static void on_usr1(int sig)
{
	(void)sig;
	check_requested = 1;
}

#define WEIGHTED_INTERLEAVE 6
#define F_STATIC_NODES (1 << 15)

static void set_static_policy(const char *list)
{
	unsigned long mask[16] = { 0 };
	char *end;

	for (const char *p = list; *p; p = *end ? end + 1 : end) {
		long n = strtol(p, &end, 10);

		if (end == p || n < 0 || n >= 1024 || (*end && *end != ',')) {
			fprintf(stderr, "page-hold: bad node list '%s'\n", list);
			exit(2);
		}
		mask[n / 64] |= 1UL << (n % 64);
	}
	if (syscall(SYS_set_mempolicy, WEIGHTED_INTERLEAVE | F_STATIC_NODES, mask, 1025UL) != 0) {
		perror("page-hold: set_mempolicy");
		exit(1);
	}
}

static void *map(size_t len)
{
	void *p = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED) {
		perror("page-hold: mmap");
		exit(1);
	}
	madvise(p, len ? len : 1, MADV_NOHUGEPAGE);
	return p;
}

int main(int argc, char **argv)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), touch, reserve = 0;
	struct sigaction sa;
	uint64_t *mem;
	sigset_t none;

	if (argc < 2 || argc > 4 || atol(argv[1]) <= 0 || (argc >= 3 && atol(argv[2]) < 0)) {
		fprintf(stderr, "usage: page-hold TOUCH_MIB [RESERVE_MIB [STATIC_NODES]]\n");
		return 2;
	}
	if (argc == 4)
		set_static_policy(argv[3]);
	touch = (size_t)atol(argv[1]) << 20;
	if (argc >= 3)
		reserve = (size_t)atol(argv[2]) << 20;
	mem = map(touch);
	for (size_t off = 0; off < touch; off += page)
		mem[off / sizeof(*mem)] = off ^ 0x5a5a5a5a5a5a5a5aull;
	/* One touched page: the mapping has a resident page, the rest is not present. */
	if (reserve)
		*(volatile char *)map(reserve) = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sigemptyset(&none);
	for (;;) {
		sigsuspend(&none);
		if (!check_requested)
			continue;
		check_requested = 0;
		for (size_t off = 0; off < touch; off += page) {
			if (mem[off / sizeof(*mem)] != (off ^ 0x5a5a5a5a5a5a5a5aull)) {
				printf("corrupt %zu\n", off / page);
				fflush(stdout);
				goto next;
			}
		}
		printf("intact\n");
		fflush(stdout);
next:;
	}
}
