// The provider-neutral request and response of one model call.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace eacu::model {

/// One content block of a message.
/// - kind Text: `text`.
/// - kind Image: `data` is the encoded image (PNG/JPEG bytes, not base64), `media_type`
///   "image/png" | "image/jpeg"; `frame_id` the run-log frame it shows (0 = none), used by the
///   redacted copy of the request.
/// - kind ToolUse (assistant): a tool call `tool_id`, `tool_name`, `tool_input` (JSON object).
/// - kind ToolResult (user): answer to `tool_id`: `text` and/or an image in `data`,
///   `is_error`.
struct Part {
    enum class Kind { Text, Image, ToolUse, ToolResult };
    Kind kind = Kind::Text;
    std::string text;
    std::string data;
    std::string media_type = "image/png";
    int64_t frame_id = 0;
    std::string tool_id, tool_name;
    nlohmann::json tool_input = nlohmann::json::object();
    bool is_error = false;
    /// Anthropic prompt caching: put cache_control {"type":"ephemeral"} on this block.
    bool cache = false;

    static Part textPart(std::string t) { Part p; p.text = std::move(t); return p; }
    static Part image(std::string bytes, std::string media = "image/png", int64_t frame = 0) {
        Part p; p.kind = Kind::Image; p.data = std::move(bytes); p.media_type = std::move(media);
        p.frame_id = frame; return p;
    }
    static Part toolUse(std::string id, std::string name, nlohmann::json input) {
        Part p; p.kind = Kind::ToolUse; p.tool_id = std::move(id); p.tool_name = std::move(name);
        p.tool_input = std::move(input); return p;
    }
    static Part toolResult(std::string id, std::string text, bool error = false) {
        Part p; p.kind = Kind::ToolResult; p.tool_id = std::move(id); p.text = std::move(text);
        p.is_error = error; return p;
    }
};

/// One message: role "user" | "assistant".
struct Message {
    std::string role = "user";
    std::vector<Part> parts;

    static Message user(std::vector<Part> p) { return {"user", std::move(p)}; }
    static Message user(std::string text) { return {"user", {Part::textPart(std::move(text))}}; }
    static Message assistant(std::string text) { return {"assistant", {Part::textPart(std::move(text))}}; }
};

/// A function tool the model may call: `name`, `description`, `input_schema` (JSON Schema).
struct ToolSpec {
    std::string name;
    std::string description;
    nlohmann::json input_schema = {{"type", "object"}, {"properties", nlohmann::json::object()}};
};

/// Anthropic's schema-less `computer` tool. `version` is "computer_20250124" (beta header
/// computer-use-2025-01-24) or "computer_20251124" (computer-use-2025-11-24, adds
/// enable_zoom); display size in model-image pixels (the image the model is shown).
struct ComputerTool {
    std::string version = "computer_20250124";
    int display_width_px = 1024;
    int display_height_px = 768;
    std::optional<int> display_number;
    bool enable_zoom = false;  // only sent for computer_20251124
};

/// Beta header value for a computer tool version (source: claude-quickstarts
/// computer-use-demo tools/groups.py). Throws std::invalid_argument for an unknown version.
std::string computerBetaFlag(const std::string& version);

/// A provider-neutral request.
/// - `system`: system prompt (empty = none). `cache_system`: Anthropic cache_control on it.
/// - `max_tokens`: output limit; `temperature` unset = provider default.
/// - `json_mode`: OpenAI response_format {"type":"json_object"} (ignored by Anthropic).
struct Request {
    std::string system;
    bool cache_system = false;
    std::vector<Message> messages;
    std::vector<ToolSpec> tools;
    std::optional<ComputerTool> computer;
    int max_tokens = 1024;
    std::optional<double> temperature;
    bool json_mode = false;
    /// Extra beta flags (Anthropic `anthropic-beta`), besides the computer tool's.
    std::vector<std::string> betas;
};

/// A tool call in an answer: `id`, `name`, `input` (JSON object; arguments parsed).
struct ToolCall {
    std::string id;
    std::string name;
    nlohmann::json input = nlohmann::json::object();
};

/// Token counts as the provider reported them (0 when absent).
struct Usage {
    int64_t input_tokens = 0;
    int64_t output_tokens = 0;
    int64_t cache_read_tokens = 0;
    int64_t cache_creation_tokens = 0;
};

/// A provider-neutral answer.
/// - `text`: all text blocks concatenated. `tool_calls`: tool_use blocks / tool_calls.
/// - `stop_reason`: Anthropic stop_reason or OpenAI finish_reason, as given.
/// - `latency_s`: seconds from the first attempt's start to the answer, retries included.
/// - `attempts`: HTTP attempts made on the provider that answered.
/// - `raw`: the provider's JSON body. `provider`/`model`: who answered (after fallback).
/// - `from_cache`: replayed from the response cache, no network.
struct Response {
    std::string text;
    std::vector<ToolCall> tool_calls;
    std::string stop_reason;
    Usage usage;
    double latency_s = 0;
    int attempts = 0;
    int http_status = 0;
    std::string provider;
    std::string model;
    nlohmann::json raw;
    bool from_cache = false;
};

/// A model call that failed: the message names provider, HTTP status (0 = no HTTP answer) and
/// the provider's error message; never an API key. `retryable()` for 429/5xx/transport errors.
class ModelError : public std::runtime_error {
public:
    ModelError(std::string provider, int status, const std::string& message, bool retryable_ = false,
               bool cancelled_ = false)
        : std::runtime_error(message), provider_(std::move(provider)), status_(status),
          retryable__(retryable_), cancelled__(cancelled_) {}
    const std::string& provider() const { return provider_; }
    int status() const { return status_; }
    bool retryable() const { return retryable__; }
    bool cancelled() const { return cancelled__; }

private:
    std::string provider_;
    int status_;
    bool retryable__;
    bool cancelled__;
};

}  // namespace eacu::model
