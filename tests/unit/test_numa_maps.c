/* test_numa_maps.c - parsing /proc/PID/numa_maps: units, policies, bad input, vanished processes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "error.h"
#include "numa_maps.h"

/* Lines as Linux 6.x prints them, one of each kind of VMA. */
static const char sample[] =
	"55ff12945000 default file=/usr/bin/cat mapped=2 N0=2 kernelpagesize_kB=4\n"
	"55ff20036000 weighted interleave:0-1 heap anon=6 dirty=6 active=0 N0=4 N1=2 kernelpagesize_kB=4\n"
	"7f4000000000 weighted interleave:0-1 anon=300 dirty=300 N0=200 N1=100 kernelpagesize_kB=4\n"
	"7f5000000000 weighted interleave:0-1 huge anon=3 dirty=3 N1=3 kernelpagesize_kB=2048\n"
	"7f6000000000 prefer (many):0-1 anon=1 dirty=1 N1=1 kernelpagesize_kB=4\n"
	"7f7000000000 bind=static:1 file=/dev/shm/x\\040y dirty=5 N1=5 kernelpagesize_kB=4\n"
	"7ffd00000000 default stack anon=8 dirty=8 N0=8 kernelpagesize_kB=4\n"
	"7ffd10000000 default\n";

static void test_parse_units_and_kinds(void **state)
{
	struct smpol_numa_usage u;
	char err[SMPOL_ERRLEN];

	(void)state;
	smpol_numa_usage_init(&u);
	assert_int_equal(smpol_numa_maps_parse(sample, &u, err, sizeof(err)), 0);
	assert_int_equal(u.nprocs, 1);
	assert_int_equal(u.max_node, 1);
	/* heap 4 + anon 200 + stack 8 */
	assert_int_equal(u.anon[0], 212);
	/* heap 2 + anon 100 + 3 huge pages of 2 MiB (512 each) + prefer 1 */
	assert_int_equal(u.anon[1], 2 + 100 + 3 * 512 + 1);
	assert_int_equal(u.file[0], 2);
	assert_int_equal(u.file[1], 5);
	assert_int_equal(smpol_numa_usage_anon_total(&u), 212 + 2 + 100 + 1536 + 1);
}

static void test_parse_policies_sorted(void **state)
{
	struct smpol_numa_usage u;
	char err[SMPOL_ERRLEN];

	(void)state;
	smpol_numa_usage_init(&u);
	assert_int_equal(smpol_numa_maps_parse(sample, &u, err, sizeof(err)), 0);
	assert_int_equal(u.npolicies, 3);
	assert_string_equal(u.policies[0].policy, "weighted interleave:0-1");
	assert_int_equal(u.policies[0].pages, 6 + 300 + 1536);
	assert_string_equal(u.policies[1].policy, "default");
	assert_int_equal(u.policies[1].pages, 8);
	assert_string_equal(u.policies[2].policy, "prefer (many):0-1");
	assert_int_equal(u.policies_dropped, 0);
}

static void test_parse_accumulates(void **state)
{
	struct smpol_numa_usage u;
	char err[SMPOL_ERRLEN];

	(void)state;
	smpol_numa_usage_init(&u);
	assert_int_equal(smpol_numa_maps_parse(sample, &u, err, sizeof(err)), 0);
	assert_int_equal(smpol_numa_maps_parse(sample, &u, err, sizeof(err)), 0);
	assert_int_equal(u.nprocs, 2);
	assert_int_equal(u.anon[0], 424);
}

static void test_policy_overflow_counted(void **state)
{
	struct smpol_numa_usage u;
	char err[SMPOL_ERRLEN];
	const char *text =
		"1000 bind:0 anon=1 N0=1 kernelpagesize_kB=4\n"
		"2000 bind:1 anon=2 N1=2 kernelpagesize_kB=4\n"
		"3000 interleave:0-1 anon=3 N0=3 kernelpagesize_kB=4\n"
		"4000 prefer:1 anon=4 N1=4 kernelpagesize_kB=4\n"
		"5000 local anon=5 N0=5 kernelpagesize_kB=4\n";

	(void)state;
	smpol_numa_usage_init(&u);
	assert_int_equal(smpol_numa_maps_parse(text, &u, err, sizeof(err)), 0);
	assert_int_equal(u.npolicies, SMPOL_NUMA_POLICIES);
	assert_int_equal(u.policies_dropped, 1);
	assert_string_equal(u.policies[0].policy, "prefer:1");
	/* the pages are still counted even when their policy is not kept */
	assert_int_equal(smpol_numa_usage_anon_total(&u), 15);
}

static void expect_bad(const char *text, const char *needle)
{
	struct smpol_numa_usage u;
	char err[SMPOL_ERRLEN] = "";

	smpol_numa_usage_init(&u);
	u.anon[0] = 7;
	assert_int_equal(smpol_numa_maps_parse(text, &u, err, sizeof(err)), -EINVAL);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not mention '%s'", err, needle);
	/* nothing of a bad text is added */
	assert_int_equal(u.anon[0], 7);
	assert_int_equal(u.nprocs, 0);
	assert_int_equal(u.max_node, -1);
}

static void test_parse_rejects_bad_input(void **state)
{
	(void)state;
	expect_bad("1000 default anon=1 N0=1 kernelpagesize_kB=4\nxyz default N0=1\n", "line 2");
	expect_bad("1000 default anon=1 N0=abc kernelpagesize_kB=4\n", "N0=abc");
	expect_bad("1000 default anon=1 N0= kernelpagesize_kB=4\n", "N0=");
	expect_bad("1000 default anon=1 N5000=1 kernelpagesize_kB=4\n", "N5000=1");
	expect_bad("1000 default anon=1 N0=99999999999999999999999 kernelpagesize_kB=4\n", "N0=");
	expect_bad("1000 default anon=1 N0=1 kernelpagesize_kB=2\n", "page size");
	expect_bad("1000 default anon=1 N0=1 kernelpagesize_kB=x\n", "page size");
	expect_bad("1000\n", "no policy");
}

static void test_parse_empty_and_unknown_tokens(void **state)
{
	struct smpol_numa_usage u;
	char err[SMPOL_ERRLEN];

	(void)state;
	smpol_numa_usage_init(&u);
	assert_int_equal(smpol_numa_maps_parse("", &u, err, sizeof(err)), 0);
	assert_int_equal(smpol_numa_usage_anon_total(&u), 0);
	/* tokens a future kernel may add are ignored; the counts still land */
	assert_int_equal(smpol_numa_maps_parse("1000 default anon=3 shiny=9 N0=3 kernelpagesize_kB=4\n",
					      &u, err, sizeof(err)), 0);
	assert_int_equal(u.anon[0], 3);
}

static void test_policy_nodes(void **state)
{
	struct smpol_bitmap b;

	(void)state;
	assert_int_equal(smpol_numa_policy_nodes("weighted interleave:0-1,4", &b), 0);
	assert_int_equal(smpol_bitmap_count(&b), 3);
	assert_true(smpol_bitmap_test(&b, 4));
	assert_int_equal(smpol_numa_policy_nodes("bind=static:2", &b), 0);
	assert_true(smpol_bitmap_test(&b, 2));
	assert_int_equal(smpol_numa_policy_nodes("default", &b), -ENOENT);
	assert_int_equal(smpol_numa_policy_nodes("local", &b), -ENOENT);
	assert_int_equal(smpol_numa_policy_nodes("interleave:", &b), -ENOENT);
	assert_int_equal(smpol_numa_policy_nodes("interleave:x", &b), -EINVAL);
}

/* A fake /proc: root/proc/PID/numa_maps and root/proc/PID/task/PID/children. */
static char *fake_proc(void)
{
	char *root = strdup("/tmp/test_numa_maps.XXXXXX");

	assert_non_null(mkdtemp(root));
	return root;
}

static void write_file(const char *root, const char *rel, const char *text)
{
	char path[4096], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void remove_tree(const char *root)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

static void test_read_vanished_and_empty(void **state)
{
	struct smpol_numa_usage u;
	char err[SMPOL_ERRLEN], *root = fake_proc();

	(void)state;
	smpol_numa_usage_init(&u);
	write_file(root, "proc/10/numa_maps", "1000 default anon=4 N0=4 kernelpagesize_kB=4\n");
	write_file(root, "proc/11/numa_maps", "");
	assert_int_equal(smpol_numa_maps_read(root, 10, &u, err, sizeof(err)), 0);
	assert_int_equal(u.anon[0], 4);
	/* gone: ENOENT; exiting (no memory map left): ESRCH; neither changes u */
	assert_int_equal(smpol_numa_maps_read(root, 12, &u, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "12 has exited"));
	assert_int_equal(smpol_numa_maps_read(root, 11, &u, err, sizeof(err)), -ESRCH);
	assert_int_equal(u.anon[0], 4);
	assert_int_equal(u.nprocs, 1);
	remove_tree(root);
	free(root);
}

static void test_read_tree_sums_descendants(void **state)
{
	struct smpol_numa_usage u;
	char err[SMPOL_ERRLEN], *root = fake_proc();

	(void)state;
	write_file(root, "proc/20/numa_maps", "1000 default anon=1 N0=1 kernelpagesize_kB=4\n");
	write_file(root, "proc/20/task/20/children", "21 22 ");
	write_file(root, "proc/20/task/25/children", "23");
	write_file(root, "proc/21/numa_maps", "1000 weighted interleave:0-1 anon=30 N0=20 N1=10 kernelpagesize_kB=4\n");
	write_file(root, "proc/21/task/21/children", "24");
	/* 22 has exited: no directory */
	write_file(root, "proc/23/numa_maps", "1000 default anon=2 N1=2 kernelpagesize_kB=4\n");
	write_file(root, "proc/24/numa_maps", "1000 default anon=4 N0=4 kernelpagesize_kB=4\n");

	smpol_numa_usage_init(&u);
	assert_int_equal(smpol_numa_maps_read_tree(root, 20, 64, &u, err, sizeof(err)), 0);
	assert_int_equal(u.nprocs, 4);
	assert_int_equal(u.anon[0], 1 + 20 + 4);
	assert_int_equal(u.anon[1], 10 + 2);

	/* each process after its parent, with its parent named */
	{
		struct smpol_proc_member m[8];
		int n;

		assert_int_equal(smpol_proc_tree(root, 20, 8, m, &n, err, sizeof(err)), 0);
		assert_int_equal(n, 5);         /* 22 is listed by its parent, though gone */
		assert_int_equal(m[0].pid, 20);
		assert_int_equal(m[0].parent, 0);
		for (int i = 1; i < n; i++) {
			int p = -1;

			for (int j = 0; j < i; j++)
				if (m[j].pid == m[i].parent)
					p = j;
			assert_true(p >= 0);
		}
		assert_int_equal(smpol_proc_tree(root, 22, 8, m, &n, err, sizeof(err)), -ESRCH);
	}
	/* the bound holds: only the first two processes found */
	smpol_numa_usage_init(&u);
	assert_int_equal(smpol_numa_maps_read_tree(root, 20, 2, &u, err, sizeof(err)), 0);
	assert_int_equal(u.nprocs, 2);

	/* the task itself gone: an error the sampler skips */
	smpol_numa_usage_init(&u);
	assert_int_equal(smpol_numa_maps_read_tree(root, 22, 64, &u, err, sizeof(err)), -ENOENT);
	assert_int_equal(smpol_numa_maps_read_tree(root, 20, 0, &u, err, sizeof(err)), -EINVAL);
	remove_tree(root);
	free(root);
}

static void test_read_live_self(void **state)
{
	struct smpol_numa_usage u;
	char err[SMPOL_ERRLEN];
	char *mem = malloc(8 << 20);

	(void)state;
	assert_non_null(mem);
	memset(mem, 1, 8 << 20);
	smpol_numa_usage_init(&u);
	if (access("/proc/self/numa_maps", R_OK) != 0) {
		free(mem);
		skip();
	}
	assert_int_equal(smpol_numa_maps_read(NULL, getpid(), &u, err, sizeof(err)), 0);
	/* the 8 MiB just touched are resident somewhere */
	assert_true(smpol_numa_usage_anon_total(&u) >= (8 << 20) / 4096);
	free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_units_and_kinds),
		cmocka_unit_test(test_parse_policies_sorted),
		cmocka_unit_test(test_parse_accumulates),
		cmocka_unit_test(test_policy_overflow_counted),
		cmocka_unit_test(test_parse_rejects_bad_input),
		cmocka_unit_test(test_parse_empty_and_unknown_tokens),
		cmocka_unit_test(test_policy_nodes),
		cmocka_unit_test(test_read_vanished_and_empty),
		cmocka_unit_test(test_read_tree_sums_descendants),
		cmocka_unit_test(test_read_live_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
