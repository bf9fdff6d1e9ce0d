/* site_config.c - to be written */
#include "site_config.h"
