/* fuzz_bitmap.c - the node and CPU list parsers and the mask parser on any text. A list
 * that parses formats back to the same set; a limit is never exceeded (a CPU set grows
 * to its highest id, no further); what parses under the node limit parses to the same
 * ids under the larger CPU limit. */
#include <errno.h>

#include "bitmap.h"
#include "error.h"
#include "fuzz.h"

static char canon[SMPOL_MAX_CPUS * 6];

static void check_limit(const struct smpol_bitmap *b, int limit, const char *text)
{
	int last = -1;

	for (int i = smpol_bitmap_next(b, 0); i >= 0; i = smpol_bitmap_next(b, i + 1))
		last = i;
	fuzz_check(last < limit, "'%s' set id %d over the limit %d", text, last, limit);
}

static void check_list(const char *text)
{
	struct smpol_bitmap nodes, again;
	struct smpol_cpus cpus = { 0 }, cpus_again = { 0 };
	char err[SMPOL_ERRLEN] = "";
	int rc_nodes, rc_cpus, rc;

	rc_nodes = smpol_bitmap_parse_list(text, SMPOL_MAX_NODES, &nodes, err, sizeof(err));
	fuzz_check(rc_nodes == 0 || (rc_nodes == -EINVAL && err[0]), "list rc %d err '%s'", rc_nodes, err);
	rc_cpus = smpol_cpus_parse_list(text, SMPOL_MAX_CPUS, &cpus, err, sizeof(err));
	fuzz_check(rc_cpus == 0 || (rc_cpus == -EINVAL && err[0]), "list rc %d err '%s'", rc_cpus, err);
	if (!rc_nodes) {
		check_limit(&nodes, SMPOL_MAX_NODES, text);
		rc = smpol_bitmap_format_list(&nodes, canon, sizeof(canon));
		fuzz_check(rc == 0, "'%s' does not format (%d)", text, rc);
		rc = smpol_bitmap_parse_list(canon, SMPOL_MAX_NODES, &again, err, sizeof(err));
		fuzz_check(rc == 0 && smpol_bitmap_equal(&nodes, &again), "'%s' -> '%s' does not round-trip: %s",
			   text, canon, err);
		/* the same ids as a CPU list */
		fuzz_check(!rc_cpus && smpol_cpus_count(&cpus) == smpol_bitmap_count(&nodes),
			   "'%s' differs between limits", text);
	}
	if (!rc_cpus) {
		int last = -1;

		for (int i = smpol_cpus_next(&cpus, 0); i >= 0; i = smpol_cpus_next(&cpus, i + 1))
			last = i;
		fuzz_check(last < SMPOL_MAX_CPUS && cpus.nwords == (last + 64) / 64,
			   "'%s' set id %d in %d words", text, last, cpus.nwords);
		rc = smpol_cpus_format_list(&cpus, canon, sizeof(canon));
		fuzz_check(rc == 0, "'%s' does not format (%d)", text, rc);
		rc = smpol_cpus_parse_list(canon, SMPOL_MAX_CPUS, &cpus_again, err, sizeof(err));
		fuzz_check(rc == 0 && smpol_cpus_equal(&cpus, &cpus_again), "'%s' -> '%s' does not round-trip: %s",
			   text, canon, err);
	}
	smpol_cpus_free(&cpus);
	smpol_cpus_free(&cpus_again);
}

static void check_mask(const char *text)
{
	struct smpol_bitmap mask, again;
	char err[SMPOL_ERRLEN] = "";
	int rc;

	rc = smpol_bitmap_parse_mask(text, SMPOL_MAX_NODES, &mask, err, sizeof(err));
	fuzz_check(rc == 0 || (rc == -EINVAL && err[0]), "mask rc %d err '%s'", rc, err);
	if (rc)
		return;
	check_limit(&mask, SMPOL_MAX_NODES, text);
	rc = smpol_bitmap_format_list(&mask, canon, sizeof(canon));
	fuzz_check(rc == 0, "mask '%s' does not format (%d)", text, rc);
	rc = smpol_bitmap_parse_list(canon, SMPOL_MAX_NODES, &again, err, sizeof(err));
	fuzz_check(rc == 0 && smpol_bitmap_equal(&mask, &again), "mask '%s' -> '%s' does not round-trip: %s",
		   text, canon, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);

	check_list(text);
	check_mask(text);
	free(text);
	return 0;
}
