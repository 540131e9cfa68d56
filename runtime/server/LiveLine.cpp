#include "server/LiveLine.h"

#include <stdexcept>

#include "base/Base64.h"

namespace eacu::server {

nlohmann::json liveLine(const LiveFrame& f) {
    return {{"type", "live"},
            {"width", f.width},
            {"height", f.height},
            {"cursor", {f.cursor_x, f.cursor_y}},
            {"time", f.time},
            {"jpeg", f.jpeg_base64}};
}

std::optional<LiveFrame> liveFrameOfLine(int64_t task_id, const nlohmann::json& m) {
    if (!m.contains("jpeg") || !m["jpeg"].is_string() || !m.contains("width") || !m["width"].is_number_integer() ||
        !m.contains("height") || !m["height"].is_number_integer())
        return std::nullopt;
    LiveFrame f;
    f.task_id = task_id;
    f.width = m["width"].get<int>();
    f.height = m["height"].get<int>();
    if (m.contains("cursor") && m["cursor"].is_array() && m["cursor"].size() == 2 && m["cursor"][0].is_number() &&
        m["cursor"][1].is_number()) {
        f.cursor_x = m["cursor"][0].get<int>();
        f.cursor_y = m["cursor"][1].get<int>();
    }
    f.time = m.value("time", 0.0);
    f.jpeg_base64 = m["jpeg"].get<std::string>();
    std::string bytes;
    try {
        bytes = base64Decode(f.jpeg_base64);
    } catch (const std::invalid_argument&) {
        return std::nullopt;
    }
    if (bytes.empty()) return std::nullopt;
    f.jpeg.assign(bytes.begin(), bytes.end());
    return f;
}

}  // namespace eacu::server
