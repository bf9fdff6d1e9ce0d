/* text.c - untrusted text made printable (see text.h). */
#include <stdio.h>
#include <string.h>

#include "text.h"

const char *smpol_text_printable(const char *text, char *buf, size_t len)
{
	size_t o = 0;

	if (len == 0)
		return buf;
	for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
		char esc[8];
		size_t n;

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
		else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			/* a C1 control (U+0080-U+009F): some terminals take U+009B as CSI */
			snprintf(esc, sizeof(esc), "\\x%02x", *++p);
		else
			esc[0] = (char)*p, esc[1] = '\0';
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
