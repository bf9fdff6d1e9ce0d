/* lease.c - to be written */
#include "lease.h"
