// Model clients: the Anthropic Messages API, any OpenAI-compatible chat-completions endpoint,
// and a fallback chain (seed 000's LLMRouter: the first fails, the next answers).
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

/// Anthropic Messages API (POST {base}/v1/messages; headers x-api-key, anthropic-version,
/// anthropic-beta for the computer tool and `req.betas`).
class AnthropicClient : public ModelClient {
public:
    explicit AnthropicClient(ProviderConfig cfg);
    Response complete(const Request& req) override;
    nlohmann::json buildBody(const Request& req) const override;
    nlohmann::json redactedRequest(const Request& req) const override;
    std::string provider() const override { return "anthropic"; }
    std::string model() const override { return cfg_.model; }
    /// The anthropic-beta values this request needs (computer tool flag + req.betas).
    std::vector<std::string> betas(const Request& req) const;
    /// Parses a Messages API response body into a Response. Throws ModelError when it is not
    /// a message object.
    static Response parseBody(const nlohmann::json& body);

private:
    nlohmann::json body(const Request& req, bool redact) const;
    ProviderConfig cfg_;
};

/// OpenAI-compatible chat completions (POST {base}/chat/completions; Authorization: Bearer).
/// Images become image_url parts with data URIs; tool results become role "tool" messages.
/// The Anthropic computer tool is not available here (std::invalid_argument).
class OpenAIClient : public ModelClient {
public:
    explicit OpenAIClient(ProviderConfig cfg);
    Response complete(const Request& req) override;
    nlohmann::json buildBody(const Request& req) const override;
    nlohmann::json redactedRequest(const Request& req) const override;
    std::string provider() const override { return "openai"; }
    std::string model() const override { return cfg_.model; }
    /// Parses a chat.completion body. Throws ModelError when there is no choices[0].message or a
    /// tool call's arguments are not a JSON object.
    static Response parseBody(const nlohmann::json& body);

private:
    nlohmann::json body(const Request& req, bool redact) const;
    ProviderConfig cfg_;
};

/// Tries each client in order; the first answer wins. A failed provider's error is kept and,
/// when all fail, one ModelError lists every provider's error ("all 2 model providers failed:
/// anthropic claude-x: ...; openai qwen: ..."). Cancellation is never fallen back from.
/// `on_fallback(error, next)` (optional) is told each time a provider fails and the next is tried.
class FallbackClient : public ModelClient {
public:
    explicit FallbackClient(std::vector<std::unique_ptr<ModelClient>> chain);
    Response complete(const Request& req) override;
    nlohmann::json buildBody(const Request& req) const override;
    nlohmann::json redactedRequest(const Request& req) const override;
    std::string provider() const override;
    std::string model() const override;
    std::function<void(const ModelError&, const ModelClient& next)> on_fallback;
    const std::vector<std::unique_ptr<ModelClient>>& chain() const { return chain_; }

private:
    std::vector<std::unique_ptr<ModelClient>> chain_;
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
