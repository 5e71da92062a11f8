#include <sqlite3.h>

/// sqlite3_config is variadic, which Swift cannot call. With memory statistics on (SQLite's
/// default), every allocation SQLite makes takes one process-wide mutex to count it; nothing in
/// Parley reads those counts. Must run before SQLite initializes (before the first open): later it
/// returns SQLITE_MISUSE and changes nothing.
static inline int parley_sqlite3_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
