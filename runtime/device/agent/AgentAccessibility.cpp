#include "device/agent/AgentAccessibility.h"

#include "device/PeerJson.h"

#include "base/Utf8.h"
#include "device/Device.h"
#include "device/agent/AgentConnection.h"

namespace eacu {

namespace {

const std::string kTreeWho = "agent tree";

A11yElement fromJson(const nlohmann::json& j, const std::string& app, int depth) {
    if (depth > 200) throw DeviceError("agent tree: deeper than 200 levels");
    A11yElement e;
    e.role = peerString(j, "role", kTreeWho, "");
    e.name = peerString(j, "name", kTreeWho, "");
    e.value = peerString(j, "value", kTreeWho, "");
    e.id = peerString(j, "id", kTreeWho, "");
    e.states = peerStrings(j, "states", kTreeWho);
    e.actions = peerStrings(j, "actions", kTreeWho);
    e.editable_text = peerBool(j, "editable", kTreeWho, false);
    e.path = peerInts(j, "path", kTreeWho, std::vector<int>{});
    e.pid = int(peerInt(j, "pid", kTreeWho, 0));
    e.app = e.role == "application" ? e.name : app;
    auto b = peerInts(j, "bounds", kTreeWho, std::vector<int>{});
    if (b.size() == 4) e.bounds = Rect{b[0], b[1], b[2], b[3]};
    for (const auto& c : peerArray(j, "children", kTreeWho)) e.children.push_back(fromJson(c, e.app, depth + 1));
    return e;
}

nlohmann::json elementRequest(const A11yElement& e, const char* action) {
    // [pid, window] (MSAA, or a top-level window under UI Automation), then child indices.
    if (e.path.size() < 2)
        throw DeviceError("agent tree: element " + e.role + " \"" + e.name + "\" has no path [pid, window, ...] "
                          "(an application or the desktop takes no action)");
    return {{"op", "element"}, {"path", e.path}, {"role", e.role}, {"name", e.name}, {"action", action}};
}

}  // namespace

A11yElement AgentAccessibility::snapshot(const A11yScope& scope) {
    auto r = conn_.call({{"op", "tree"}, {"pid", scope.pid}, {"max_elements", scope.max_elements},
                         {"max_depth", scope.max_depth}},
                        {}, 20);
    const nlohmann::json& tree = peerObject(r.header, "tree", kTreeWho);
    if (tree.is_null()) throw DeviceError("agent " + conn_.address() + ": tree: the answer has no \"tree\"");
    A11yElement root = fromJson(tree, "", 0);
    if (peerBool(tree, "truncated", kTreeWho, false)) root.states.push_back("truncated");
    return root;
}

void AgentAccessibility::doAction(const A11yElement& element, const std::string& action) {
    bool has = false;
    for (const auto& a : element.actions) has = has || a == action;
    if (!has) {
        std::string list;
        for (const auto& a : element.actions) list += (list.empty() ? "" : ", ") + a;
        throw DeviceError(element.role + " \"" + element.name + "\" has no action \"" + action + "\" (it has: " +
                          (list.empty() ? "none" : list) + ")");
    }
    conn_.call(elementRequest(element, action.c_str()));
}

void AgentAccessibility::setText(const A11yElement& element, const std::string& utf8) {
    decodeUtf8(utf8);
    conn_.call(elementRequest(element, "set_text"), utf8);
}

}  // namespace eacu
