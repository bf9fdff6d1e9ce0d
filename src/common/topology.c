/* topology.c - to be written */
#include "topology.h"
