/* error.h - one error style for libmpol.
 *
 * Every libmpol function that can fail returns 0 or -errno and, on failure, writes
 * a sentence a user can act on into a caller-provided buffer (never a bare errno).
 */
#ifndef MPOL_ERROR_H
#define MPOL_ERROR_H

#include <stddef.h>

/* Room for one error sentence; callers declare `char err[MPOL_ERRLEN]`. */
#define MPOL_ERRLEN 512

/*
 * mpol_fail - format a message into err (may be NULL) and return -errnum.
 * errnum is a positive errno value; the return is what the caller should return.
 */
int mpol_fail(char *err, size_t errlen, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
