/* test_site_config.c - plugstack arguments: defaults, every key, and refusals that
 * name the key. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "error.h"
#include "site_config.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void test_defaults(void **state)
{
	struct smpol_site_config c;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_config_default(&c), 0);
	assert_int_equal(c.default_spec.mode, SMPOL_MODE_NONE);
	assert_int_equal(c.decide.sysfs, SMPOL_SYSFS_EXCLUSIVE);
	assert_int_equal(c.decide.algorithm, SMPOL_ALGO_OPTIMAL);
	assert_true(c.decide.precision == SMPOL_DEFAULT_PRECISION);
	assert_int_equal(c.decide.max_weight_sum, SMPOL_DEFAULT_MAX_SUM);
	assert_string_equal(c.host.statedir, SMPOL_DEFAULT_STATEDIR);
	assert_int_equal(c.decide.sample_interval, SMPOL_DEFAULT_SAMPLE_INTERVAL);
	assert_string_equal(c.host.fsroot, "/");
	assert_int_equal(c.host.lock_timeout_ms, SMPOL_DEFAULT_LOCK_TIMEOUT_MS);
	/* the default table is read when it exists; its absence is no warning */
	assert_string_equal(c.bandwidth_file, "/etc/slurm/mem_interleave.bw");
	assert_false(c.bandwidth_named);
	assert_int_equal(c.process_mbind_nr, 0);
	/* the interposer where `make install` put it */
	assert_string_equal(c.preload, SMPOL_PRELOAD_DEFAULT);
	assert_non_null(strstr(c.preload, "/mem_interleave_regions.so"));
	assert_string_equal(c.dbd_client, SMPOL_DBD_CLIENT_DEFAULT);
	assert_non_null(strstr(c.dbd_client, "/mem_interleave_dbd"));
	assert_int_equal(smpol_config_parse(0, NULL, &c, err, sizeof(err)), 0);
	assert_string_equal(smpol_sysfs_policy_name(SMPOL_SYSFS_NEVER), "never");
	assert_string_equal(smpol_sysfs_policy_name(SMPOL_SYSFS_ALWAYS), "always");
	smpol_config_free(&c);
}

static void test_every_key(void **state)
{
	char *const argv[] = { "sysfs=always", "algorithm=kernel",
			       "precision=0.95", "max_weight_sum=1024", "statedir=/tmp/state",
			       "sample_interval=0", "fsroot=/srv/tree", "lock_timeout=2.5",
			       "bandwidth=/etc/bw.table", "process_mbind_nr=500",
			       "default=weighted,min_region=64M", "preload=/opt/mpol/regions.so",
			       "dbd_client=/opt/mpol/dbd" };
	struct smpol_site_config c;
	char err[SMPOL_ERRLEN] = "";

	(void)state;
	assert_int_equal(smpol_config_default(&c), 0);
	if (smpol_config_parse(ARGC(argv), argv, &c, err, sizeof(err)))
		fail_msg("refused: %s", err);
	assert_int_equal(c.default_spec.mode, SMPOL_MODE_WEIGHTED);
	assert_int_equal(c.default_spec.min_region_kb, 65536);
	assert_int_equal(c.process_mbind_nr, 500);
	assert_int_equal(c.decide.sysfs, SMPOL_SYSFS_ALWAYS);
	assert_int_equal(c.decide.algorithm, SMPOL_ALGO_KERNEL);
	assert_true(c.decide.precision == 0.95);
	assert_int_equal(c.decide.max_weight_sum, 1024);
	assert_string_equal(c.host.statedir, "/tmp/state");
	assert_int_equal(c.decide.sample_interval, 0);
	assert_string_equal(c.host.fsroot, "/srv/tree");
	assert_int_equal(c.host.lock_timeout_ms, 2500);
	assert_string_equal(c.bandwidth_file, "/etc/bw.table");
	assert_true(c.bandwidth_named);
	assert_string_equal(c.preload, "/opt/mpol/regions.so");
	assert_string_equal(c.dbd_client, "/opt/mpol/dbd");
	/* none: no table, not even the default */
	smpol_config_free(&c);
	assert_int_equal(smpol_config_default(&c), 0);
	assert_int_equal(smpol_config_parse(1, (char *[]){ "bandwidth=none" }, &c, err, sizeof(err)), 0);
	assert_string_equal(c.bandwidth_file, "");
	assert_true(c.bandwidth_named);
	/* none: no interposer, the sampler places every large mapping */
	assert_int_equal(smpol_config_parse(1, (char *[]){ "preload=none" }, &c, err, sizeof(err)), 0);
	assert_string_equal(c.preload, "");
	smpol_config_free(&c);
}

static void test_bad(void **state)
{
	static const struct { const char *arg, *says; } cases[] = {
		{ "foo=1", "unknown plugstack argument 'foo' (known: default, sysfs, " },
		{ "foo", "unknown plugstack argument 'foo'" },
		{ "sysfs", "'sysfs' has no value" },
		{ "sysfs=", "'sysfs=' has no value" },
		{ "statedir=", "'statedir=' has no value" },
		{ "sysfs=sometimes", "sysfs='sometimes': use never, exclusive or always" },
		{ "algorithm=magic", "algorithm='magic': use optimal or kernel" },
		{ "precision=7", "plugstack argument precision: bad precision '7'" },
		{ "precision=0", "plugstack argument precision: bad precision '0'" },
		{ "precision=x", "plugstack argument precision: bad precision 'x'" },
		{ "max_weight_sum=0", "max_weight_sum='0'" },
		{ "max_weight_sum=1025", "max_weight_sum='1025'" },
		{ "max_weight_sum=-1", "max_weight_sum='-1'" },
		{ "max_weight_sum=8x", "max_weight_sum='8x'" },
		{ "max_weight_sum=99999999999999999999999", "max_weight_sum='9999" },
		{ "sample_interval=86401", "sample_interval='86401'" },
		{ "statedir=relative/dir", "statedir: the state directory 'relative/dir' is not an absolute path" },
		{ "fsroot=tree", "fsroot: the sysfs root 'tree' is not an absolute path" },
		{ "default=bogus", "default='bogus': unknown word 'bogus'" },
		{ "default=help", "default=help" },
		{ "default=weighted,weights=0:0", "bad weight '0' for node 0" },
		{ "Sysfs=never", "unknown plugstack argument 'Sysfs'" },
		{ "lock_timeout=301", "lock_timeout='301': give a number from 0 to 300, with at most 3 digits" },
		{ "lock_timeout=0.0001", "lock_timeout='0.0001'" },
		{ "lock_timeout=-1", "lock_timeout='-1'" },
		{ "lock_timeout=1e3", "lock_timeout='1e3'" },
		{ "sample_interval= 5", "sample_interval=' 5'" },
		{ "max_weight_sum=0x10", "max_weight_sum='0x10'" },
		{ "precision=1e-300", "bad precision '1e-300'" },
		{ "bandwidth=table.bw", "bandwidth='table.bw': give the absolute path" },
		{ "bandwidth=", "'bandwidth=' has no value" },
		/* process_mbind is called only by a number no upstream kernel uses (pmbind.h) */
		{ "process_mbind_nr=457", "process_mbind_nr='457': syscall 457 is statmount upstream, not process_mbind" },
		{ "process_mbind_nr=458", "syscall 458 is listmount upstream" },
		{ "process_mbind_nr=1", "syscall 1 is not a free number (upstream Linux uses 0-469" },
		{ "process_mbind_nr=469", "syscall 469 is not a free number" },
		{ "process_mbind_nr=0", "process_mbind_nr='0': give a whole number from 1 to 4095" },
		{ "process_mbind_nr=4096", "process_mbind_nr='4096'" },
		{ "process_mbind_nr=-500", "process_mbind_nr='-500'" },
		{ "process_mbind_nr=500.0", "process_mbind_nr='500.0'" },
		{ "process_mbind_nr=0x1f4", "process_mbind_nr='0x1f4'" },
		{ "process_mbind_nr=", "'process_mbind_nr=' has no value" },
		{ "default=weighted,min_region=0", "default='weighted,min_region=0': min_region='0' is below one page" },
		{ "preload=regions.so", "preload='regions.so': give the absolute path of mem_interleave_regions.so" },
		{ "preload=/opt/a b.so", "preload='/opt/a b.so': give the absolute path" },
		{ "preload=/opt/a:b.so", "(without spaces or colons: LD_PRELOAD splits there), or none" },
		{ "dbd_client=mem_interleave_dbd", "dbd_client='mem_interleave_dbd': give the absolute path" },
	};
	struct smpol_site_config c, before;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_config_default(&c), 0);
	before = c;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* a good argument before the bad one must not stick either */
		char *argv[] = { strncmp(cases[i].arg, "sysfs", 5) ? "sysfs=never" : "algorithm=kernel",
				 (char *)cases[i].arg };

		err[0] = '\0';
		if (smpol_config_parse(2, argv, &c, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' was accepted (or not with EINVAL): %s", cases[i].arg, err);
		if (!strstr(err, cases[i].says))
			fail_msg("'%s': got '%s', want '%s'", cases[i].arg, err, cases[i].says);
		assert_memory_equal(&c, &before, sizeof(c));
	}
	smpol_config_free(&c);
}

static void test_twice(void **state)
{
	char *const argv[] = { "sysfs=never", "sysfs=never" };
	struct smpol_site_config c;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_config_default(&c), 0);
	assert_int_equal(smpol_config_parse(ARGC(argv), argv, &c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "sysfs is given twice"));
	smpol_config_free(&c);
}

static void test_long_path(void **state)
{
	static char arg[1100];
	char *argv[] = { arg };
	struct smpol_site_config c;
	char err[SMPOL_ERRLEN];

	(void)state;
	assert_int_equal(smpol_config_default(&c), 0);
	strcpy(arg, "statedir=/");
	memset(arg + strlen(arg), 'a', sizeof(arg) - strlen(arg) - 1);
	assert_int_equal(smpol_config_parse(1, argv, &c, err, sizeof(err)), -ENAMETOOLONG);
	assert_non_null(strstr(err, "statedir"));
	assert_string_equal(c.host.statedir, SMPOL_DEFAULT_STATEDIR);
	smpol_config_free(&c);
}

static void test_record_and_metrics(void **state)
{
	struct smpol_site_config c;
	char err[SMPOL_ERRLEN];
	char *const good[] = { "record=extra", "prometheus_dir=/var/lib/node_exporter" };
	char *const none[] = { "record=none" };
	const char *const bad[][2] = {
		{ "record=AdminComment", "record='AdminComment'" }, { "record=", "has no value" },
		{ "prometheus_dir=relative/dir", "absolute" }, { "record=extra extra", "use admincomment" },
	};

	(void)state;
	assert_int_equal(smpol_config_default(&c), 0);
	assert_int_equal(c.record, SMPOL_RECORD_ADMIN_COMMENT);
	assert_string_equal(c.prometheus_dir, "");
	assert_int_equal(smpol_config_parse(ARGC(good), good, &c, err, sizeof(err)), 0);
	assert_int_equal(c.record, SMPOL_RECORD_EXTRA);
	assert_string_equal(c.prometheus_dir, "/var/lib/node_exporter");
	assert_int_equal(smpol_config_parse(ARGC(none), none, &c, err, sizeof(err)), 0);
	assert_string_equal(smpol_record_target_name(c.record), "none");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { (char *)bad[i][0] };

		smpol_config_free(&c);
		assert_int_equal(smpol_config_default(&c), 0);
		assert_int_equal(smpol_config_parse(1, argv, &c, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, bad[i][1]));
		assert_int_equal(c.record, SMPOL_RECORD_ADMIN_COMMENT);
	}
	smpol_config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_record_and_metrics),
		cmocka_unit_test(test_twice),
		cmocka_unit_test(test_long_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
