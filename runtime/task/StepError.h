// The error a failed step raises.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace eacu {

/// A step that failed: the message says what was sought, the best score and where, the
/// threshold, and the frame id in the run log that shows the screen (`frame_id`, 0 if none).
struct StepError : std::runtime_error {
    StepError(const std::string& msg, int64_t step, int64_t frame)
        : std::runtime_error(msg), step_id(step), frame_id(frame) {}
    int64_t step_id;
    int64_t frame_id;
};

}  // namespace eacu
