// Reading JSON that a device's far end sent (Chromium's DevTools, the device agent): it may hold
// anything, so a field of the wrong type is the far end's error (DeviceError), never a
// nlohmann::json::type_error escaping into the step (or ending a transport's thread).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace eacu {

/// The field `key` of `obj` as a string; `fallback` when `obj` is not an object or has no such
/// field (or it is null). Throws DeviceError("<who>: field \"key\" should be a string, got 12")
/// for a field of another type.
std::string peerString(const nlohmann::json& obj, const char* key, const std::string& who,
                       const std::string& fallback = "");
/// The field `key` as an integer (a JSON integer, or a float with no fraction within range);
/// `fallback` as peerString. Throws DeviceError for another type or a number out of int64.
int64_t peerInt(const nlohmann::json& obj, const char* key, const std::string& who, int64_t fallback = 0);
/// The field `key` as a number; `fallback` as peerString. Throws DeviceError for another type.
double peerNumber(const nlohmann::json& obj, const char* key, const std::string& who, double fallback = 0);
/// The field `key` as a boolean; `fallback` as peerString. Throws DeviceError for another type.
bool peerBool(const nlohmann::json& obj, const char* key, const std::string& who, bool fallback = false);
/// The field `key` as an array of integers within int's range (each as peerInt would read it);
/// `fallback` as peerString. Throws DeviceError for another type or a number out of range.
std::vector<int> peerInts(const nlohmann::json& obj, const char* key, const std::string& who,
                          const std::vector<int>& fallback = {});
/// The field `key` as an array of strings; `fallback` as peerString. Throws DeviceError for
/// another type.
std::vector<std::string> peerStrings(const nlohmann::json& obj, const char* key, const std::string& who);
/// The field `key` as an array (empty when absent or null). Throws DeviceError for another type.
const nlohmann::json& peerArray(const nlohmann::json& obj, const char* key, const std::string& who);
/// The field `key` when it is an object (else a null JSON: reading fields of it gives the
/// fallbacks). Throws DeviceError when it is present and not an object.
const nlohmann::json& peerObject(const nlohmann::json& obj, const char* key, const std::string& who);

}  // namespace eacu
