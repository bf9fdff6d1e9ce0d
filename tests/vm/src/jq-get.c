/* jq-get - print one value out of JSON on standard input (the guest has no jq).
 *
 *   jq-get PATH < doc.json
 *
 * PATH is a chain of .key, [N] (array index) and [key=value] (the first array element
 * whose member key prints as value), e.g. .nodes[id=2].access[1].read_bw or
 * .plans[initiator=0].weights. A trailing "#" prints the length of an array or
 * object instead. Strings print raw, everything else as compact JSON ([7,2], null).
 * Exit 1 when the path is absent, 2 on bad input.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

static const char *plain(struct json_object *o)
{
	if (json_object_is_type(o, json_type_string))
		return json_object_get_string(o);
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
}

/* One step of the path; *p advances past it. Returns 0 and *out (NULL for a JSON
 * null), or -1 when absent (msg says why). */
static int step(struct json_object *cur, const char **p, struct json_object **out, char *msg, size_t len)
{
	char name[256];
	size_t n;

	if (**p == '.') {
		(*p)++;
		n = strcspn(*p, ".[#");
		if (n == 0 || n >= sizeof(name)) {
			snprintf(msg, len, "empty or long key at '%s'", *p);
			return -1;
		}
		memcpy(name, *p, n);
		name[n] = '\0';
		*p += n;
		if (!json_object_is_type(cur, json_type_object) || !json_object_object_get_ex(cur, name, out)) {
			snprintf(msg, len, "no key '%s'", name);
			return -1;
		}
		return 0;
	}
	/* [N] or [key=value] */
	const char *close = strchr(*p, ']');
	n = close ? (size_t)(close - *p - 1) : 0;
	if (!close || n == 0 || n >= sizeof(name)) {
		snprintf(msg, len, "bad subscript at '%s'", *p);
		return -1;
	}
	memcpy(name, *p + 1, n);
	name[n] = '\0';
	*p = close + 1;
	if (!json_object_is_type(cur, json_type_array)) {
		snprintf(msg, len, "[%s] applied to something that is not an array", name);
		return -1;
	}
	size_t count = json_object_array_length(cur);
	char *eq = strchr(name, '=');
	if (!eq) {
		char *end;
		unsigned long i = strtoul(name, &end, 10);
		if (*end || !isdigit((unsigned char)name[0]) || i >= count) {
			snprintf(msg, len, "no element [%s] (array has %zu)", name, count);
			return -1;
		}
		*out = json_object_array_get_idx(cur, i);
		return 0;
	}
	*eq = '\0';
	for (size_t i = 0; i < count; i++) {
		struct json_object *el = json_object_array_get_idx(cur, i), *v;
		if (json_object_is_type(el, json_type_object) && json_object_object_get_ex(el, name, &v) &&
		    !strcmp(plain(v), eq + 1)) {
			*out = el;
			return 0;
		}
	}
	snprintf(msg, len, "no element with %s=%s", name, eq + 1);
	return -1;
}

int main(int argc, char **argv)
{
	char msg[512];

	if (argc != 2 || (argv[1][0] != '.' && argv[1][0] != '[' && argv[1][0] != '#')) {
		fprintf(stderr, "usage: jq-get PATH < doc.json   (PATH like .plans[0].weights)\n");
		return 2;
	}
	struct json_object *doc = json_object_from_fd(0);
	if (!doc) {
		fprintf(stderr, "jq-get: standard input is not JSON: %s\n", json_util_get_last_err());
		return 2;
	}
	struct json_object *cur = doc;
	const char *p = argv[1];
	while (*p && *p != '#') {
		if (*p != '.' && *p != '[') {
			fprintf(stderr, "jq-get: bad path at '%s'\n", p);
			return 2;
		}
		if (step(cur, &p, &cur, msg, sizeof(msg)) != 0) {
			fprintf(stderr, "jq-get: %s: %s\n", argv[1], msg);
			return 1;
		}
	}
	if (*p == '#') {
		if (json_object_is_type(cur, json_type_array))
			printf("%zu\n", json_object_array_length(cur));
		else if (json_object_is_type(cur, json_type_object))
			printf("%d\n", json_object_object_length(cur));
		else {
			fprintf(stderr, "jq-get: %s: not an array or object\n", argv[1]);
			return 1;
		}
	} else {
		printf("%s\n", plain(cur));
	}
	json_object_put(doc);
	return 0;
}
