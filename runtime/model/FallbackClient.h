// A fallback chain of model clients (seed 000's LLMRouter: the first fails, the next answers).
#pragma once
#include <string>
#include <vector>
#include <functional>
#include <memory>

#include "model/ModelClient.h"

namespace eacu::model {

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

}  // namespace eacu::model
