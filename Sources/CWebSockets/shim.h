#include <libwebsockets.h>

/// Bytes libwebsockets needs free before a payload handed to lws_write (LWS_PRE is a macro Swift cannot import).
static inline size_t boxvoice_lws_pre(void) { return LWS_PRE; }
