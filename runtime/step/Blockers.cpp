#include "step/Blockers.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace eacu {

void checkBlockerKind(const std::string& kind) {
    static const std::set<std::string> kinds = {"popup", "dialog", "permission", "ad",
                                                "error", "loading", "keyboard", "unknown"};
    if (!kinds.count(kind))
        throw std::invalid_argument(
            "blocker kind: expected popup|dialog|permission|ad|error|loading|keyboard|unknown, got \"" + kind + "\"");
}

void BlockerSet::add(Blocker b) {
    if (b.name.empty()) throw std::invalid_argument("on_blocker: expected a blocker name, got an empty string");
    checkBlockerKind(b.kind);
    for (auto& x : list_)
        if (x.name == b.name) {
            x = std::move(b);
            return;
        }
    list_.push_back(std::move(b));
}

bool BlockerSet::remove(const std::string& name) {
    auto it = std::find_if(list_.begin(), list_.end(), [&](const Blocker& b) { return b.name == name; });
    if (it == list_.end()) return false;
    list_.erase(it);
    return true;
}

}  // namespace eacu
