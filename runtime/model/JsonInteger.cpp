#include "model/JsonInteger.h"

namespace eacu::model {

std::optional<int64_t> jsonInteger(const nlohmann::json& v, int64_t lo, int64_t hi) {
    if (v.is_number_unsigned()) {
        uint64_t u = v.get<uint64_t>();
        if (hi < 0 || u > uint64_t(hi)) return std::nullopt;
        int64_t i = int64_t(u);
        return i >= lo ? std::optional<int64_t>(i) : std::nullopt;
    }
    if (v.is_number_integer()) {
        int64_t i = v.get<int64_t>();
        return i >= lo && i <= hi ? std::optional<int64_t>(i) : std::nullopt;
    }
    return std::nullopt;
}

}  // namespace eacu::model
