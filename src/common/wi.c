/* wi.c - to be written */
#include "wi.h"
