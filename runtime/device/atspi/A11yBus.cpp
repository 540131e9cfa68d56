#include "device/atspi/A11yBus.h"

#include <dbus/dbus.h>

namespace eacu {

std::string a11yBusAddress(const std::string& session_address, bool auto_start, int timeout_ms) {
    DBusError err;
    dbus_error_init(&err);
    DBusConnection* c = dbus_connection_open_private(session_address.c_str(), &err);
    if (!c) {
        dbus_error_free(&err);
        return "";
    }
    // A private connection must not take the process down when the bus closes it.
    dbus_connection_set_exit_on_disconnect(c, FALSE);
    std::string out;
    if (dbus_bus_register(c, &err)) {
        DBusMessage* m = dbus_message_new_method_call("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress");
        dbus_message_set_auto_start(m, auto_start ? TRUE : FALSE);
        DBusMessage* r = dbus_connection_send_with_reply_and_block(c, m, timeout_ms, &err);
        dbus_message_unref(m);
        if (r) {
            const char* addr = nullptr;
            if (dbus_message_get_args(r, &err, DBUS_TYPE_STRING, &addr, DBUS_TYPE_INVALID) && addr) out = addr;
            dbus_message_unref(r);
        }
    }
    dbus_error_free(&err);
    dbus_connection_close(c);
    dbus_connection_unref(c);
    return out;
}

}  // namespace eacu
