/* spec.c - to be written */
#include "spec.h"
