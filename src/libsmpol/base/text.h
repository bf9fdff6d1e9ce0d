/* text.h - text from outside (a job's record, written by whoever could write the
 * field) made safe to print on an admin's terminal; heap strings kept as long as
 * they are. */
#ifndef SMPOL_TEXT_H
#define SMPOL_TEXT_H

#include <stddef.h>

/*
 * smpol_text_printable - text into buf with every control character (below 0x20,
 * 0x7f, and the C1 range U+0080-U+009F written as UTF-8), every byte that is not part
 * of valid UTF-8, and backslash written as a visible escape (\e, \n, \t, \\, \xNN),
 * so that no escape sequence reaches the terminal and two different names never print
 * alike. Cut with "..." when longer than len. NULL prints as "". Returns buf.
 */
const char *smpol_text_printable(const char *text, char *buf, size_t len);

/*
 * smpol_utf8_len - the length (1-4) of the well-formed UTF-8 character that starts at
 * p, of which at most n bytes are there; 0 when the bytes there are no such character
 * (a stray continuation byte, an overlong form, a surrogate, beyond U+10FFFF, or cut
 * short by n). Every ASCII byte, NUL included, is a character of length 1.
 */
size_t smpol_utf8_len(const unsigned char *p, size_t n);

/* *slot = a malloc'ed copy of value, what it held freed. 0, or -ENOMEM (*slot unchanged). */
int smpol_text_set(char **slot, const char *value);

#endif
