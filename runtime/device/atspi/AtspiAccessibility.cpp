#include "device/atspi/AtspiAccessibility.h"

#include <atspi/atspi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "base/Clock.h"
#include "device/Device.h"
#include "device/DeviceWait.h"
#include "device/atspi/A11yBus.h"

namespace eacu {

namespace {

// libatspi's one connection per process: the address it was made with.
std::mutex g_mu;
bool g_connected = false;
std::string g_address;

struct GObjectUnref {
    void operator()(void* p) const {
        if (p) g_object_unref(p);
    }
};
template <class T>
using GPtr = std::unique_ptr<T, GObjectUnref>;

std::string take(gchar* s) {
    std::string out = s ? s : "";
    g_free(s);
    return out;
}

// Sends `m` (its reference is taken) on the accessibility bus and waits up to `timeout_ms` for
// the answer without dispatching anything else (dbus_connection_send_with_reply_and_block:
// libatspi's own calls dispatch signals while they wait). The answer to unref, or nullptr with
// the D-Bus error's text in `error` (when given; "" when there is no bus).
DBusMessage* callBlocking(DBusMessage* m, int timeout_ms, std::string* error = nullptr) {
    DBusConnection* c = atspi_get_a11y_bus();
    if (!c) {
        dbus_message_unref(m);
        return nullptr;
    }
    DBusError err;
    dbus_error_init(&err);
    DBusMessage* r = dbus_connection_send_with_reply_and_block(c, m, timeout_ms, &err);
    dbus_message_unref(m);
    if (dbus_error_is_set(&err) && error) *error = err.message ? err.message : (err.name ? err.name : "D-Bus error");
    dbus_error_free(&err);
    return r;
}

// The string property `property` ("Name", "Description") of org.a11y.atspi.Accessible on
// `acc`, asked of its application with a timeout of `timeout_ms`; "" when it gives none, the
// D-Bus error's text in `error` (when given).
//
// Not atspi_accessible_get_name/_description: libatspi 2.46 (atspi-accessible.c) writes what the
// property call returns into the object's own field (obj->name), and while it blocks on that
// call it dispatches the cache's AddAccessible signals, whose handler puts a fresh copy into the
// same field; the call's answer then overwrites that copy, which is lost (LeakSanitizer: a
// 7-byte name allocated in libatspi's add_accessible_from_iter, seen in e2e_unicode_input once
// the typed-text check read the tree while zenity was drawing). This call blocks without
// dispatching (callBlocking), like processId() below, and leaves libatspi's fields alone.
std::string accessibleString(AtspiAccessible* acc, const char* property, int timeout_ms, std::string* error = nullptr) {
    AtspiObject* o = ATSPI_OBJECT(acc);
    if (!o->app || !o->app->bus_name || !o->path) return "";
    DBusMessage* m = dbus_message_new_method_call(o->app->bus_name, o->path, "org.freedesktop.DBus.Properties", "Get");
    if (!m) return "";
    const char* iface = "org.a11y.atspi.Accessible";
    dbus_message_append_args(m, DBUS_TYPE_STRING, &iface, DBUS_TYPE_STRING, &property, DBUS_TYPE_INVALID);
    DBusMessage* r = callBlocking(m, timeout_ms, error);
    std::string out;
    DBusMessageIter it, v;
    if (r && dbus_message_iter_init(r, &it) && dbus_message_iter_get_arg_type(&it) == DBUS_TYPE_VARIANT) {
        dbus_message_iter_recurse(&it, &v);
        if (dbus_message_iter_get_arg_type(&v) == DBUS_TYPE_STRING) {
            const char* str = nullptr;
            dbus_message_iter_get_basic(&v, &str);
            if (str) out = str;
        }
    }
    if (r) dbus_message_unref(r);
    return out;
}

// A GError's message (and frees it), or "" when there was none.
std::string errorText(GError*& err) {
    if (!err) return "";
    std::string m = err->message ? err->message : "unknown error";
    g_error_free(err);
    err = nullptr;
    return m;
}

// Processes what libatspi has received (cache updates, events) without blocking.
void pump() {
    while (g_main_context_iteration(nullptr, FALSE)) {
    }
}

std::string stateName(AtspiStateType s) {
    static GEnumClass* cls = static_cast<GEnumClass*>(g_type_class_ref(atspi_state_type_get_type()));
    GEnumValue* v = g_enum_get_value(cls, s);
    return v && v->value_nick ? v->value_nick : "state " + std::to_string(int(s));
}

}  // namespace

// The bound of one tree read or element action on the accessibility bus: a DeviceWait (the
// step's deadline, the run's token, else kOwnTimeout). Before each libatspi call that goes over
// D-Bus, next() gives libatspi's call timeout what is left of it (at most kCallMs, so that one
// program that does not answer is skipped, or kStartupMs for a program that has just started:
// libatspi's own two limits), and throws the stall once nothing is left: a bus that stops
// answering ends the read at the bound, whatever the number of elements.
class BusWait {
public:
    BusWait(const std::string& display, const std::string& operation)
        : w_("accessibility bus of display " + display, operation, kOwnTimeout) {}

    // Before a call: its timeout (`whole`: all that is left, for a call whose failure fails the
    // operation). Throws DeviceStalled when the bound has passed, Cancelled on a stop.
    // Returns that timeout in milliseconds.
    int next(bool whole = false) const {
        w_.slice();  // a stop, a signal, the run's time limit
        const double left = w_.end() - monotonicSeconds();
        if (left <= 0) throw w_.expired();
        const int ms = std::max(1, int(left * 1000));
        const int call = whole ? ms : std::min(ms, kCallMs);
        atspi_set_timeout(call, std::min(ms, kStartupMs));
        return call;
    }
    // After a call that failed with `error` (its message, "" when none): the stall when the bound
    // has passed meanwhile (the call's timeout was what was left), else nothing.
    void failed(const std::string& error) const {
        if (!error.empty() && w_.end() - monotonicSeconds() <= 0.01) throw w_.expired("no answer (" + error + ")");
    }

private:
    static constexpr double kOwnTimeout = 30;
    static constexpr int kCallMs = 2000;
    static constexpr int kStartupMs = 15000;
    DeviceWait w_;
};

namespace {

// Asks the bus at `address` for Hello within what is left of `bus` (busAnswers: a connection of
// our own, not libatspi's, whose calls wait D-Bus's 25 s). Throws the stall when the bound ran
// out, else DeviceError naming the bus (a daemon that is gone: the connection refused).
void requireAnswer(const std::string& address, const std::string& display, const BusWait& bus) {
    std::string why;
    if (busAnswers(address, bus.next(true), &why)) return;
    bus.failed(why.empty() ? "no answer" : why);
    throw DeviceError("accessibility bus of display " + display + " (" + address + "): " + (why.empty() ? "unreachable" : why));
}

// The process id of application `app`, asked of the bus (GetConnectionUnixProcessID) with
// the bound's timeout (libatspi's atspi_accessible_get_process_id waits D-Bus's default 25 s);
// 0 when the bus does not say.
int processId(AtspiAccessible* app, const BusWait& bus) {
    AtspiApplication* a = ATSPI_OBJECT(app)->app;
    if (!a || !a->bus_name) return 0;
    const int timeout_ms = bus.next(true);
    DBusMessage* m = dbus_message_new_method_call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                  "GetConnectionUnixProcessID");
    if (!m) return 0;
    const char* name = a->bus_name;
    dbus_message_append_args(m, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID);
    std::string why;
    DBusMessage* r = callBlocking(m, timeout_ms, &why);
    dbus_uint32_t pid = 0;
    if (r) {
        if (!dbus_message_get_args(r, nullptr, DBUS_TYPE_UINT32, &pid, DBUS_TYPE_INVALID)) pid = 0;
        dbus_message_unref(r);
    }
    bus.failed(why);
    return int(pid);
}

struct Walker {
    const BusWait& bus;
    int max_elements;
    int max_depth;
    int count = 0;
    bool truncated = false;

    // Reads `acc` (whose path and application are set in `el`) and its children.
    // Frees `err` and bounds the next call.
    void next(GError*& err) const {
        errorText(err);
        bus.next();
    }

    void read(AtspiAccessible* acc, A11yElement& el, int depth) {
        ++count;
        GError* err = nullptr;
        bus.next();
        el.role = take(atspi_role_get_name(atspi_accessible_get_role(acc, &err)));
        errorText(err);
        el.name = accessibleString(acc, "Name", bus.next());
        el.description = accessibleString(acc, "Description", bus.next());
        bus.next();
        if (GPtr<AtspiStateSet> ss{atspi_accessible_get_state_set(acc)}) {
            if (GArray* states = atspi_state_set_get_states(ss.get())) {
                for (guint i = 0; i < states->len; ++i)
                    el.states.push_back(stateName(g_array_index(states, AtspiStateType, i)));
                g_array_free(states, TRUE);
            }
        }
        bus.next();
        if (GPtr<AtspiComponent> c{atspi_accessible_get_component_iface(acc)}) {
            AtspiRect* r = atspi_component_get_extents(c.get(), ATSPI_COORD_TYPE_SCREEN, &err);
            next(err);
            if (r && r->width > 0 && r->height > 0 && r->x > -100000 && r->y > -100000)
                el.bounds = {r->x, r->y, r->width, r->height};
            g_free(r);
        }
        if (GPtr<AtspiAction> a{atspi_accessible_get_action_iface(acc)}) {
            int n = atspi_action_get_n_actions(a.get(), &err);
            next(err);
            for (int i = 0; i < n; ++i) {
                std::string name = take(atspi_action_get_action_name(a.get(), i, &err));
                next(err);
                if (!name.empty()) el.actions.push_back(name);
            }
        }
        if (GPtr<AtspiEditableText> e{atspi_accessible_get_editable_text_iface(acc)}) el.editable_text = true;
        // Children of what is not on screen (a closed menu, a hidden page) are left out; the
        // levels above windows (desktop, application) always have theirs.
        if (depth >= 2 && !el.has("showing")) return;
        if (depth >= max_depth) {
            truncated = true;
            return;
        }
        bus.next();
        int n = atspi_accessible_get_child_count(acc, &err);
        if (errorText(err).size()) return;
        for (int i = 0; i < n; ++i) {
            if (count >= max_elements) {
                truncated = true;
                return;
            }
            bus.next();
            GPtr<AtspiAccessible> child{atspi_accessible_get_child_at_index(acc, i, &err)};
            errorText(err);
            if (!child) continue;
            A11yElement c;
            c.path = el.path;
            c.path.push_back(i);
            c.pid = el.pid;
            c.app = el.app;
            read(child.get(), c, depth + 1);
            el.children.push_back(std::move(c));
        }
    }
};

}  // namespace

AtspiAccessibility::AtspiAccessibility(std::string bus_address, std::string display)
    : bus_address_(std::move(bus_address)), display_(std::move(display)) {}

AtspiAccessibility::~AtspiAccessibility() = default;

void AtspiAccessibility::connect(const BusWait& bus) {
    if (!unavailable_.empty()) throw DeviceError(unavailable_);
    if (bus_address_.empty()) {
        // Found here rather than by libatspi, which would autolaunch a session bus (a process
        // outliving the run) when there is none.
        const char* env = std::getenv("AT_SPI_BUS_ADDRESS");
        const char* session = std::getenv("DBUS_SESSION_BUS_ADDRESS");
        if (env && *env) bus_address_ = env;
        else if (session && *session) bus_address_ = a11yBusAddress(session, true, std::min(1000, bus.next(true)));
        if (bus_address_.empty()) {
            unavailable_ = "no accessibility bus for display " + display_ + " (AT-SPI2: " +
                           (session && *session ? std::string("org.a11y.Bus does not answer on the session bus")
                                                : std::string("neither $AT_SPI_BUS_ADDRESS nor $DBUS_SESSION_BUS_ADDRESS is set")) +
                           "); --display virtual starts one for its programs";
            throw DeviceError(unavailable_);
        }
    }
    std::lock_guard<std::mutex> lock(g_mu);
    if (g_connected && g_address == bus_address_) return;
    // libatspi's connecting (atspi_init: Hello and its match rules) waits D-Bus's default 25 s
    // per call on a bus that accepts the connection but does not answer (its daemon stopped):
    // the bus is asked first, on a connection of ours, within the bound. (A bus that stops
    // between that answer and libatspi's calls is not bounded so.)
    requireAnswer(bus_address_, display_, bus);
    if (g_connected) {
        atspi_exit();
        g_connected = false;
    }
    // libatspi reads the bus address from the environment when it connects.
    ::setenv("AT_SPI_BUS_ADDRESS", bus_address_.c_str(), 1);
    bus.next(true);
    int rc = atspi_init();
    if (rc != 0 && rc != 1 /* already */) {
        unavailable_ = "no accessibility bus for display " + display_ + " (AT-SPI2: cannot connect to " +
                       bus_address_ + "); --display virtual starts one for its programs";
        throw DeviceError(unavailable_);
    }
    g_connected = true;
    g_address = bus_address_;
}

A11yElement AtspiAccessibility::snapshot(const A11yScope& scope) {
    const BusWait bus(display_, "tree");
    connect(bus);
    pump();
    GPtr<AtspiAccessible> desktop{atspi_get_desktop(0)};
    if (!desktop) throw DeviceError("the accessibility bus of display " + display_ + " has no desktop");
    A11yElement root;
    root.role = "desktop frame";
    root.name = "main";
    Walker w{bus, scope.max_elements, scope.max_depth};
    GError* err = nullptr;
    bus.next(true);
    int n = atspi_accessible_get_child_count(desktop.get(), &err);
    std::string e = errorText(err);
    bus.failed(e);
    if (!e.empty()) throw DeviceError("accessibility bus of display " + display_ + ": cannot list applications: " + e);
    if (n <= 0) {
        // libatspi lists the desktop's applications from its cache, with no call: a bus that has
        // stopped answering gives an empty desktop, not an error. An empty one is checked (Hello
        // on a connection of ours, within the bound), so that a stall is not taken for a screen
        // without programs.
        requireAnswer(bus_address_, display_, bus);
    }
    for (int i = 0; i < n; ++i) {
        bus.next();
        GPtr<AtspiAccessible> app{atspi_accessible_get_child_at_index(desktop.get(), i, &err)};
        errorText(err);
        if (!app) continue;
        const int pid = processId(app.get(), bus);
        if (scope.pid && pid != scope.pid) continue;
        atspi_accessible_clear_cache(app.get());
        A11yElement a;
        a.path = {i};
        a.pid = pid;
        a.app = accessibleString(app.get(), "Name", bus.next());
        w.read(app.get(), a, 1);
        root.children.push_back(std::move(a));
        if (w.count >= w.max_elements) break;
    }
    if (w.truncated) root.states.push_back("truncated");
    return root;
}

namespace {

// The element at `el.path`, checked to be the same (role, and name when `check_name`) as when it
// was read.
GPtr<AtspiAccessible> resolve(const A11yElement& el, const std::string& display, const BusWait& bus,
                              bool check_name = true) {
    if (el.path.empty()) throw DeviceError("accessible element \"" + el.name + "\": it has no path in the tree");
    pump();
    GPtr<AtspiAccessible> cur{atspi_get_desktop(0)};
    GError* err = nullptr;
    for (size_t k = 0; k < el.path.size(); ++k) {
        bus.next(true);
        GPtr<AtspiAccessible> next{atspi_accessible_get_child_at_index(cur.get(), el.path[k], &err)};
        std::string e = errorText(err);
        bus.failed(e);
        if (!next)
            throw DeviceError("accessible " + el.role + " \"" + el.name + "\" on " + display + " is gone" +
                              (e.empty() ? "" : " (" + e + ")"));
        cur = std::move(next);
    }
    bus.next(true);
    std::string role = take(atspi_role_get_name(atspi_accessible_get_role(cur.get(), &err)));
    bus.failed(errorText(err));
    std::string name_error;
    std::string name = accessibleString(cur.get(), "Name", bus.next(true), &name_error);
    bus.failed(name_error);
    if (role != el.role || (check_name && name != el.name))
        throw DeviceError("accessible " + el.role + " \"" + el.name + "\" on " + display +
                          " is gone: its place in the tree now holds " + role + " \"" + name + "\"");
    return cur;
}

}  // namespace

void AtspiAccessibility::doAction(const A11yElement& el, const std::string& action) {
    const BusWait bus(display_, "action " + action);
    connect(bus);
    GPtr<AtspiAccessible> acc = resolve(el, display_, bus);
    GPtr<AtspiAction> a{atspi_accessible_get_action_iface(acc.get())};
    if (!a) throw DeviceError("accessible " + el.role + " \"" + el.name + "\" has no actions");
    GError* err = nullptr;
    bus.next(true);
    int n = atspi_action_get_n_actions(a.get(), &err);
    bus.failed(errorText(err));
    std::string have;
    for (int i = 0; i < n; ++i) {
        bus.next(true);
        std::string name = take(atspi_action_get_action_name(a.get(), i, &err));
        bus.failed(errorText(err));
        if (name == action) {
            bus.next(true);
            gboolean ok = atspi_action_do_action(a.get(), i, &err);
            std::string e = errorText(err);
            bus.failed(e);
            if (!ok || !e.empty())
                throw DeviceError("accessible " + el.role + " \"" + el.name + "\": action \"" + action +
                                  "\" refused" + (e.empty() ? "" : ": " + e));
            return;
        }
        have += (have.empty() ? "" : ", ") + name;
    }
    throw DeviceError("accessible " + el.role + " \"" + el.name + "\": expected one of its actions (" +
                      (have.empty() ? "none" : have) + "), got \"" + action + "\"");
}

void AtspiAccessibility::setText(const A11yElement& el, const std::string& utf8) {
    const BusWait bus(display_, "set text");
    connect(bus);
    GPtr<AtspiAccessible> acc = resolve(el, display_, bus);
    GPtr<AtspiEditableText> e{atspi_accessible_get_editable_text_iface(acc.get())};
    if (!e) throw DeviceError("accessible " + el.role + " \"" + el.name + "\": its text is not editable");
    GError* err = nullptr;
    bus.next(true);
    gboolean ok = atspi_editable_text_set_text_contents(e.get(), utf8.c_str(), &err);
    std::string m = errorText(err);
    bus.failed(m);
    if (!ok || !m.empty())
        throw DeviceError("accessible " + el.role + " \"" + el.name + "\": setting its text was refused" +
                          (m.empty() ? "" : ": " + m));
}

std::optional<A11yText> AtspiAccessibility::readText(const A11yElement& el) {
    const BusWait bus(display_, "read text");
    connect(bus);
    GPtr<AtspiAccessible> acc = resolve(el, display_, bus, false);
    GPtr<AtspiText> t{atspi_accessible_get_text_iface(acc.get())};
    if (!t) return std::nullopt;
    GError* err = nullptr;
    A11yText out;
    bus.next(true);
    out.text = take(atspi_text_get_text(t.get(), 0, -1, &err));
    std::string e = errorText(err);
    bus.failed(e);
    if (!e.empty()) throw DeviceError("accessible " + el.role + " \"" + el.name + "\": cannot read its text: " + e);
    bus.next(true);
    int caret = atspi_text_get_caret_offset(t.get(), &err);
    if (errorText(err).empty() && caret >= 0) out.caret = caret;
    bus.next(true);
    int n = atspi_text_get_n_selections(t.get(), &err);
    if (errorText(err).empty() && n > 0) {
        bus.next(true);
        AtspiRange* r = atspi_text_get_selection(t.get(), 0, &err);
        if (errorText(err).empty() && r && r->start_offset < r->end_offset) {
            out.sel_start = r->start_offset;
            out.sel_end = r->end_offset;
        }
        g_free(r);
    }
    return out;
}

}  // namespace eacu
