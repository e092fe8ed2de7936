#include "sdbus_shim.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>

static int fail(int r, const sd_bus_error *bus_error, char *error, size_t size) {
    if (error && size > 0) {
        const char *text = bus_error && sd_bus_error_is_set(bus_error) ? (bus_error->message ? bus_error->message : bus_error->name) : strerror(-r);
        strncpy(error, text, size - 1);
        error[size - 1] = 0;
    }
    return r < 0 ? r : -EIO;
}

int bv_bus_open(const char *address, sd_bus **bus, char *error, size_t error_size) {
    int r;
    if (!address) {
        r = sd_bus_open_user(bus);
        return r < 0 ? fail(r, NULL, error, error_size) : 0;
    }
    r = sd_bus_new(bus);
    if (r < 0) return fail(r, NULL, error, error_size);
    if ((r = sd_bus_set_address(*bus, address)) < 0 || (r = sd_bus_set_bus_client(*bus, 1)) < 0 || (r = sd_bus_start(*bus)) < 0) {
        sd_bus_unref(*bus);
        *bus = NULL;
        return fail(r, NULL, error, error_size);
    }
    return 0;
}

void bv_bus_close(sd_bus *bus) { sd_bus_flush_close_unref(bus); }

int bv_notify(sd_bus *bus, const char *app, uint32_t replaces, const char *icon, const char *summary, const char *body,
              uint8_t urgency, int32_t timeout_ms, uint32_t *id, char *error, size_t error_size) {
    sd_bus_message *m = NULL, *reply = NULL;
    sd_bus_error bus_error = SD_BUS_ERROR_NULL;
    int r = sd_bus_message_new_method_call(bus, &m, "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
                                           "org.freedesktop.Notifications", "Notify");
    if (r >= 0) r = sd_bus_message_append(m, "susss", app, replaces, icon, summary, body);
    if (r >= 0) r = sd_bus_message_append(m, "as", 0);
    if (r >= 0) r = sd_bus_message_append(m, "a{sv}", 1, "urgency", "y", urgency);
    if (r >= 0) r = sd_bus_message_append(m, "i", timeout_ms);
    if (r >= 0) r = sd_bus_call(bus, m, 2 * 1000 * 1000, &bus_error, &reply);
    if (r >= 0) r = sd_bus_message_read(reply, "u", id);
    if (r < 0) fail(r, &bus_error, error, error_size);
    sd_bus_error_free(&bus_error);
    sd_bus_message_unref(reply);
    sd_bus_message_unref(m);
    return r < 0 ? r : 0;
}

/* One per serving bus: two servers in one process (tests run side by side) never share a context. */
struct server {
    bv_notify_record record;
    void *context;
    uint32_t next_id;
    sd_bus_slot *slot;
};

static int on_notify(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    struct server *server = userdata;
    const char *app, *icon, *summary, *body;
    uint32_t replaces;
    uint8_t urgency = 1;
    int r = sd_bus_message_read(m, "susss", &app, &replaces, &icon, &summary, &body);
    if (r < 0) return r;
    if ((r = sd_bus_message_skip(m, "as")) < 0) return r;
    if ((r = sd_bus_message_enter_container(m, 'a', "{sv}")) < 0) return r;
    while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
        const char *key;
        if ((r = sd_bus_message_read(m, "s", &key)) < 0) return r;
        if (strcmp(key, "urgency") == 0) {
            if ((r = sd_bus_message_read(m, "v", "y", &urgency)) < 0) return r;
        } else if ((r = sd_bus_message_skip(m, "v")) < 0) {
            return r;
        }
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    }
    if (r < 0) return r;
    if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    server->record(server->context, app, summary, body, urgency);
    return sd_bus_reply_method_return(m, "u", ++server->next_id);
}

static int on_capabilities(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    return sd_bus_reply_method_return(m, "as", 2, "body", "actions");
}

static int on_information(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
    return sd_bus_reply_method_return(m, "ssss", "boxvoice-test", "boxvoice", "1", "1.2");
}

static const sd_bus_vtable notifications_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Notify", "susssasa{sv}i", "u", on_notify, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("GetCapabilities", "", "as", on_capabilities, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_METHOD("GetServerInformation", "", "ssss", on_information, SD_BUS_VTABLE_UNPRIVILEGED),
    SD_BUS_VTABLE_END
};

int bv_serve_notifications(sd_bus *bus, bv_notify_record record, void *context, void **server_out, char *error,
                           size_t error_size) {
    struct server *server = calloc(1, sizeof *server);
    if (!server) return fail(-ENOMEM, NULL, error, error_size);
    server->record = record;
    server->context = context;
    int r = sd_bus_add_object_vtable(bus, &server->slot, "/org/freedesktop/Notifications",
                                     "org.freedesktop.Notifications", notifications_vtable, server);
    if (r < 0) {
        free(server);
        return fail(r, NULL, error, error_size);
    }
    r = sd_bus_request_name(bus, "org.freedesktop.Notifications", 0);
    if (r < 0) {
        bv_serve_notifications_end(server);
        return fail(r, NULL, error, error_size);
    }
    *server_out = server;
    return 0;
}

void bv_serve_notifications_end(void *handle) {
    struct server *server = handle;
    if (!server) return;
    sd_bus_slot_unref(server->slot);
    free(server);
}

int bv_bus_process(sd_bus *bus, uint64_t timeout_us) {
    int r;
    while ((r = sd_bus_process(bus, NULL)) > 0) {}
    if (r < 0) return r;
    r = sd_bus_wait(bus, timeout_us);
    return r < 0 ? r : 0;
}

int bv_notify_ready(void) { return sd_notify(0, "READY=1"); }
