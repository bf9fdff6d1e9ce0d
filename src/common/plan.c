/* plan.c - to be written */
#include "plan.h"
