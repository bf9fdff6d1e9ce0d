/* fuzz_bitmap.c - smpol_bitmap_parse_list and smpol_bitmap_parse_mask on any text. A list that
 * parses formats back to the same set; a limit is never exceeded; what parses under
 * the node limit parses the same under the larger CPU limit. */
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
	struct smpol_bitmap nodes, cpus, again;
	char err[SMPOL_ERRLEN] = "";
	int rc_nodes, rc_cpus, rc;

	rc_nodes = smpol_bitmap_parse_list(text, SMPOL_MAX_NODES, &nodes, err, sizeof(err));
	fuzz_check(rc_nodes == 0 || (rc_nodes == -EINVAL && err[0]), "list rc %d err '%s'", rc_nodes, err);
	rc_cpus = smpol_bitmap_parse_list(text, SMPOL_MAX_CPUS, &cpus, err, sizeof(err));
	fuzz_check(rc_cpus == 0 || (rc_cpus == -EINVAL && err[0]), "list rc %d err '%s'", rc_cpus, err);
	if (!rc_nodes) {
		check_limit(&nodes, SMPOL_MAX_NODES, text);
		fuzz_check(!rc_cpus && smpol_bitmap_equal(&nodes, &cpus), "'%s' differs between limits", text);
	}
	if (rc_cpus)
		return;
	check_limit(&cpus, SMPOL_MAX_CPUS, text);
	rc = smpol_bitmap_format_list(&cpus, canon, sizeof(canon));
	fuzz_check(rc == 0, "'%s' does not format (%d)", text, rc);
	rc = smpol_bitmap_parse_list(canon, SMPOL_MAX_CPUS, &again, err, sizeof(err));
	fuzz_check(rc == 0 && smpol_bitmap_equal(&cpus, &again), "'%s' -> '%s' does not round-trip: %s",
		   text, canon, err);
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
