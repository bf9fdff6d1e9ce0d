/* error.h - one error style for libsmpol.
 *
 * Every libsmpol function that can fail returns 0 or -errno and, on failure, writes
 * a sentence a user can act on into a caller-provided buffer (never a bare errno).
 */
#ifndef SMPOL_ERROR_H
#define SMPOL_ERROR_H

#include <stddef.h>

/* Room for one error sentence; callers declare `char err[SMPOL_ERRLEN]`. */
#define SMPOL_ERRLEN 512

/*
 * smpol_fail - format a message into err (may be NULL) and return -errnum.
 * errnum is a positive errno value; the return is what the caller should return.
 */
int smpol_fail(char *err, size_t errlen, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Room for one smpol_quote() result: `char q[SMPOL_QUOTE_LEN]`. */
#define SMPOL_QUOTE_LEN 320

/*
 * smpol_quote - what a user gave (or a file held), as a message may show it: in single
 * quotes, every byte that is not printable ASCII written \xNN (and ' and \ escaped),
 * so a message can neither carry raw bytes to a terminal nor lose its reason to a
 * long value. A value longer than 64 bytes shows its first 48 and last 16 bytes and
 * its length: 'aaaa...aaaa' (712 bytes). NULL reads as ''. Returns buf.
 */
const char *smpol_quote(const char *value, char *buf, size_t len);

/* The same for the n bytes at value (a part of a longer text). */
const char *smpol_quote_n(const char *value, size_t n, char *buf, size_t len);

#endif
