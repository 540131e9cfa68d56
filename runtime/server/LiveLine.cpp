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
            {"marked", f.marked},
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
    // A worker's numbers may be anything: a cursor off any screen (or not a number) is dropped.
    auto pixel = [](const nlohmann::json& v, int& out) {
        if (!v.is_number()) return false;
        double d = v.get<double>();
        if (!(d > -1e6 && d < 1e6)) return false;
        out = int(d);
        return true;
    };
    if (m.contains("cursor") && m["cursor"].is_array() && m["cursor"].size() == 2) {
        int x = 0, y = 0;
        if (pixel(m["cursor"][0], x) && pixel(m["cursor"][1], y)) {
            f.cursor_x = x;
            f.cursor_y = y;
        }
    }
    f.time = m.contains("time") && m["time"].is_number() ? m["time"].get<double>() : 0.0;
    f.marked = !(m.contains("marked") && m["marked"].is_boolean()) || m["marked"].get<bool>();
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
