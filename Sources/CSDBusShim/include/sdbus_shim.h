#ifndef BOXVOICE_SDBUS_SHIM_H
#define BOXVOICE_SDBUS_SHIM_H
#include <stddef.h>
#include <stdint.h>

/// sd-bus builds and reads messages through variadic functions Swift cannot call: one C function per D-Bus call
/// boxvoice makes (and, for tests, per call it answers). Each returns 0 or a negative errno, with the bus's error
/// message (if any) copied into `error`.

typedef struct sd_bus sd_bus;

/// Connects to the session bus at `address` (NULL: $DBUS_SESSION_BUS_ADDRESS, else the user's default bus).
int bv_bus_open(const char *address, sd_bus **bus, char *error, size_t error_size);
void bv_bus_close(sd_bus *bus);

/// org.freedesktop.Notifications.Notify with an urgency hint (0 low, 1 normal, 2 critical); the server's id in `id`.
int bv_notify(sd_bus *bus, const char *app, uint32_t replaces, const char *icon, const char *summary, const char *body,
              uint8_t urgency, int32_t timeout_ms, uint32_t *id, char *error, size_t error_size);

/// For tests: owns org.freedesktop.Notifications on `bus` and answers Notify, GetCapabilities and
/// GetServerInformation; each Notify's app, summary and body are passed to `record` (with `context`).
typedef void (*bv_notify_record)(void *context, const char *app, const char *summary, const char *body, uint8_t urgency);
/// Serves org.freedesktop.Notifications on `bus`, calling `record` with `context` for each one; `*server_out` is
/// what `bv_serve_notifications_end` takes once nothing processes the bus any more.
int bv_serve_notifications(sd_bus *bus, bv_notify_record record, void *context, void **server_out, char *error,
                           size_t error_size);
void bv_serve_notifications_end(void *server);
/// Tells the service manager the service is ready (sd_notify READY=1); 0 without one ($NOTIFY_SOCKET unset), 1 when
/// told, or a negative errno.
int bv_notify_ready(void);
/// Processes what is waiting on `bus`, then waits up to `timeout_us` for more; 0 or a negative errno.
int bv_bus_process(sd_bus *bus, uint64_t timeout_us);

#endif
