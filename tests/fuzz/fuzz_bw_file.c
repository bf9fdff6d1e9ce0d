/* fuzz_bw_file.c - smpol_bw_file_parse, the bandwidth table file. A table that parses
 * formats (smpol_bw_file_format) to a text that parses back to the same table; every
 * pair has a number and node ids in range; refusals are -EBADMSG with a sentence. */
#include <errno.h>

#include "bw_file.h"
#include "error.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), *canon = NULL;
	struct smpol_bw_file f, again;
	char err[SMPOL_ERRLEN] = "";
	int rc;

	rc = smpol_bw_file_parse(text, &f, err, sizeof(err));
	if (rc) {
		fuzz_check(rc == -EBADMSG && err[0], "rc %d err '%s'", rc, err);
		goto out;
	}
	for (int i = 0; i < f.table.nentries; i++) {
		const struct smpol_bw_entry *e = &f.table.entries[i];

		fuzz_check(e->read || e->write, "pair %d has no number", i);
		fuzz_check(e->initiator >= 0 && e->initiator < SMPOL_MAX_NODES && e->target >= 0 &&
			   e->target < SMPOL_MAX_NODES, "pair %d names node %d -> %d", i, e->initiator, e->target);
		fuzz_check(e->source == SMPOL_BW_MEASURED || e->source == SMPOL_BW_OVERRIDE, "pair %d source %d", i,
			   e->source);
	}
	fuzz_check(smpol_bw_file_format(&f, &canon) == 0, "does not format");
	rc = smpol_bw_file_parse(canon, &again, err, sizeof(err));
	fuzz_check(rc == 0, "its own text is refused: %s\n%s", err, canon);
	fuzz_check(!strcmp(again.machine, f.machine) && again.nnodes == f.nnodes &&
		   again.table.nentries == f.table.nentries, "round trip changed it:\n%s", canon);
	for (int i = 0; i < f.table.nentries; i++)
		fuzz_check(!memcmp(&again.table.entries[i], &f.table.entries[i], sizeof(f.table.entries[i])),
			   "pair %d changed", i);
	for (int i = 0; i < f.nnodes; i++)
		fuzz_check(again.nodes[i].id == f.nodes[i].id && again.nodes[i].memory == f.nodes[i].memory &&
			   smpol_cpus_equal(&again.nodes[i].cpus, &f.nodes[i].cpus), "node line %d changed", i);
	smpol_bw_file_free(&again);
	free(canon);
	smpol_bw_file_free(&f);
out:
	free(text);
	return 0;
}
