/* sysfs.c - to be written */
#include "sysfs.h"
