#include "model/ClickCheck.h"

#include <cmath>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "base/Utf8.h"
#include "model/Action.h"
#include "model/JsonInteger.h"

namespace eacu::model {

using json = nlohmann::json;

const std::string& clickCheckSystemPrompt() {
    static const std::string p =
        "You check a mouse pointer before a click on a Linux (X11) desktop. The screenshot marks the "
        "pointer with a red circle, an arrow and the label 鼠标指针; its position is also given as a field. "
        "Say whether a click now would hit the target. Answer with exactly one JSON object and nothing "
        "else: {\"on_target\": true, \"dx\": 0, \"dy\": 0} when it would, else {\"on_target\": false, "
        "\"dx\": DX, \"dy\": DY} with the move in screenshot pixels (x right, y down) that puts the "
        "pointer on the target.";
    return p;
}

std::string clickCheckPrompt(const ClickCheckQuestion& q) {
    std::string box;
    if (q.box)
        box = ", box x1=" + std::to_string(q.box->x) + ", y1=" + std::to_string(q.box->y) +
              ", x2=" + std::to_string(q.box->x + q.box->w) + ", y2=" + std::to_string(q.box->y + q.box->h);
    return "# Click check\nTask: " + q.task + "\nIntent: " + (q.intent.empty() ? "(none given)" : q.intent) +
           "\nTarget: " + (q.label.empty() ? "(unnamed)" : q.label) + " at x=" + std::to_string(q.target.x) +
           ", y=" + std::to_string(q.target.y) + box + "\nPointer: x=" + std::to_string(q.pointer.x) +
           ", y=" + std::to_string(q.pointer.y) +
           "\nAll in the screenshot's pixels. Is the pointer on the target? Answer "
           "{\"on_target\": bool, \"dx\": int, \"dy\": int}.";
}

namespace {

int integerField(const json& j, const char* key, const std::string& text) {
    const json& v = j.at(key);
    if (v.is_number_integer()) {  // signed or unsigned; pixels: within a million either way
        if (auto i = jsonInteger(v, -999999, 999999)) return int(*i);
    }
    if (v.is_number_float()) {
        double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 1e6) return int(d);
    }
    throw std::runtime_error(std::string("click check: expected \"") + key + "\" to be an integer (pixels), got " +
                             v.dump() + " in " + clipUtf8(text, 300));
}

}  // namespace

ClickCheckAnswer parseClickCheck(const std::string& text) {
    const std::string expected = "click check: expected one JSON object {\"on_target\": bool, \"dx\": int, \"dy\": int}";
    json j = json::parse(stripCodeFence(text), nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw std::runtime_error(expected + ", got: " + clipUtf8(text, 300));
    for (const char* key : {"on_target", "dx", "dy"})
        if (!j.contains(key))
            throw std::runtime_error(expected + ", got one without \"" + key + "\": " + clipUtf8(text, 300));
    if (!j["on_target"].is_boolean())
        throw std::runtime_error("click check: expected \"on_target\" to be true or false, got " +
                                 j["on_target"].dump() + " in " + clipUtf8(text, 300));
    ClickCheckAnswer a;
    a.on_target = j["on_target"].get<bool>();
    a.dx = integerField(j, "dx", text);
    a.dy = integerField(j, "dy", text);
    return a;
}

}  // namespace eacu::model
