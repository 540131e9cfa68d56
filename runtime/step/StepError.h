// The error a failed step raises: a code a program can act on, and a message a person reads.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "vision/Match.h"

namespace eacu {

/// Why a step failed. The names are what Lua sees in `err.code`.
namespace failure {
inline constexpr const char* kNotFound = "not_found";          // the target was not on screen in time
inline constexpr const char* kNoEffect = "no_effect";          // the input changed nothing
inline constexpr const char* kVerifyFailed = "verify_failed";  // the step's verify did not hold
inline constexpr const char* kLimit = "limit";                 // the run's action limit
inline constexpr const char* kTimeout = "timeout";             // the run's deadline (--max-time)
inline constexpr const char* kCancelled = "cancelled";         // stop, Ctrl-C, SIGTERM
inline constexpr const char* kBlocked = "blocked";             // a blocker could not be dismissed, or nobody can answer
inline constexpr const char* kRefused = "refused";             // a risky step was not confirmed
inline constexpr const char* kInvalid = "invalid";             // bad arguments (unknown key, no target)
inline constexpr const char* kCovered = "covered";             // another window covers a window-bound target
inline constexpr const char* kDevice = "device";               // the display refused or went away
inline constexpr const char* kModel = "model";                 // a model call failed or answered badly
inline constexpr const char* kFailed = "failed";               // anything else
}  // namespace failure

/// A step that failed.
/// - `code`: one of the failure:: names.
/// - `what()`: the message as printed (what was sought, the best score and where, the
///   threshold, the frame id in the run log).
/// - `target`: the target's label ("\"btn_1\"", "{x=10, y=20}"), "" when none.
/// - `best`: the best candidate seen, when the step looked for something.
/// - `step_id`, `frame_id`: run-log rows (0 when not recorded).
struct StepError : std::runtime_error {
    StepError(std::string failure_code, const std::string& msg, int64_t step = 0, int64_t frame = 0,
              std::string target_label = "", std::optional<Match> best_candidate = std::nullopt)
        : std::runtime_error(msg), code(std::move(failure_code)), target(std::move(target_label)),
          best(std::move(best_candidate)), step_id(step), frame_id(frame) {}
    std::string code;
    std::string target;
    std::optional<Match> best;
    int64_t step_id;
    int64_t frame_id;
};

}  // namespace eacu
