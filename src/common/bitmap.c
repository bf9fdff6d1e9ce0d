/* bitmap.c - to be written */
#include "bitmap.h"
