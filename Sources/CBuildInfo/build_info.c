#include "build_info.h"
#ifndef BOXVOICE_COMMIT
#define BOXVOICE_COMMIT "unknown"
#endif
const char *boxvoice_build_commit(void) { return BOXVOICE_COMMIT; }
