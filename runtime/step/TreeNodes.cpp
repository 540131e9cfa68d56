#include "step/TreeNodes.h"

#include "step/A11yTarget.h"

namespace eacu {

std::vector<SomA11yNode> treeNodesOnScreen(Device& device, const Rect& screen, int pid) {
    A11yElement root;
    try {
        A11yScope scope;
        scope.pid = pid;
        root = device.accessibility().snapshot(scope);
    } catch (const DeviceError&) {
        return {};
    }
    return treeNodesOf(root, screen);
}

std::vector<SomA11yNode> treeNodesOf(const A11yElement& root, const Rect& screen) {
    std::vector<SomA11yNode> out;
    std::vector<const A11yElement*> all = flatten(root);
    for (const A11yElement* e : all) {
        if (!isInteractive(*e) || e->bounds.empty() || !e->has("showing")) continue;
        if (e->bounds.intersect(screen).empty()) continue;
        // An entry without a name of its own is known by the label beside it.
        std::string name = e->name.empty() && e->editable_text ? labelOf(*e, all) : e->name;
        out.push_back({e->role, name, e->bounds});
    }
    return out;
}

}  // namespace eacu
