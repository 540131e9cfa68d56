#include "device/atspi/A11yBus.h"

#include <dbus/dbus.h>

#include "base/Clock.h"

namespace eacu {

namespace {

// Hello on `c` within `timeout_ms` (dbus_bus_register waits D-Bus's default 25 s): a bus's first
// message, after which others may be sent. False with the error's text in `why`.
//
// The authentication is driven first, with dbus_connection_read_write's bounded polls: sending
// on a connection not yet authenticated polls its socket with no timeout (libdbus 1.14, seen
// with gdb: dbus_connection_send_with_reply_and_block in poll(-1) on a stopped daemon).
bool hello(DBusConnection* c, int timeout_ms, std::string* why) {
    const double end = monotonicSeconds() + timeout_ms / 1000.0;
    auto left_ms = [&] { return int((end - monotonicSeconds()) * 1000); };
    while (!dbus_connection_get_is_authenticated(c)) {
        if (left_ms() <= 0) {
            if (why) *why = "no answer to the authentication";
            return false;
        }
        if (!dbus_connection_read_write(c, left_ms())) {
            if (why) *why = "the bus closed the connection";
            return false;
        }
    }
    if (left_ms() <= 0) {
        if (why) *why = "no answer";
        return false;
    }
    DBusMessage* m = dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello");
    if (!m) return false;
    DBusError err;
    dbus_error_init(&err);
    DBusMessage* r = dbus_connection_send_with_reply_and_block(c, m, left_ms(), &err);
    dbus_message_unref(m);
    if (!r && why) *why = dbus_error_is_set(&err) && err.message ? err.message : "no answer";
    dbus_error_free(&err);
    if (r) dbus_message_unref(r);
    return r != nullptr;
}

// A private connection to `address` that does not end the process when the bus closes it, or
// nullptr (the error's text in `why`).
DBusConnection* openPrivate(const std::string& address, std::string* why) {
    DBusError err;
    dbus_error_init(&err);
    DBusConnection* c = dbus_connection_open_private(address.c_str(), &err);
    if (!c && why) *why = err.message ? err.message : "cannot connect";
    dbus_error_free(&err);
    if (c) dbus_connection_set_exit_on_disconnect(c, FALSE);
    return c;
}

void closePrivate(DBusConnection* c) {
    dbus_connection_close(c);
    dbus_connection_unref(c);
}

}  // namespace

bool busAnswers(const std::string& address, int timeout_ms, std::string* why) {
    DBusConnection* c = openPrivate(address, why);
    if (!c) return false;
    const bool ok = hello(c, timeout_ms, why);
    closePrivate(c);
    return ok;
}

std::string a11yBusAddress(const std::string& session_address, bool auto_start, int timeout_ms) {
    DBusConnection* c = openPrivate(session_address, nullptr);
    if (!c) return "";
    std::string out;
    if (hello(c, timeout_ms, nullptr)) {
        DBusError err;
        dbus_error_init(&err);
        DBusMessage* m = dbus_message_new_method_call("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress");
        dbus_message_set_auto_start(m, auto_start ? TRUE : FALSE);
        DBusMessage* r = dbus_connection_send_with_reply_and_block(c, m, timeout_ms, &err);
        dbus_message_unref(m);
        if (r) {
            const char* addr = nullptr;
            if (dbus_message_get_args(r, &err, DBUS_TYPE_STRING, &addr, DBUS_TYPE_INVALID) && addr) out = addr;
            dbus_message_unref(r);
        }
        dbus_error_free(&err);
    }
    closePrivate(c);
    return out;
}

}  // namespace eacu
