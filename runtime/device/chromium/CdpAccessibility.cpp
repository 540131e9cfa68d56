#include "device/chromium/CdpAccessibility.h"

#include <algorithm>
#include <cmath>
#include <exception>

#include "base/Clock.h"
#include "base/Utf8.h"
#include "device/chromium/ChromiumDevice.h"
#include "device/PeerJson.h"

namespace eacu {

namespace {

// Seconds a tree read may take on its own (without a step's deadline).
constexpr double kTreeTimeout = 30;

// A read's first call on a page makes Chromium build its tree (0.3-1 s on a loaded machine):
// a look close to its deadline still gets this long, within the thread's IoBound (DeviceWait).
constexpr double kMinTreeTimeout = 2;

// What is left of `deadline` (monotonic seconds; 0: none) for the next call, at least
// kMinTreeTimeout, at most the own limit.
double cdpTreeTimeout(double deadline) {
    if (deadline <= 0) return kTreeTimeout;
    return std::clamp(deadline - monotonicSeconds(), kMinTreeTimeout, kTreeTimeout);
}

}  // namespace

CdpAccessibility::CdpAccessibility(ChromiumDevice& device) : device_(device) {}

CdpTree CdpAccessibility::read(const A11yScope& scope) {
    CdpTreeView view;
    view.viewport = device_.metrics().viewport;
    view.scale = device_.metrics().scale;
    view.pid = device_.browserPid();
    view.who = device_.peer();
    if (scope.pid && scope.pid != view.pid) return parseCdpAxTree({}, {}, view, scope);  // no application
    nlohmann::json ax = device_.call("Accessibility.getFullAXTree", nlohmann::json::object(), cdpTreeTimeout(scope.deadline));
    nlohmann::json layout = device_.call("DOMSnapshot.captureSnapshot", {{"computedStyles", nlohmann::json::array()}},
                                         cdpTreeTimeout(scope.deadline));
    return parseCdpAxTree(ax, layout, view, scope);
}

A11yElement CdpAccessibility::snapshot(const A11yScope& scope) { return read(scope).root; }

int64_t CdpAccessibility::current(const A11yElement& element, A11yElement& now, bool check_name) {
    CdpTree t = read({});
    const A11yElement* e = &t.root;
    for (int i : element.path) {
        if (i < 0 || static_cast<size_t>(i) >= e->children.size()) {
            e = nullptr;
            break;
        }
        e = &e->children[static_cast<size_t>(i)];
    }
    auto node = t.nodes.find(element.path);
    if (!e || e->role != element.role || (check_name && e->name != element.name) || node == t.nodes.end())
        throw DeviceError(device_.peer() + ": " + element.role + " \"" + element.name + "\" is gone (the page changed)" +
                          (e ? ": there is now " + e->role + " \"" + e->name + "\"" : std::string()));
    now = *e;
    return node->second;
}

void CdpAccessibility::doAction(const A11yElement& element, const std::string& action) {
    A11yElement e;
    const int64_t node = current(element, e);
    if (std::find(e.actions.begin(), e.actions.end(), action) == e.actions.end() || (action != "click" && action != "focus")) {
        std::string list;
        for (const auto& a : e.actions) list += (list.empty() ? "" : ", ") + a;
        throw DeviceError(device_.peer() + ": " + e.role + " \"" + e.name + "\": expected one of its actions (" +
                          (list.empty() ? "none" : list) + "), got \"" + action + "\"");
    }
    if (action == "focus") {
        device_.call("DOM.focus", {{"backendNodeId", node}});
        return;
    }
    device_.call("DOM.scrollIntoViewIfNeeded", {{"backendNodeId", node}});
    nlohmann::json q = device_.call("DOM.getContentQuads", {{"backendNodeId", node}});
    const std::string who = device_.peer() + ": DOM.getContentQuads";
    const nlohmann::json& quads = peerArray(q, "quads", who);
    if (quads.empty() || !quads[0].is_array() || quads[0].size() != 8)
        throw DeviceError(device_.peer() + ": " + e.role + " \"" + e.name + "\" has no box on the page to click");
    double cx = 0, cy = 0;
    for (size_t k = 0; k < 8; ++k) {
        if (!quads[0][k].is_number()) throw DeviceError(who + ": expected a quad of 8 numbers, got " + quads[0].dump());
        (k % 2 ? cy : cx) += quads[0][k].get<double>() / 4;
    }
    if (!std::isfinite(cx) || !std::isfinite(cy) || std::fabs(cx) > 1e6 || std::fabs(cy) > 1e6)
        throw DeviceError(who + ": a quad off any screen: " + quads[0].dump());
    const double s = device_.scaleFactor();
    device_.move({int(std::lround(cx * s)), int(std::lround(cy * s))});
    device_.click(MouseButton::Left, 1);
}

void CdpAccessibility::setText(const A11yElement& element, const std::string& utf8) {
    decodeUtf8(utf8);  // throws std::invalid_argument before anything is done
    A11yElement e;
    const int64_t node = current(element, e);
    if (!e.editable_text)
        throw DeviceError(device_.peer() + ": " + e.role + " \"" + e.name + "\": its text is not editable");
    device_.call("DOM.focus", {{"backendNodeId", node}});
    device_.keyCombo({Key::named(KeyName::Control), Key::character(U'a')});
    if (utf8.empty()) device_.keyCombo({Key::named(KeyName::BackSpace)});
    else device_.call("Input.insertText", {{"text", utf8}});
}

namespace {

// Runs in the page on the element's DOM node: its text, and the selection in characters (code
// points; JavaScript counts UTF-16 units) where the node has one (-1 else).
constexpr const char* kReadTextFunction = R"JS(function () {
  const chars = (s) => Array.from(s).length;
  if (this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement) {
    const v = String(this.value);
    let start = -1, end = -1;
    try {
      if (typeof this.selectionStart === "number" && typeof this.selectionEnd === "number") {
        start = chars(v.slice(0, this.selectionStart));
        end = chars(v.slice(0, this.selectionEnd));
      }
    } catch (e) {}
    return { text: v, start: start, end: end };
  }
  return { text: String(this.innerText ?? this.textContent ?? ""), start: -1, end: -1 };
})JS";

}  // namespace

std::optional<A11yText> CdpAccessibility::readText(const A11yElement& element) {
    A11yElement e;
    const int64_t node = current(element, e, false);
    nlohmann::json r = device_.call("DOM.resolveNode", {{"backendNodeId", node}});
    const std::string who = device_.peer() + ": " + e.role + " \"" + e.name + "\"";
    const nlohmann::json* object = r.is_object() && r.contains("object") ? &r["object"] : nullptr;
    if (!object || !object->is_object() || !object->contains("objectId") || !(*object)["objectId"].is_string())
        throw DeviceError(who + ": DOM.resolveNode: expected an object with an objectId, got " + clipUtf8(r.dump(), 200));
    const std::string id = (*object)["objectId"].get<std::string>();
    nlohmann::json v;
    std::exception_ptr failed;
    try {
        v = device_.call("Runtime.callFunctionOn",
                         {{"objectId", id}, {"functionDeclaration", kReadTextFunction}, {"returnByValue", true}});
    } catch (...) {
        failed = std::current_exception();
    }
    try {
        device_.call("Runtime.releaseObject", {{"objectId", id}}, 2);
    } catch (const std::exception&) {
        // the page went on: the object goes with its context
    }
    if (failed) std::rethrow_exception(failed);
    const nlohmann::json* value = v.is_object() && v.contains("result") && v["result"].is_object() && v["result"].contains("value")
                                      ? &v["result"]["value"]
                                      : nullptr;
    if (!value || !value->is_object() || !value->contains("text") || !(*value)["text"].is_string())
        throw DeviceError(who + ": reading its text: expected {text, start, end}, got " + clipUtf8(v.dump(), 200));
    A11yText out;
    out.text = (*value)["text"].get<std::string>();
    auto number = [&](const char* k) {
        const auto it = value->find(k);
        return it != value->end() && it->is_number_integer() && it->get<int64_t>() >= 0 && it->get<int64_t>() < (1 << 30)
                   ? static_cast<int>(it->get<int64_t>())
                   : -1;
    };
    const int start = number("start"), end = number("end");
    if (start >= 0 && end >= start) {
        out.caret = end;
        if (end > start) {
            out.sel_start = start;
            out.sel_end = end;
        }
    }
    return out;
}

}  // namespace eacu
