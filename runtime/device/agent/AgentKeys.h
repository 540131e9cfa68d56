// eacu's device-neutral keys as the agent protocol's "key" request fields: a Windows virtual
// key code for named keys, the code point for characters.
#pragma once
#include <nlohmann/json.hpp>

#include "device/Keys.h"

namespace eacu {

/// The fields of a "key" request for `key`: {"vk": N} (a named key's Windows virtual-key
/// code) or {"char": codepoint}. Throws std::invalid_argument for a platform key name (the
/// agent knows none: `unknown key "dead_acute" (the agent device takes named keys and
/// characters)`) and for a named key Windows has no code for.
nlohmann::json agentKeyFields(const Key& key);

}  // namespace eacu
