#include <stdarg.h>
#include <stdio.h>

#include "error.h"

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
