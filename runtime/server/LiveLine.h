// A live frame as a line of the serve protocol (docs/serve-protocol.md §5.1): how a run whose
// device is not an X display sends its own live screen to the worker that started it.
#pragma once
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

#include "server/ServiceStore.h"

namespace eacu::server {

/// {"type":"live","width":W,"height":H,"cursor":[x,y],"time":UNIX_S,"jpeg":BASE64}: physical
/// pixels of the device's frame, the pointer already marked in the JPEG.
nlohmann::json liveLine(const LiveFrame& frame);

/// The frame of a live line for task `task_id`; nullopt when it lacks a JPEG or a size (such a
/// line is dropped: a live frame is never worth failing a task for).
std::optional<LiveFrame> liveFrameOfLine(int64_t task_id, const nlohmann::json& line);

}  // namespace eacu::server
