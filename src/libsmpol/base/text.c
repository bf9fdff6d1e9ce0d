/* text.c - untrusted text made printable; heap strings (see text.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

size_t smpol_utf8_len(const unsigned char *p, size_t n)
{
	/* the second byte's range depends on the first (RFC 3629's table) */
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (n == 0)
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, lo = p[0] == 0xe0 ? 0xa0 : 0x80, hi = p[0] == 0xed ? 0x9f : 0xbf;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, lo = p[0] == 0xf0 ? 0x90 : 0x80, hi = p[0] == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < len || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return len;
}

const char *smpol_text_printable(const char *text, char *buf, size_t len)
{
	size_t o = 0, left = text ? strlen(text) : 0, step;

	if (len == 0)
		return buf;
	for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p += step, left -= step) {
		size_t n, utf8 = smpol_utf8_len(p, left);
		char esc[8];

		step = 1;
		if (*p == '\\')
			snprintf(esc, sizeof(esc), "\\\\");
		else if (*p == '\033')
			snprintf(esc, sizeof(esc), "\\e");
		else if (*p == '\n')
			snprintf(esc, sizeof(esc), "\\n");
		else if (*p == '\t')
			snprintf(esc, sizeof(esc), "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
			/* a C1 control (U+0080-U+009F): some terminals take U+009B as CSI */
			snprintf(esc, sizeof(esc), "\\x%02x", p[1]);
			step = 2;
		} else if (!utf8) {
			/* not UTF-8: a lone 0x9b is CSI to a Latin-1 terminal */
			snprintf(esc, sizeof(esc), "\\x%02x", *p);
		} else {
			memcpy(esc, p, utf8);
			esc[utf8] = '\0';
			step = utf8;
		}
		n = strlen(esc);
		if (o + n + 4 > len) {
			/* room for "..." and the terminator */
			snprintf(buf + o, len - o, "%s", len - o > 3 ? "..." : "");
			return buf;
		}
		memcpy(buf + o, esc, n);
		o += n;
	}
	buf[o] = '\0';
	return buf;
}

int smpol_text_set(char **slot, const char *value)
{
	char *copy = strdup(value);

	if (!copy)
		return -ENOMEM;
	free(*slot);
	*slot = copy;
	return 0;
}
