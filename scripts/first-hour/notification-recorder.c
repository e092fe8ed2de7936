/* The desktop's notification service for scripts/check-readme.sh: owns org.freedesktop.Notifications on the session
 * bus at $DBUS_SESSION_BUS_ADDRESS and writes each notification it is given as one line, "summary<TAB>body", to
 * stdout (flushed at once), until it is killed. Built at check time against Debian's libsystemd (sd-bus). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>

static uint32_t shown;

static int notify(sd_bus_message *m, void *data, sd_bus_error *error) {
    const char *app, *icon, *summary, *body;
    uint32_t replaces;
    int r = sd_bus_message_read(m, "susss", &app, &replaces, &icon, &summary, &body);
    if (r < 0) return r;
    printf("%s\t%s\n", summary, body);
    fflush(stdout);
    return sd_bus_reply_method_return(m, "u", ++shown);
}

static int capabilities(sd_bus_message *m, void *data, sd_bus_error *error) {
    return sd_bus_reply_method_return(m, "as", 1, "body");
}

static int information(sd_bus_message *m, void *data, sd_bus_error *error) {
    return sd_bus_reply_method_return(m, "ssss", "first-hour", "boxvoice", "1", "1.2");
}

static const sd_bus_vtable table[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Notify", "susssasa{sv}i", "u", notify, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("GetCapabilities", "", "as", capabilities, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("GetServerInformation", "", "ssss", information, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END
};

int main(void) {
    sd_bus *bus = NULL;
    int r = sd_bus_open_user(&bus);
    if (r >= 0) r = sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/Notifications",
                                             "org.freedesktop.Notifications", table, NULL);
    if (r >= 0) r = sd_bus_request_name(bus, "org.freedesktop.Notifications", 0);
    if (r < 0) {
        fprintf(stderr, "notification-recorder: %s\n", strerror(-r));
        return 1;
    }
    fprintf(stderr, "notification-recorder: ready\n");
    for (;;) {
        r = sd_bus_process(bus, NULL);
        if (r < 0) return 1;
        if (r > 0) continue;
        if (sd_bus_wait(bus, UINT64_MAX) < 0) return 1;
    }
}
