/* apply.c - to be written */
#include "apply.h"
