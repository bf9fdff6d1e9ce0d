/* fuzz_gather.c - what reaches a step's record collector is data a sender chose (root
 * on another node, but a bug there or a damaged message must not hurt the collector).
 * Parsing must succeed or refuse cleanly; what it takes is entries, objects, under
 * printable node names, all of the message's or none, and the message they came
 * from is rebuilt from them. */
#include <errno.h>

#include "error.h"
#include "fuzz.h"
#include "record_gather.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), err[SMPOL_ERRLEN] = "", *again = NULL;
	json_object *entries = json_object_new_object(), *twice = json_object_new_object();
	int rc = smpol_gather_parse(42, "0", text, entries, err, sizeof(err));

	fuzz_check(rc == 0 || (rc == -EBADMSG && err[0]), "rc %d err '%s'", rc, err);
	fuzz_check((rc == 0) == (json_object_object_length(entries) > 0), "%d entries after rc %d",
		   json_object_object_length(entries), rc);
	json_object_object_foreach(entries, node, entry) {
		fuzz_check(json_object_is_type(entry, json_type_object), "entry of %s is not an object", node);
		for (const char *p = node; *p; p++)
			fuzz_check((unsigned char)*p > 0x20 && *p != 0x7f, "node name with a control character");
	}
	if (rc == 0) {
		/* the sender's side makes a message this side takes the same (as text: json-c
		 * keeps a number's own spelling, and NaN equals nothing) */
		again = smpol_gather_message(42, "0", entries);
		fuzz_check(again && smpol_gather_parse(42, "0", again, twice, err, sizeof(err)) == 0, "rebuilt message "
			   "refused: %s", err);
		fuzz_check(!strcmp(json_object_to_json_string(twice), json_object_to_json_string(entries)),
			   "rebuilt message differs");
	}
	free(again);
	json_object_put(twice);
	json_object_put(entries);
	free(text);
	return 0;
}
