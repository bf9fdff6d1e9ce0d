/* fuzz_spec.c - smpol_spec_parse on any text; a spec that parses formats to a text
 * that parses back to the same spec (spec.h promises parse(format(s)) == s). */
#include <errno.h>

#include "error.h"
#include "fuzz.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	char err[SMPOL_ERRLEN] = "", canon[8192];
	struct smpol_spec s, again;
	int rc;

	rc = smpol_spec_parse(text, &s, err, sizeof(err));
	if (rc) {
		fuzz_check(rc == -EINVAL, "rc %d for '%s'", rc, text);
		fuzz_check(err[0] != '\0', "no error sentence for '%s'", text);
		goto out;
	}
	fuzz_check(s.mode != SMPOL_MODE_UNSET, "'%s' parsed to no mode", text);
	fuzz_check(!s.has_precision || (s.precision > 0 && s.precision <= 1),
		   "'%s' gave precision %g", text, s.precision);
	fuzz_check(!s.min_region_kb || s.min_region_kb >= SMPOL_MIN_REGION_LEAST_KB, "'%s' gave min_region %lluK",
		   text, (unsigned long long)s.min_region_kb);
	rc = smpol_spec_format(&s, canon, sizeof(canon));
	fuzz_check(rc == 0, "'%s' does not format (%d)", text, rc);
	rc = smpol_spec_parse(canon, &again, err, sizeof(err));
	fuzz_check(rc == 0, "canonical '%s' of '%s' is refused: %s", canon, text, err);
	fuzz_check(smpol_spec_equal(&s, &again), "'%s' re-parsed to a different spec", canon);
	smpol_spec_free(&again);
	smpol_spec_free(&s);
out:
	free(text);
	return 0;
}
