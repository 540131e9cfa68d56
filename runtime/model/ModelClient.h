// Model clients: the interface, provider settings and the factories. One file per client:
// AnthropicClient (Messages API), OpenAIClient (chat completions), FallbackClient (a chain).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/Http.h"
#include "model/ModelTypes.h"

namespace eacu::model {

/// One provider's settings.
/// - `provider`: "anthropic" | "openai".
/// - `base_url` as the providers' SDKs take it: "https://api.anthropic.com" (the client adds
///   "/v1/messages") or "https://host/v1" (the client adds "/chat/completions"). Empty = the
///   provider's public default. A trailing '/' is ignored.
/// - `api_key`: sent as `x-api-key` (Anthropic) or `Authorization: Bearer` (OpenAI; omitted
///   when empty, for a local vLLM). Never logged, never in an error.
/// - `http`: timeouts, retries, cancellation.
struct ProviderConfig {
    std::string provider;
    std::string model;
    std::string base_url;
    std::string api_key;
    HttpOptions http;
    std::string anthropic_version = "2023-06-01";

    /// The full endpoint URL: base_url + "/v1/messages" or + "/chat/completions".
    std::string endpoint() const;
    /// "provider model" for messages, e.g. "anthropic claude-sonnet-4-5".
    std::string label() const;
};

/// Reads a provider from the environment with variable prefix `prefix` (e.g. "EACU_MODEL" or
/// "EACU_MODEL_FALLBACK"): <prefix>_PROVIDER (anthropic|openai), <prefix> itself for the model
/// name when prefix is "EACU_MODEL", else <prefix>_MODEL; <prefix>_BASE_URL, <prefix>_API_KEY
/// (falling back to ANTHROPIC_API_KEY / OPENAI_API_KEY), <prefix>_TIMEOUT (seconds),
/// <prefix>_MAX_RETRIES. Returns nullopt when <prefix>_PROVIDER is unset or empty.
/// Throws std::invalid_argument for an unknown provider, a missing model or a bad number.
/// `getenv` is injectable for tests.
std::optional<ProviderConfig> providerFromEnv(
    const std::string& prefix, const std::function<const char*(const char*)>& getenv = nullptr);

/// A model endpoint.
class ModelClient {
public:
    virtual ~ModelClient() = default;
    /// Sends `req` and returns the answer. Throws ModelError naming the provider, the HTTP
    /// status and the body's error message (never the key) when the call fails after its
    /// retries, when the body is not the expected JSON, or when cancelled.
    virtual Response complete(const Request& req) = 0;
    /// The JSON body this client would send (images as base64); for tests and the run log.
    virtual nlohmann::json buildBody(const Request& req) const = 0;
    /// Request JSON for the run log: {"provider","model","url","body"} with every image
    /// replaced by {"frame_id","media_type","bytes"} and no key or auth header.
    virtual nlohmann::json redactedRequest(const Request& req) const = 0;
    virtual std::string provider() const = 0;
    virtual std::string model() const = 0;
};

/// A client for one provider config. Throws std::invalid_argument for an unknown provider.
std::unique_ptr<ModelClient> makeClient(const ProviderConfig& cfg);

/// The client configured by EACU_MODEL_* and, when EACU_MODEL_FALLBACK_PROVIDER is set, the
/// fallback behind it (a FallbackClient). Returns nullptr when EACU_MODEL_PROVIDER is unset.
std::unique_ptr<ModelClient> makeClientFromEnv(const std::function<const char*(const char*)>& getenv = nullptr);

/// Anthropic prompt caching as the computer-use demo's `_inject_prompt_caching`: clears every
/// `cache` flag, then sets it on the last block of the `n` most recent user turns, and sets
/// `cache_system`. (Anthropic allows 4 breakpoints: the system prompt + 3 turns.)
void markPromptCache(Request& req, int n = 3);

/// The error message inside a provider's error body: Anthropic {"error":{"type","message"}},
/// OpenAI {"error":{"message"}} (or {"error":"..."}, {"message":"..."}, {"detail":"..."});
/// else the body's first 300 bytes. With the error type when there is one ("type: message").
std::string errorMessageFromBody(const std::string& body);

}  // namespace eacu::model
