#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: "copy the bound text now".
static inline sqlite3_destructor_type boxvoice_sqlite_transient(void) { return SQLITE_TRANSIENT; }
