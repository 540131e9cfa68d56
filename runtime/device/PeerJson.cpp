#include "device/PeerJson.h"

#include <cmath>

#include "device/Device.h"

namespace eacu {

namespace {

const nlohmann::json* field(const nlohmann::json& obj, const char* key) {
    if (!obj.is_object()) return nullptr;
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return nullptr;
    return &*it;
}

[[noreturn]] void wrongType(const nlohmann::json& v, const char* key, const std::string& who, const char* expected) {
    std::string got = v.dump();
    if (got.size() > 60) got = got.substr(0, 57) + "...";
    throw DeviceError(who + ": field \"" + key + "\" should be " + expected + ", got " + got);
}

int64_t asInt(const nlohmann::json& v, const char* key, const std::string& who) {
    if (v.is_number_integer()) {
        if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX)) wrongType(v, key, who, "an integer");
        return v.get<int64_t>();
    }
    if (v.is_number_float()) {
        double d = v.get<double>();
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2e18) return int64_t(d);
    }
    wrongType(v, key, who, "an integer");
}

}  // namespace

std::string peerString(const nlohmann::json& obj, const char* key, const std::string& who, const std::string& fallback) {
    const auto* v = field(obj, key);
    if (!v) return fallback;
    if (!v->is_string()) wrongType(*v, key, who, "a string");
    return v->get<std::string>();
}

int64_t peerInt(const nlohmann::json& obj, const char* key, const std::string& who, int64_t fallback) {
    const auto* v = field(obj, key);
    return v ? asInt(*v, key, who) : fallback;
}

double peerNumber(const nlohmann::json& obj, const char* key, const std::string& who, double fallback) {
    const auto* v = field(obj, key);
    if (!v) return fallback;
    if (!v->is_number()) wrongType(*v, key, who, "a number");
    return v->get<double>();
}

bool peerBool(const nlohmann::json& obj, const char* key, const std::string& who, bool fallback) {
    const auto* v = field(obj, key);
    if (!v) return fallback;
    if (!v->is_boolean()) wrongType(*v, key, who, "true or false");
    return v->get<bool>();
}

std::vector<int> peerInts(const nlohmann::json& obj, const char* key, const std::string& who,
                          const std::vector<int>& fallback) {
    const auto* v = field(obj, key);
    if (!v) return fallback;
    if (!v->is_array()) wrongType(*v, key, who, "an array of integers");
    std::vector<int> out;
    for (const auto& e : *v) {
        int64_t i = asInt(e, key, who);
        if (i < INT32_MIN || i > INT32_MAX) wrongType(e, key, who, "an array of 32-bit integers");
        out.push_back(int(i));
    }
    return out;
}

std::vector<std::string> peerStrings(const nlohmann::json& obj, const char* key, const std::string& who) {
    std::vector<std::string> out;
    for (const auto& e : peerArray(obj, key, who)) {
        if (!e.is_string()) wrongType(e, key, who, "an array of strings");
        out.push_back(e.get<std::string>());
    }
    return out;
}

const nlohmann::json& peerArray(const nlohmann::json& obj, const char* key, const std::string& who) {
    static const nlohmann::json kEmpty = nlohmann::json::array();
    const auto* v = field(obj, key);
    if (!v) return kEmpty;
    if (!v->is_array()) wrongType(*v, key, who, "an array");
    return *v;
}

const nlohmann::json& peerObject(const nlohmann::json& obj, const char* key, const std::string& who) {
    static const nlohmann::json kNull;
    const auto* v = field(obj, key);
    if (!v) return kNull;
    if (!v->is_object()) wrongType(*v, key, who, "an object");
    return *v;
}

}  // namespace eacu
