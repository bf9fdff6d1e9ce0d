/* record_json.c - json-c helpers of the placement record (see record_json.h). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "record_json.h"

json_object *smpol_rec_ratio(double x)
{
	char text[32];
	size_t n;

	snprintf(text, sizeof(text), "%.4f", x);
	n = strlen(text);
	while (n > 1 && text[n - 1] == '0' && text[n - 2] != '.')
		text[--n] = '\0';
	return json_object_new_double_s(strtod(text, NULL), text);
}

json_object *smpol_rec_get(json_object *obj, const char *key)
{
	json_object *v = NULL;

	if (!json_object_is_type(obj, json_type_object) || !json_object_object_get_ex(obj, key, &v))
		return NULL;
	return v;
}

json_object *smpol_rec_child(json_object *obj, const char *key)
{
	json_object *c = smpol_rec_get(obj, key);

	if (json_object_is_type(c, json_type_object))
		return c;
	c = json_object_new_object();
	json_object_object_add(obj, key, c);
	return c;
}

int smpol_rec_count(json_object *obj, const char *key)
{
	json_object *v = smpol_rec_get(obj, key);
	int64_t n = v ? json_object_get_int64(v) : 0;

	return n >= 0 && n <= INT_MAX ? (int)n : 0;
}

int smpol_rec_add_counts(int a, int b)
{
	return a > INT_MAX - b ? INT_MAX : a + b;
}

double smpol_rec_double(json_object *obj, const char *key, double dflt)
{
	json_object *v = smpol_rec_get(obj, key);

	return v ? json_object_get_double(v) : dflt;
}

/* A count as it may be added up: finite, non-negative, within 63 bits (a damaged
 * 1e999 would print as "inf", invalid JSON, or wrap). */
static bool sane(double v)
{
	return isfinite(v) && v >= 0 && v < 0x1p63;
}

double smpol_rec_total(json_object *counts)
{
	double sum = 0;

	if (!json_object_is_type(counts, json_type_object))
		return 0;
	json_object_object_foreach(counts, key, val) {
		double v = json_object_get_double(val);

		(void)key;
		if (sane(v))
			sum += v;
	}
	return sum;
}

void smpol_rec_add_pages(json_object *sum, json_object *src, double scale, bool integral, bool keep_max)
{
	if (!json_object_is_type(src, json_type_object))
		return;
	json_object_object_foreach(src, key, val) {
		double v = json_object_get_double(val) * scale;
		json_object *old = smpol_rec_get(sum, key);
		double had = old ? json_object_get_double(old) : 0;

		if (!sane(v))
			continue;
		if (keep_max)
			v = v > had ? v : had;
		else if (sane(had))
			v += had;
		if (!sane(v))
			continue;
		json_object_object_add(sum, key, integral ? json_object_new_uint64((uint64_t)llround(v))
							  : smpol_rec_ratio(v));
	}
}

bool smpol_rec_names(json_object *summary, const char *node)
{
	json_object *hosts = smpol_rec_get(summary, SMPOL_REC_HOSTS);

	if (!json_object_is_type(hosts, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(hosts); i++) {
		const char *name = json_object_get_string(json_object_array_get_idx(hosts, i));

		if (name && !strcmp(name, node))
			return true;
	}
	return false;
}
