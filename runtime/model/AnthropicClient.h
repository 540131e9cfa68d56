// The Anthropic Messages API client (incl. the computer tool).
#pragma once
#include <string>
#include <vector>

#include "model/ModelClient.h"

namespace eacu::model {

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

}  // namespace eacu::model
