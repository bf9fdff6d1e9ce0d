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

#endif
