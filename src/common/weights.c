/* weights.c - to be written */
#include "weights.h"
