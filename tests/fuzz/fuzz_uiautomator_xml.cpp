// `uiautomator dump` XML from a hostile device (device/adb/UiautomatorXml.h), parsed with a
// scope whose limits come from the first byte (at most 1..64 elements, 1..16 levels).
// Invariants: only std::runtime_error escapes; every element's path leads from the root to it;
// no more elements than the limit (plus the root and one application per package); bounds are
// never negative in size, and their area and far corner fit an int.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "FuzzCommon.h"
#include "device/adb/UiautomatorXml.h"

using namespace eacu;

namespace {

// Checks `e` (reached from the root by `path`) and its children; returns the elements counted.
size_t check(const A11yElement& root, const A11yElement& e, const std::vector<int>& path) {
    if (e.bounds.w < 0 || e.bounds.h < 0) fuzz::broken("bounds of negative size");
    if (int64_t(e.bounds.w) * e.bounds.h > INT32_MAX || int64_t(e.bounds.x) + e.bounds.w > INT32_MAX ||
        int64_t(e.bounds.y) + e.bounds.h > INT32_MAX)
        fuzz::broken("bounds whose area or far corner overflows an int");
    const A11yElement* at = &root;
    for (int i : e.path) {
        if (i < 0 || static_cast<size_t>(i) >= at->children.size()) fuzz::broken("a path that leads nowhere");
        at = &at->children[static_cast<size_t>(i)];
    }
    if (at != &e || e.path != path) fuzz::broken("a path that leads to another element");
    size_t n = 1;
    for (size_t i = 0; i < e.children.size(); ++i) {
        std::vector<int> p = path;
        p.push_back(static_cast<int>(i));
        n += check(root, e.children[i], p);
    }
    return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1) return 0;
    A11yScope scope;
    scope.max_elements = 1 + (data[0] & 63);
    scope.max_depth = 1 + (data[0] >> 4);
    const std::string xml(reinterpret_cast<const char*>(data + 1), size - 1);
    try {
        const A11yElement root = parseUiautomatorXml(xml, scope);
        size_t apps = root.children.size(), n = 1;
        for (const A11yElement& app : root.children) n += check(root, app, app.path);
        // The top-level nodes of each package are not counted against the limit (one each).
        size_t top = 0;
        for (const A11yElement& app : root.children) top += app.children.size();
        if (n > 1 + apps + top + static_cast<size_t>(scope.max_elements)) fuzz::broken("more elements than the limit");
    } catch (const std::runtime_error&) {
    }
    return 0;
}
