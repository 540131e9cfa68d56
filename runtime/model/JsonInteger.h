// Integers read from JSON that a model or provider wrote: no value can overflow a conversion.
#pragma once
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace eacu::model {

/// The integer `v` holds when it is a JSON integer (signed or unsigned) in [lo, hi]; nullopt
/// for anything else (a fraction or float, a number out of range, not a number). nlohmann's
/// get<int>() would wrap 4294967297 to 1, and a float too large for the type is undefined
/// behaviour; this never converts outside the range.
std::optional<int64_t> jsonInteger(const nlohmann::json& v, int64_t lo, int64_t hi);

}  // namespace eacu::model
