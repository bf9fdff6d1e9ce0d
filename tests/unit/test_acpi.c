/* test_acpi.c - the raw HMAT and SRAT parsers on the tables captured from the QEMU
 * guest, on every broken one of tests/fixtures/acpi, on tables built here; and the
 * raw-HMAT source (node ids, checks against sysfs) on fixture trees. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "acpi_hmat.h"
#include "acpi_srat.h"
#include "acpi_table.h"
#include "bw_acpi.h"
#include "error.h"
#include "fake_tree.h"
#include "topology.h"

#define TABLES "/sys/firmware/acpi/tables"

/* tests/fixtures/acpi/NAME into a malloc'ed buffer. */
static uint8_t *load(const char *name, size_t *len)
{
	char path[4096];
	uint8_t *buf = malloc(65536);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fixture_path("acpi"), name);
	f = fopen(path, "rb");
	if (!f || !buf)
		fail_msg("cannot read %s", path);
	*len = fread(buf, 1, 65536, f);
	fclose(f);
	return buf;
}

static void expect_pair(const struct smpol_hmat *h, uint32_t i, uint32_t t, uint32_t read, uint32_t write)
{
	const struct smpol_hmat_pair *p = smpol_hmat_find(h, i, t);

	if (!p)
		fail_msg("no pair %u -> %u", i, t);
	assert_int_equal(p->read_bw, read);
	assert_int_equal(p->write_bw, write);
}

/* What QEMU was given (tests/vm/topology.sh): every pair, read = write. */
static void test_qemu_hmat(void **state)
{
	struct smpol_hmat h;
	char err[SMPOL_ERRLEN] = "";
	size_t len;
	uint8_t *buf = load("qemu-hmat.bin", &len);

	(void)state;
	assert_int_equal(smpol_hmat_parse(buf, len, &h, err, sizeof(err)), 0);
	assert_int_equal(h.revision, 2);
	assert_int_equal(h.npairs, 8);
	expect_pair(&h, 0, 0, 224000, 224000);
	expect_pair(&h, 0, 1, 112000, 112000);
	expect_pair(&h, 0, 2, 64000, 64000);
	expect_pair(&h, 0, 3, 48000, 48000);
	expect_pair(&h, 1, 0, 112000, 112000);
	expect_pair(&h, 1, 2, 48000, 48000);
	expect_pair(&h, 1, 3, 64000, 64000);
	assert_null(smpol_hmat_find(&h, 2, 0));   /* memory-only domains initiate nothing */
	smpol_hmat_free(&h);
	free(buf);
}

/* QEMU's SRAT (revision 1): CPUs of domains 0-1, memory of 0-2, and the hot-plug range
 * of domain 3; Linux numbers them 0-3 in that order. */
static void test_qemu_srat(void **state)
{
	struct smpol_srat s;
	char err[SMPOL_ERRLEN] = "";
	size_t len;
	uint8_t *buf = load("qemu-srat.bin", &len);

	(void)state;
	assert_int_equal(smpol_srat_parse(buf, len, &s, err, sizeof(err)), 0);
	assert_int_equal(s.ndomains, 4);
	for (uint32_t p = 0; p < 4; p++)
		assert_int_equal(smpol_srat_node(&s, p), (int)p);
	assert_int_equal(smpol_srat_node(&s, 4), -1);
	assert_int_equal(smpol_srat_pxm_of_address(&s, 0), 0);
	assert_int_equal(smpol_srat_pxm_of_address(&s, 0x60000000ULL), 1);      /* 1.5G */
	assert_int_equal(smpol_srat_pxm_of_address(&s, 0x100000000ULL), 1);     /* 4G */
	assert_int_equal(smpol_srat_pxm_of_address(&s, 0x140000000ULL), 2);     /* 5G */
	assert_int_equal(smpol_srat_pxm_of_address(&s, 0x180000000ULL), 3);     /* hot-plug */
	assert_int_equal(smpol_srat_pxm_of_address(&s, 0x80000000ULL), -1);     /* the PCI hole */
	smpol_srat_free(&s);
	free(buf);
}

/* Each broken table is refused with a sentence naming what is wrong; never a crash. */
static void test_broken_tables(void **state)
{
	static const struct {
		const char *file;
		int rc;
		const char *says;
	} cases[] = {
		{ "hmat-truncated.bin", -EBADMSG, "cut short" },
		{ "hmat-bad-checksum.bin", -EBADMSG, "checksum" },
		{ "hmat-struct-too-long.bin", -EBADMSG, "has length 65536" },
		{ "hmat-struct-zero-length.bin", -EBADMSG, "has length 0" },
		{ "hmat-lists-too-long.bin", -EBADMSG, "more than its" },
		{ "hmat-revision-3.bin", -EPROTONOSUPPORT, "revision 3" },
		{ "srat-truncated.bin", -EBADMSG, "cut short" },
		{ "srat-bad-checksum.bin", -EBADMSG, "checksum" },
		{ "srat-entry-zero-length.bin", -EBADMSG, "length 0" },
		{ "qemu-srat.bin", -EBADMSG, "signature is 'SRAT'" },    /* an SRAT is no HMAT */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[SMPOL_ERRLEN] = "";
		size_t len;
		uint8_t *buf = load(cases[i].file, &len);
		int rc;

		if (!strncmp(cases[i].file, "srat", 4)) {
			struct smpol_srat s;

			rc = smpol_srat_parse(buf, len, &s, err, sizeof(err));
		} else {
			struct smpol_hmat h;

			rc = smpol_hmat_parse(buf, len, &h, err, sizeof(err));
		}
		if (rc != cases[i].rc || !strstr(err, cases[i].says))
			fail_msg("%s: rc %d, '%s' (wanted %d and '%s')", cases[i].file, rc, err, cases[i].rc,
				 cases[i].says);
		free(buf);
	}
}

/* Well-formed but empty or odd: parsed, and what they hold is what comes out. */
static void test_odd_tables(void **state)
{
	struct smpol_hmat h;
	char err[SMPOL_ERRLEN] = "";
	size_t len;
	uint8_t *buf;

	(void)state;
	buf = load("hmat-zero-entries.bin", &len);
	assert_int_equal(smpol_hmat_parse(buf, len, &h, err, sizeof(err)), 0);
	assert_int_equal(h.npairs, 0);
	smpol_hmat_free(&h);
	free(buf);
	/* read and write in structures of their own, the read numbers 40% of the write */
	buf = load("hmat-swapped-rw.bin", &len);
	assert_int_equal(smpol_hmat_parse(buf, len, &h, err, sizeof(err)), 0);
	expect_pair(&h, 0, 0, 89600, 224000);
	expect_pair(&h, 1, 3, 25600, 64000);
	smpol_hmat_free(&h);
	free(buf);
}

/* A table built here: header, then the given structures. */
struct builder {
	uint8_t b[512];
	size_t len;
};

static void begin(struct builder *t, const char *sig, uint8_t revision, size_t reserved)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->b, sig, 4);
	t->b[8] = revision;
	t->len = SMPOL_ACPI_HEADER_LEN + reserved;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A locality structure: one initiator, one target, one entry. */
static void locality(struct builder *t, uint8_t flags, uint8_t type, uint32_t i, uint32_t tg, uint64_t base,
		     uint16_t entry)
{
	uint8_t *s = t->b + t->len;

	s[0] = 1;
	put32(s + 4, 42);
	s[8] = flags;
	s[9] = type;
	put32(s + 12, 1);
	put32(s + 16, 1);
	put32(s + 24, (uint32_t)base);
	put32(s + 28, (uint32_t)(base >> 32));
	put32(s + 32, i);
	put32(s + 36, tg);
	s[40] = (uint8_t)entry;
	s[41] = (uint8_t)(entry >> 8);
	t->len += 42;
}

static void finish(struct builder *t)
{
	uint8_t sum = 0;

	put32(t->b + 4, (uint32_t)t->len);
	for (size_t i = 0; i < t->len; i++)
		sum = (uint8_t)(sum + t->b[i]);
	t->b[9] = (uint8_t)(0x100 - sum);
}

static int parse_built(struct builder *t, struct smpol_hmat *h)
{
	char err[SMPOL_ERRLEN];

	finish(t);
	return smpol_hmat_parse(t->b, t->len, h, err, sizeof(err));
}

/* Normalization as Linux's hmat_normalize, merging, and what is left out. */
static void test_built_hmat(void **state)
{
	struct builder t;
	struct smpol_hmat h;

	(void)state;
	/* revision 2: entry x base; a later read structure wins over an earlier access one */
	begin(&t, "HMAT", 2, 4);
	locality(&t, 0, 3, 0, 1, 100, 500);
	locality(&t, 0, 4, 0, 1, 100, 400);
	locality(&t, 1, 3, 0, 2, 100, 900);      /* a cache level: not memory */
	locality(&t, 0, 1, 0, 3, 1000, 80);      /* a latency */
	locality(&t, 0, 3, 0, 4, 1, 0xffff);     /* unreachable */
	locality(&t, 0, 3, 0, 5, 0x100000000ULL, 2);   /* overflows 32 bits */
	assert_int_equal(parse_built(&t, &h), 0);
	assert_int_equal(h.npairs, 1);
	expect_pair(&h, 0, 1, 40000, 50000);
	smpol_hmat_free(&h);
	/* revision 1: divided by 10, rounded up; under 10 unknown */
	begin(&t, "HMAT", 1, 4);
	locality(&t, 0, 3, 0, 1, 1, 15);
	locality(&t, 0, 3, 1, 1, 1, 9);
	assert_int_equal(parse_built(&t, &h), 0);
	assert_int_equal(h.npairs, 1);
	expect_pair(&h, 0, 1, 2, 2);
	smpol_hmat_free(&h);
	/* a locality structure shorter than its fixed fields */
	begin(&t, "HMAT", 2, 4);
	locality(&t, 0, 3, 0, 1, 1, 1);
	put32(t.b + 40 + 4, 20);
	t.len = 40 + 20;
	assert_int_equal(parse_built(&t, &h), -EBADMSG);
	/* header only: nothing, no error */
	begin(&t, "HMAT", 2, 4);
	assert_int_equal(parse_built(&t, &h), 0);
	assert_int_equal(h.npairs, 0);
}

/* Linux's numbering: processor entries first (enabled only), then memory entries. */
static void test_built_srat(void **state)
{
	struct builder t;
	struct smpol_srat s;
	char err[SMPOL_ERRLEN];
	uint8_t *e;

	(void)state;
	begin(&t, "SRAT", 3, 12);
	/* memory of PXM 7 first in the table, then an x2APIC CPU of PXM 9, a disabled CPU
	 * of PXM 5 and a generic initiator of PXM 300 */
	e = t.b + t.len;
	e[0] = 1, e[1] = 40, put32(e + 2, 7), put32(e + 8, 0), put32(e + 16, 0x1000), put32(e + 28, 1);
	t.len += 40;
	e = t.b + t.len;
	e[0] = 2, e[1] = 24, put32(e + 4, 9), put32(e + 12, 1);
	t.len += 24;
	e = t.b + t.len;
	e[0] = 2, e[1] = 24, put32(e + 4, 5), put32(e + 12, 0);
	t.len += 24;
	e = t.b + t.len;
	e[0] = 5, e[1] = 32, put32(e + 4, 300), put32(e + 24, 1);
	t.len += 32;
	/* a local APIC entry with PXM bits 31:8 (revision 2 and on) */
	e = t.b + t.len;
	e[0] = 0, e[1] = 16, e[2] = 0x01, put32(e + 4, 1), e[9] = 0x02;
	t.len += 16;
	finish(&t);
	assert_int_equal(smpol_srat_parse(t.b, t.len, &s, err, sizeof(err)), 0);
	assert_int_equal(smpol_srat_node(&s, 9), 0);
	assert_int_equal(smpol_srat_node(&s, 300), 1);
	assert_int_equal(smpol_srat_node(&s, 0x201), 2);
	assert_int_equal(smpol_srat_node(&s, 7), 3);
	assert_int_equal(smpol_srat_node(&s, 5), -1);
	assert_int_equal(smpol_srat_pxm_of_address(&s, 0xfff), 7);
	assert_int_equal(smpol_srat_pxm_of_address(&s, 0x1000), -1);
	smpol_srat_free(&s);
	/* an entry shorter than its type's */
	begin(&t, "SRAT", 3, 12);
	e = t.b + t.len;
	e[0] = 1, e[1] = 20;
	t.len += 20;
	finish(&t);
	assert_int_equal(smpol_srat_parse(t.b, t.len, &s, err, sizeof(err)), -EBADMSG);
	assert_non_null(strstr(err, "under its 40"));
}

static int from_tree(const char *root, struct smpol_bw_table *t, char *why, size_t whylen)
{
	struct smpol_topology topo;
	char err[SMPOL_ERRLEN];
	int rc;

	memset(t, 0, sizeof(*t));
	if (smpol_topology_read(fake_host(root, NULL), &topo, err, sizeof(err)))
		fail_msg("topology of %s: %s", root, err);
	rc = smpol_bw_from_acpi(&topo, t, why, whylen);
	smpol_topology_free(&topo);
	return rc;
}

static void expect_entry(const struct smpol_bw_table *t, int i, int tg, uint32_t bw)
{
	const struct smpol_bw_entry *e = smpol_bw_lookup(t, i, tg);

	if (!e)
		fail_msg("no entry %d -> %d", i, tg);
	assert_int_equal(e->read, bw);
	assert_int_equal(e->write, bw);
	assert_int_equal(e->source, SMPOL_BW_ACPI);
}

/* The captured guest: every CPU node x memory node, the remote ones included; the
 * empty hot-plug node 3 is left out. */
static void test_source_captured(void **state)
{
	struct smpol_bw_table t;
	char why[SMPOL_ERRLEN] = "";

	(void)state;
	assert_int_equal(from_tree(fixture_path("linux-7.3-acpi"), &t, why, sizeof(why)), 0);
	assert_int_equal(t.nentries, 6);
	expect_entry(&t, 0, 0, 224000);
	expect_entry(&t, 0, 1, 112000);
	expect_entry(&t, 0, 2, 64000);
	expect_entry(&t, 1, 0, 112000);
	expect_entry(&t, 1, 1, 224000);
	expect_entry(&t, 1, 2, 48000);
	assert_non_null(strstr(why, "6 pairs"));
	smpol_bw_free(&t);
	/* no tables at all */
	assert_int_equal(from_tree(fixture_path("linux-7.3-boot"), &t, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "no HMAT"));
}

/* The captured tree with one thing changed: nothing is used, and why says what. */
static void test_source_refused(void **state)
{
	static const struct {
		const char *path;       /* the file replaced or removed */
		const char *table;      /* a fixtures/acpi table to put there, or NULL */
		const char *text;       /* text to put there, or NULL: remove it */
		int rc;
		const char *says;
	} cases[] = {
		{ TABLES "/HMAT", "hmat-bad-checksum.bin", NULL, -EBADMSG, "checksum" },
		{ TABLES "/SRAT", "srat-truncated.bin", NULL, -EBADMSG, "SRAT" },
		{ TABLES "/SRAT", NULL, NULL, -ENOENT, "no SRAT" },
		{ TABLES "/SRAT", "srat-wrong-domain.bin", NULL, -ESTALE, "in node 1, but by the SRAT it is node 2" },
		{ TABLES "/HMAT", "hmat-swapped-rw.bin", NULL, -ESTALE, "sysfs (access1) says" },
		{ "/sys/devices/system/memory/block_size_bytes", NULL, NULL, -ESTALE, "block_size_bytes" },
		{ "/sys/devices/system/memory/block_size_bytes", NULL, "zz", -ESTALE, "block_size_bytes" },
		{ "/sys/devices/system/node/node2/access1/initiators/read_bandwidth", NULL, "60000", -ESTALE,
		  "node 0 to node 2" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct smpol_bw_table t;
		char *root = fake_tree_new(), full[4096], why[SMPOL_ERRLEN] = "";
		int rc;

		fake_tree_copy(root, fixture_path("linux-7.3-acpi"));
		snprintf(full, sizeof(full), "%s%s", root, cases[i].path);
		unlink(full);
		if (cases[i].table) {
			size_t len;
			uint8_t *buf = load(cases[i].table, &len);

			fake_tree_write_bytes(root, cases[i].path, buf, len);
			free(buf);
		} else if (cases[i].text) {
			fake_tree_write(root, cases[i].path, cases[i].text);
		}
		rc = from_tree(root, &t, why, sizeof(why));
		if (rc != cases[i].rc || !strstr(why, cases[i].says) || t.nentries)
			fail_msg("%s -> %s: rc %d, %d entries, '%s' (wanted %d and '%s')", cases[i].path,
				 cases[i].table ? cases[i].table : cases[i].text ? cases[i].text : "removed", rc, t.nentries,
				 why, cases[i].rc, cases[i].says);
		smpol_bw_free(&t);
		fake_tree_free(root);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qemu_hmat),
		cmocka_unit_test(test_qemu_srat),
		cmocka_unit_test(test_broken_tables),
		cmocka_unit_test(test_odd_tables),
		cmocka_unit_test(test_built_hmat),
		cmocka_unit_test(test_built_srat),
		cmocka_unit_test(test_source_captured),
		cmocka_unit_test(test_source_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
