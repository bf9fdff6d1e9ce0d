/* text.h - text from outside (a job's record, written by whoever could write the
 * field) made safe to print on an admin's terminal. */
#ifndef SMPOL_TEXT_H
#define SMPOL_TEXT_H

#include <stddef.h>

/*
 * smpol_text_printable - text into buf with every control character (below 0x20,
 * 0x7f, and the C1 range U+0080-U+009F written as UTF-8) and backslash written as a
 * visible escape (\e, \n, \t, \\, \xNN), so that no escape sequence reaches the
 * terminal and two different names never print alike. Cut with "..." when longer than
 * len. NULL prints as "". Returns buf.
 */
const char *smpol_text_printable(const char *text, char *buf, size_t len);

#endif
