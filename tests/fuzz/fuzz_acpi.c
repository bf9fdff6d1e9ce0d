/* fuzz_acpi.c - the raw ACPI table parsers: smpol_hmat_parse and smpol_srat_parse.
 * The first byte picks the parser (bit 0) and whether the header's length and checksum
 * are made right first (bit 1: otherwise nearly every input stops at the checksum).
 * An accepted HMAT has one pair per (initiator, target), each with a number, found
 * again by smpol_hmat_find; an accepted SRAT numbers its domains 0, 1, 2, ... and
 * maps the domain of every memory range. Refusals carry a sentence. */
#include <errno.h>

#include "acpi_hmat.h"
#include "acpi_srat.h"
#include "error.h"
#include "fuzz.h"

static void fix_header(uint8_t *t, size_t len)
{
	uint8_t sum = 0;

	if (len < 36)
		return;
	for (int i = 0; i < 4; i++)
		t[4 + i] = (uint8_t)(len >> (8 * i));
	t[9] = 0;
	for (size_t i = 0; i < len; i++)
		sum = (uint8_t)(sum + t[i]);
	t[9] = (uint8_t)(0x100 - sum);
}

static void check_hmat(const uint8_t *t, size_t len)
{
	struct smpol_hmat h;
	char err[SMPOL_ERRLEN] = "";
	int rc = smpol_hmat_parse(t, len, &h, err, sizeof(err));

	if (rc) {
		fuzz_check((rc == -EBADMSG || rc == -EPROTONOSUPPORT) && err[0], "rc %d err '%s'", rc, err);
		fuzz_check(!h.pairs && !h.npairs, "a refused table left %d pairs", h.npairs);
		return;
	}
	for (int i = 0; i < h.npairs; i++) {
		const struct smpol_hmat_pair *p = &h.pairs[i];

		fuzz_check(p->read_bw || p->write_bw, "pair %u -> %u has no number", p->initiator_pxm, p->target_pxm);
		fuzz_check(smpol_hmat_find(&h, p->initiator_pxm, p->target_pxm) == p, "pair %u -> %u not found "
			   "again (duplicate or unsorted)", p->initiator_pxm, p->target_pxm);
	}
	smpol_hmat_free(&h);
}

static void check_srat(const uint8_t *t, size_t len)
{
	struct smpol_srat s;
	char err[SMPOL_ERRLEN] = "";
	int rc = smpol_srat_parse(t, len, &s, err, sizeof(err));

	if (rc) {
		fuzz_check((rc == -EBADMSG || rc == -E2BIG) && err[0], "rc %d err '%s'", rc, err);
		return;
	}
	for (int i = 0; i < s.ndomains; i++) {
		fuzz_check(s.domains[i].node == i, "domain %d is node %d", i, s.domains[i].node);
		fuzz_check(smpol_srat_node(&s, s.domains[i].pxm) == i, "PXM %u maps twice", s.domains[i].pxm);
	}
	for (int i = 0; i < s.nranges; i++)
		fuzz_check(smpol_srat_node(&s, s.ranges[i].pxm) >= 0, "range %d's PXM %u has no node", i,
			   s.ranges[i].pxm);
	smpol_srat_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *t;

	if (size < 1)
		return 0;
	t = malloc(size);
	if (!t)
		abort();
	memcpy(t, data + 1, size - 1);
	if (data[0] & 2)
		fix_header(t, size - 1);
	if (data[0] & 1)
		check_srat(t, size - 1);
	else
		check_hmat(t, size - 1);
	free(t);
	return 0;
}
