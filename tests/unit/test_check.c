/* test_check.c - mpolctl check's HMAT inspection (smpol_check_hmat) on fixture trees
 * changed in memory, one finding at a time: each finding appears for its fault, on its
 * node, and not on a sound tree; and its finding about the record's field from
 * slurm.conf (smpol_check_record_field) and about slurmd's courier (smpol_check_courier). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <cmocka.h>

#include "checks.h"
#include "courier_lock.h"
#include "error.h"
#include "fake_tree.h"
#include "text.h"
#include "topology.h"

struct fixture {
	struct smpol_topology topo;
	struct smpol_bw_origin origin;
	struct smpol_findings found;
};

/* linux-7.3-boot: DRAM nodes 0-1 at 224000 MB/s, a memory-only node2 at 64000 MB/s. */
static int setup(void **state)
{
	struct fixture *fx = test_calloc(1, sizeof(*fx));
	char err[SMPOL_ERRLEN] = "";

	if (!fx || smpol_topology_read(fake_host(fixture_path("linux-7.3-boot"), NULL), &fx->topo, err, sizeof(err)))
		fail_msg("reading linux-7.3-boot: %s", err);
	fx->origin.acpi_rc = -ENOENT;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	smpol_findings_free(&fx->found);
	smpol_topology_free(&fx->topo);
	test_free(fx);
	return 0;
}

static struct smpol_access *access_of(struct fixture *fx, int node, int class)
{
	return &((struct smpol_node *)smpol_topology_node(&fx->topo, node))->access[class];
}

/* How many findings with this code and severity name this node. */
static int count(const struct fixture *fx, const char *code, enum smpol_severity sev, int node)
{
	int n = 0;

	for (int i = 0; i < fx->found.n; i++)
		n += !strcmp(fx->found.v[i].code, code) && fx->found.v[i].severity == sev && fx->found.v[i].node == node;
	return n;
}

static void check(struct fixture *fx)
{
	smpol_check_hmat(&fx->topo, &fx->origin, &fx->found);
	assert_int_equal(fx->found.oom, 0);
}

static void test_sound_tree(void **state)
{
	struct fixture *fx = *state;

	check(fx);
	for (int node = 0; node < 3; node++) {
		assert_int_equal(count(fx, "hmat-present", SMPOL_SEV_OK, node), 1);
		assert_int_equal(count(fx, "hmat-bandwidth-zero", SMPOL_SEV_WARNING, node), 0);
		assert_int_equal(count(fx, "hmat-rw-ratio", SMPOL_SEV_WARNING, node), 0);
		assert_int_equal(count(fx, "hmat-access-mismatch", SMPOL_SEV_WARNING, node), 0);
	}
}

/* A write bandwidth of 0 beside a read bandwidth (either way round), or latencies with
 * no bandwidth: the firmware left a number out. */
static void test_bandwidth_zero(void **state)
{
	struct fixture *fx = *state;

	access_of(fx, 2, 1)->write_bw = 0;
	access_of(fx, 0, 1)->read_bw = 0;
	access_of(fx, 1, 1)->read_bw = access_of(fx, 1, 1)->write_bw = 0;
	check(fx);
	for (int node = 0; node < 3; node++)
		assert_int_equal(count(fx, "hmat-bandwidth-zero", SMPOL_SEV_WARNING, node), 1);
}

/* Writes faster than reads by over a quarter: read and write swapped? */
static void test_rw_ratio(void **state)
{
	struct fixture *fx = *state;

	access_of(fx, 2, 1)->read_bw = 20000;
	check(fx);
	assert_int_equal(count(fx, "hmat-rw-ratio", SMPOL_SEV_WARNING, 2), 1);
	assert_int_equal(count(fx, "hmat-rw-ratio", SMPOL_SEV_WARNING, 0), 0);
}

/* access0 (any initiator) worse than access1 (CPU initiators) contradicts itself. */
static void test_access_mismatch(void **state)
{
	struct fixture *fx = *state;

	access_of(fx, 2, 0)->read_bw = access_of(fx, 2, 0)->write_bw = 32000;
	check(fx);
	assert_int_equal(count(fx, "hmat-access-mismatch", SMPOL_SEV_WARNING, 2), 1);
}

/* The finding about the record's field: code and severity, for a slurm.conf text. */
static void record_finding(const char *conf_text, enum smpol_record_target target, const char *code,
			   enum smpol_severity sev, const char *what)
{
	char path[] = "/tmp/test_check_conf.XXXXXX";
	struct smpol_site_config cfg;
	struct smpol_findings f = { 0 };
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, conf_text, strlen(conf_text)), (ssize_t)strlen(conf_text));
	close(fd);
	assert_int_equal(smpol_config_default(&cfg), 0);
	cfg.record = target;
	smpol_check_record_field(&cfg, path, &f);
	smpol_config_free(&cfg);
	unlink(path);
	assert_int_equal(f.n, 1);
	assert_string_equal(f.v[0].code, code);
	assert_int_equal(f.v[0].severity, sev);
	assert_non_null(strstr(f.v[0].what, what));
	smpol_findings_free(&f);
}

/* record=extra without job_extra keeps nothing; AdminComment beside an
 * EpilogSlurmctld says where jobstats' replacements go. */
static void test_record_field(void **state)
{
	(void)state;
	record_finding("ClusterName=c\n", SMPOL_RECORD_EXTRA, "record-extra-unstored", SMPOL_SEV_WARNING,
		       "no AccountingStoreFlags=job_extra");
	record_finding("accountingstoreflags = job_comment,JOB_EXTRA # kept\n", SMPOL_RECORD_EXTRA, "record-field",
		       SMPOL_SEV_OK, "Extra, which accounting keeps");
	record_finding("EpilogSlurmctld=/etc/slurm/jobstats_epilog.sh\n", SMPOL_RECORD_ADMIN_COMMENT, "record-field",
		       SMPOL_SEV_OK, "(/etc/slurm/jobstats_epilog.sh), from which jobstats sets AdminComment: a record "
		       "its summary replaces is moved to SystemComment");
	record_finding("", SMPOL_RECORD_ADMIN_COMMENT, "record-field", SMPOL_SEV_OK, "the job's AdminComment");
}

/* The finding about slurmd's courier in statedir sd, for a lock file holding `held`
 * (NULL: none) and held shared (`locked`) or not, with cfg's record=; code NULL: none. */
static void courier_finding(const char *sd, const char *held, bool locked, enum smpol_record_target target,
			    const char *code, enum smpol_severity sev, const char *what)
{
	char path[128];
	struct smpol_site_config cfg;
	struct smpol_findings f = { 0 };
	int fd = -1;

	snprintf(path, sizeof(path), "%s/%s", sd, SMPOL_COURIER_LOCK);
	unlink(path);
	if (held) {
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, held, strlen(held)), (ssize_t)strlen(held));
		if (locked)
			assert_int_equal(flock(fd, LOCK_SH), 0);
	}
	assert_int_equal(smpol_config_default(&cfg), 0);
	assert_int_equal(smpol_text_set(&cfg.host.statedir, sd), 0);
	cfg.record = target;
	smpol_check_courier(&cfg, &f);
	smpol_config_free(&cfg);
	if (fd >= 0)
		close(fd);
	if (!code) {
		assert_int_equal(f.n, 0);
	} else {
		assert_int_equal(f.n, 1);
		assert_string_equal(f.v[0].code, code);
		assert_int_equal(f.v[0].severity, sev);
		assert_non_null(strstr(f.v[0].what, what));
	}
	smpol_findings_free(&f);
}

/* Who writes the records: slurmd's courier with plugstack.conf's settings, one with
 * others (slurmd not restarted since they changed), or none (a lock file nobody holds). */
static void test_courier(void **state)
{
	char sd[] = "/tmp/test_check_courier.XXXXXX", mine[4200], rm[64];
	struct smpol_site_config cfg;

	(void)state;
	assert_non_null(mkdtemp(sd));
	assert_int_equal(smpol_config_default(&cfg), 0);
	smpol_courier_settings(&cfg, mine, sizeof(mine));
	smpol_config_free(&cfg);
	courier_finding(sd, NULL, false, SMPOL_RECORD_ADMIN_COMMENT, "courier-none", SMPOL_SEV_INFO,
			"no slurmd courier listens");
	courier_finding(sd, mine, false, SMPOL_RECORD_ADMIN_COMMENT, "courier-none", SMPOL_SEV_INFO,
			"each step writes its record itself");
	courier_finding(sd, mine, true, SMPOL_RECORD_ADMIN_COMMENT, "courier", SMPOL_SEV_OK,
			"steps hand theirs over");
	courier_finding(sd, mine, true, SMPOL_RECORD_EXTRA, "courier-settings", SMPOL_SEV_WARNING,
			"plugstack.conf says 'record=extra");
	courier_finding(sd, mine, true, SMPOL_RECORD_NONE, NULL, SMPOL_SEV_OK, "");
	snprintf(rm, sizeof(rm), "rm -rf %s", sd);
	assert_int_equal(system(rm), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sound_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bandwidth_zero, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rw_ratio, setup, teardown),
		cmocka_unit_test_setup_teardown(test_access_mismatch, setup, teardown),
		cmocka_unit_test(test_record_field),
		cmocka_unit_test(test_courier),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
