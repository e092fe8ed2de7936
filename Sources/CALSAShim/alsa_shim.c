#include "alsa_shim.h"
#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_message[512];
static _Thread_local char taken[512];

static void record_message(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err;
    va_list args;
    va_start(args, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, args);
    va_end(args);
}

void boxvoice_alsa_capture_messages(void) {
    snd_lib_error_set_handler(record_message);
}

const char *boxvoice_alsa_take_message(void) {
    snprintf(taken, sizeof taken, "%s", last_message);
    last_message[0] = '\0';
    return taken;
}
