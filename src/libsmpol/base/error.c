/* error.c - the error sentence and quoting what a user gave (see error.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"

#define QUOTE_WHOLE 64   /* values up to this many bytes are quoted whole */
#define QUOTE_HEAD 48
#define QUOTE_TAIL 16

int smpol_fail(char *err, size_t errlen, int errnum, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

/* Append bytes [p, p + n) to buf, escaped; *used stays below len. */
static void append_escaped(const char *p, size_t n, char *buf, size_t len, size_t *used)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		char one[5];

		if (c == '\'' || c == '\\')
			snprintf(one, sizeof(one), "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			snprintf(one, sizeof(one), "\\x%02x", c);
		else
			snprintf(one, sizeof(one), "%c", c);
		if (*used + strlen(one) >= len)
			return;
		strcpy(buf + *used, one);
		*used += strlen(one);
	}
}

const char *smpol_quote(const char *value, char *buf, size_t len)
{
	return smpol_quote_n(value, value ? strlen(value) : 0, buf, len);
}

const char *smpol_quote_n(const char *value, size_t n, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (used + 1 < len)
		buf[used++] = '\'';
	if (n <= QUOTE_WHOLE) {
		append_escaped(value ? value : "", n, buf, len, &used);
	} else {
		append_escaped(value, QUOTE_HEAD, buf, len, &used);
		if (used + 3 < len) {
			memcpy(buf + used, "...", 3);
			used += 3;
		}
		append_escaped(value + n - QUOTE_TAIL, QUOTE_TAIL, buf, len, &used);
	}
	if (used + 1 < len)
		buf[used++] = '\'';
	buf[used] = '\0';
	if (n > QUOTE_WHOLE)
		snprintf(buf + used, len - used, " (%zu bytes)", n);
	return buf;
}
