#include "model/Action.h"

#include <climits>
#include <cmath>
#include <set>

#include "model/JsonInteger.h"

namespace eacu::model {

using json = nlohmann::json;

namespace {

struct Spec {
    ActionType type;
    const char* name;
    std::set<std::string> fields;  // besides "action" and "thought"
};

const std::vector<Spec>& specs() {
    static const std::vector<Spec> s = {
        {ActionType::Click, "click", {"element_id", "coordinate", "x", "y"}},
        {ActionType::DoubleClick, "double_click", {"element_id", "coordinate", "x", "y"}},
        {ActionType::RightClick, "right_click", {"element_id", "coordinate", "x", "y"}},
        {ActionType::Type, "type", {"element_id", "coordinate", "x", "y", "text"}},
        {ActionType::Hotkey, "hotkey", {"keys"}},
        {ActionType::Press, "press", {"key"}},
        {ActionType::Scroll, "scroll", {"element_id", "coordinate", "x", "y", "direction", "amount"}},
        {ActionType::Wait, "wait", {"seconds"}},
        {ActionType::Done, "done", {"text"}},
        {ActionType::Fail, "fail", {"text", "reason"}},
        {ActionType::NeedsUser, "needs_user", {"text", "reason"}},
    };
    return s;
}

std::string typeName(const json& v) {
    switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "a boolean";
    case json::value_t::string: return "a string";
    case json::value_t::array: return "an array";
    case json::value_t::object: return "an object";
    case json::value_t::number_float: return "a number (" + v.dump() + ")";
    default: return "an integer (" + v.dump() + ")";
    }
}

}  // namespace

const char* actionName(ActionType t) {
    for (const auto& s : specs())
        if (s.type == t) return s.name;
    return "?";
}

ActionParseError::ActionParseError(const std::string& why, std::string raw)
    : std::runtime_error("model answer is not a valid action: " + why + "; raw answer: " +
                         (raw.size() > 500 ? raw.substr(0, 500) + "..." : raw)),
      raw_(std::move(raw)) {}

std::string stripCodeFence(const std::string& text) {
    auto trim = [](const std::string& s) {
        size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
        return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
    };
    std::string t = trim(text);
    if (t.rfind("```", 0) != 0 || t.size() < 6 || t.compare(t.size() - 3, 3, "```") != 0) return t;
    size_t nl = t.find('\n');
    if (nl == std::string::npos || nl > t.size() - 3) return t;
    std::string lang = trim(t.substr(3, nl - 3));
    if (!lang.empty() && lang != "json" && lang != "JSON") return t;
    std::string inner = t.substr(nl + 1, t.size() - 3 - (nl + 1));
    if (inner.find("```") != std::string::npos) return t;  // more than one block
    return trim(inner);
}

Action parseAction(const std::string& raw, const ActionContext& ctx) {
    auto fail = [&](const std::string& why) -> ActionParseError { return ActionParseError(why, raw); };
    std::string body = stripCodeFence(raw);
    json j = json::parse(body, nullptr, false);
    if (j.is_discarded()) throw fail("expected one JSON object, got text that is not JSON");
    if (!j.is_object()) throw fail("expected one JSON object, got " + typeName(j));
    if (!j.contains("action") || !j["action"].is_string())
        throw fail(std::string("expected a string field \"action\", got ") +
                   (j.contains("action") ? typeName(j["action"]) : "none"));
    std::string name = j["action"].get<std::string>();
    const Spec* spec = nullptr;
    std::string known;
    for (const auto& s : specs()) {
        if (name == s.name) spec = &s;
        known += (known.empty() ? "" : "|") + std::string(s.name);
    }
    if (!spec) throw fail("expected action " + known + ", got \"" + name + "\"");
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() == "action" || it.key() == "thought") continue;
        if (!spec->fields.count(it.key())) {
            std::string allowed = "thought";
            for (const auto& f : spec->fields) allowed += ", " + f;
            throw fail("unexpected field \"" + it.key() + "\" for action " + name + " (allowed: " + allowed + ")");
        }
    }
    Action a;
    a.type = spec->type;
    a.raw = raw;
    if (j.contains("thought")) {
        if (!j["thought"].is_string()) throw fail("expected \"thought\" to be a string, got " + typeName(j["thought"]));
        a.thought = j["thought"];
    }
    auto str = [&](const char* k, bool required) -> std::string {
        if (!j.contains(k)) {
            if (required) throw fail(std::string("action ") + name + " needs a string field \"" + k + "\"");
            return "";
        }
        if (!j[k].is_string()) throw fail(std::string("expected \"") + k + "\" to be a string, got " + typeName(j[k]));
        return j[k].get<std::string>();
    };
    auto checkInside = [&](Point p, const std::string& what) {
        if (ctx.screen.w > 0 && (p.x < 0 || p.y < 0 || p.x >= ctx.screen.w || p.y >= ctx.screen.h))
            throw fail(what + " (" + std::to_string(p.x) + "," + std::to_string(p.y) +
                       ") is outside the screen " + std::to_string(ctx.screen.w) + "x" + std::to_string(ctx.screen.h));
    };

    // Target: element_id or coordinate.
    bool has_coord = j.contains("coordinate") || j.contains("x") || j.contains("y");
    if (j.contains("element_id")) {
        const json& e = j["element_id"];
        if (!e.is_number_integer()) throw fail("expected \"element_id\" to be an integer, got " + typeName(e));
        std::optional<int64_t> in_range = jsonInteger(e, INT_MIN, INT_MAX);
        int id = in_range ? int(*in_range) : INT_MIN;
        auto it = in_range ? ctx.elements.find(id) : ctx.elements.end();
        if (it == ctx.elements.end()) {
            std::string range = ctx.elements.empty() ? "the list is empty"
                                                     : "IDs " + std::to_string(ctx.elements.begin()->first) + ".." +
                                                           std::to_string(ctx.elements.rbegin()->first);
            throw fail("element_id " + e.dump() + " is not in the element list (" + range + ")");
        }
        if (has_coord) throw fail("expected element_id or a coordinate, got both");
        a.element_id = id;
        a.box = it->second;
        a.point = it->second.center();
        checkInside(*a.point, "element " + std::to_string(id) + "'s centre");
    } else if (has_coord) {
        if (ctx.coords == CoordSpace::None)
            throw fail("expected an element_id (coordinates are not accepted here), got a coordinate");
        double x, y;
        if (j.contains("coordinate")) {
            const json& c = j["coordinate"];
            if (!c.is_array() || c.size() != 2 || !c[0].is_number() || !c[1].is_number())
                throw fail("expected \"coordinate\" to be [x, y] numbers, got " + c.dump());
            if (j.contains("x") || j.contains("y")) throw fail("expected \"coordinate\" or \"x\"/\"y\", got both");
            x = c[0].get<double>();
            y = c[1].get<double>();
        } else {
            if (!j.contains("x") || !j.contains("y") || !j["x"].is_number() || !j["y"].is_number())
                throw fail("expected numbers \"x\" and \"y\"");
            x = j["x"].get<double>();
            y = j["y"].get<double>();
        }
        if (!std::isfinite(x) || !std::isfinite(y)) throw fail("expected finite coordinates");
        try {
            ModelImageTransform t = ctx.transform.value_or(ModelImageTransform{ctx.screen, ctx.screen});
            t.physical = ctx.screen.w > 0 ? ctx.screen : t.physical;
            Point p;
            switch (ctx.coords) {
            case CoordSpace::Physical: p = {int(std::lround(x)), int(std::lround(y))}; break;
            case CoordSpace::ModelImage:
                if (!ctx.transform) throw fail("model-image coordinates need the image transform");
                p = ctx.transform->imageToPhysical(x, y);
                break;
            case CoordSpace::Fraction: p = t.fractionToPhysical(x, y); break;
            case CoordSpace::PerMille: p = t.permilleToPhysical(x, y); break;
            case CoordSpace::None: break;
            }
            a.point = p;
        } catch (const std::out_of_range& e) {
            throw fail(std::string("coordinate out of bounds: ") + e.what());
        }
        checkInside(*a.point, "coordinate");
    }

    switch (a.type) {
    case ActionType::Click:
    case ActionType::DoubleClick:
    case ActionType::RightClick:
        if (!a.point) throw fail("action " + name + " needs an element_id");
        break;
    case ActionType::Type:
        a.text = str("text", true);
        break;
    case ActionType::Hotkey: {
        if (!j.contains("keys")) throw fail("action hotkey needs \"keys\", e.g. [\"ctrl\", \"s\"]");
        const json& k = j["keys"];
        if (k.is_string()) {
            std::string s = k.get<std::string>(), cur;
            for (char ch : s + "+") {
                if (ch == '+') {
                    if (cur.empty() && s != "+") throw fail("expected \"keys\" like \"ctrl+s\", got \"" + s + "\"");
                    a.keys.push_back(cur.empty() ? "+" : cur);
                    cur.clear();
                } else if (ch != ' ') cur += ch;
            }
        } else if (k.is_array() && !k.empty()) {
            for (const auto& x : k) {
                if (!x.is_string() || x.get<std::string>().empty())
                    throw fail("expected \"keys\" to be non-empty strings, got " + k.dump());
                a.keys.push_back(x.get<std::string>());
            }
        } else {
            throw fail("expected \"keys\" to be a non-empty array of strings, got " + typeName(k));
        }
        break;
    }
    case ActionType::Press:
        a.key = str("key", true);
        if (a.key.empty()) throw fail("expected a non-empty \"key\"");
        break;
    case ActionType::Scroll: {
        a.direction = str("direction", true);
        if (a.direction != "up" && a.direction != "down" && a.direction != "left" && a.direction != "right")
            throw fail("expected \"direction\" up|down|left|right, got \"" + a.direction + "\"");
        if (j.contains("amount")) {
            if (!j["amount"].is_number_integer()) throw fail("expected \"amount\" to be an integer, got " + typeName(j["amount"]));
            std::optional<int64_t> amount = jsonInteger(j["amount"], 1, 50);
            if (!amount) throw fail("expected \"amount\" in 1..50, got " + j["amount"].dump());
            a.amount = int(*amount);
        }
        break;
    }
    case ActionType::Wait:
        if (j.contains("seconds")) {
            if (!j["seconds"].is_number()) throw fail("expected \"seconds\" to be a number, got " + typeName(j["seconds"]));
            a.seconds = j["seconds"].get<double>();
            if (!(a.seconds >= 0 && a.seconds <= 60)) throw fail("expected \"seconds\" in 0..60, got " + j["seconds"].dump());
        }
        break;
    case ActionType::Done:
        a.text = str("text", false);
        break;
    case ActionType::Fail:
    case ActionType::NeedsUser:
        a.text = str("text", false);
        if (a.text.empty()) a.text = str("reason", false);
        break;
    }
    return a;
}

json Action::toJson() const {
    json j = {{"action", actionName(type)}};
    if (!thought.empty()) j["thought"] = thought;
    if (element_id) j["element_id"] = *element_id;
    if (box) j["box"] = {box->x, box->y, box->w, box->h};
    if (point) {
        j["x"] = point->x;
        j["y"] = point->y;
    }
    if (!text.empty()) j["text"] = text;
    if (!keys.empty()) j["keys"] = keys;
    if (!key.empty()) j["key"] = key;
    if (type == ActionType::Scroll) {
        j["direction"] = direction;
        j["amount"] = amount;
    }
    if (type == ActionType::Wait) j["seconds"] = seconds;
    return j;
}

}  // namespace eacu::model
