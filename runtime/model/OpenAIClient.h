// The client for OpenAI-compatible chat-completions endpoints (OpenAI, vLLM, ...).
#pragma once
#include <string>
#include <vector>

#include "model/ModelClient.h"

namespace eacu::model {

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

}  // namespace eacu::model
