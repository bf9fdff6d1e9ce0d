/* kernel.c - to be written */
#include "kernel.h"
