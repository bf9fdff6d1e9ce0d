/* mpi-touch - one MPI rank per process touches a buffer of its own and says where it
 * runs, so that a guest check can read each rank's pages in /proc/PID/numa_maps.
 *
 *   mpi-touch MIB RELEASE_FILE
 *
 * Built once per MPI library (mpi-touch-openmpi, mpi-touch-mpich), dynamically, by
 * tests/vm/mpi-root.sh. After MPI_Init each rank maps MIB MiB between two guard pages
 * (its own VMA, which no neighbour can merge with), asks for 4 KiB pages
 * (MADV_NOHUGEPAGE), writes every page at once, as a real rank initialises its arrays,
 * and prints one line:
 *   rank R of N pid P cpus LIST addr HEX
 * (HEX: the buffer's start as numa_maps prints it). Then every rank waits until
 * RELEASE_FILE exists (the check has counted the pages by then), meets the others in
 * MPI_Barrier and ends. The memory policy is whatever the rank inherited or was given:
 * this program sets none.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* "0-1,3" from the CPUs this process may run on. */
static void cpu_list(char *buf, size_t len)
{
	cpu_set_t set;
	size_t used = 0;

	buf[0] = '\0';
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return;
	for (int c = 0; c < CPU_SETSIZE && used < len; c++) {
		int end = c;

		if (!CPU_ISSET(c, &set))
			continue;
		while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set))
			end++;
		used += (size_t)snprintf(buf + used, len - used, end > c ? "%s%d-%d" : "%s%d", used ? "," : "", c, end);
		c = end;
	}
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	int rank, size;
	size_t len;
	char *base, cpus[256], line[512];

	if (argc != 3 || atol(argv[1]) <= 0) {
		fprintf(stderr, "usage: mpi-touch MIB RELEASE_FILE\n");
		return 2;
	}
	len = (size_t)atol(argv[1]) << 20;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	base = mmap(NULL, len + 2 * (size_t)page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED || mprotect(base + page, len, PROT_READ | PROT_WRITE) < 0) {
		perror("mpi-touch: mmap");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	base += page;
	madvise(base, len, MADV_NOHUGEPAGE);
	for (size_t off = 0; off < len; off += (size_t)page)
		base[off] = (char)rank;
	cpu_list(cpus, sizeof(cpus));
	/* one write per line: the ranks share the launcher's output */
	snprintf(line, sizeof(line), "rank %d of %d pid %d cpus %s addr %lx\n", rank, size, (int)getpid(), cpus,
		 (unsigned long)base);
	if (write(STDOUT_FILENO, line, strlen(line)) < 0)
		perror("mpi-touch: write");
	while (access(argv[2], F_OK) < 0)
		usleep(100000);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
