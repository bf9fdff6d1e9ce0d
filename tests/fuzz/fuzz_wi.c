/* fuzz_wi.c - smpol_wi_parse, the lease journal's line. A journal that parses formats
 * to a line that parses back to the same table (a restore must write what was saved). */
#include <errno.h>

#include "error.h"
#include "fuzz.h"
#include "wi.h"

static struct smpol_wi_table t, again;
static char canon[SMPOL_MAX_NODES * 10 + 32];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	char err[SMPOL_ERRLEN] = "";
	int rc;

	rc = smpol_wi_parse(text, &t, err, sizeof(err));
	if (rc) {
		fuzz_check(rc == -EINVAL && err[0], "rc %d err '%s'", rc, err);
		goto out;
	}
	fuzz_check(t.auto_enabled >= -1 && t.auto_enabled <= 1, "auto %d", t.auto_enabled);
	/* weight 0 is kept: 6.9-6.15 kernels print it for "default" */
	fuzz_check(smpol_bitmap_next(&t.has_file, SMPOL_MAX_NODES) < 0, "a node id >= %d", SMPOL_MAX_NODES);
	rc = smpol_wi_format(&t, canon, sizeof(canon));
	fuzz_check(rc == 0, "'%s' does not format (%d)", text, rc);
	rc = smpol_wi_parse(canon, &again, err, sizeof(err));
	fuzz_check(rc == 0, "'%s' -> '%s' is refused: %s", text, canon, err);
	fuzz_check(again.auto_enabled == t.auto_enabled && smpol_bitmap_equal(&again.has_file, &t.has_file) &&
		   !memcmp(again.weight, t.weight, sizeof(t.weight)),
		   "'%s' -> '%s' is a different table", text, canon);
out:
	free(text);
	return 0;
}
