// The fallback chain of model clients.
#include "model/FallbackClient.h"

#include <stdexcept>

namespace eacu::model {

using json = nlohmann::json;

FallbackClient::FallbackClient(std::vector<std::unique_ptr<ModelClient>> chain) : chain_(std::move(chain)) {
    if (chain_.empty()) throw std::invalid_argument("fallback client: expected at least one provider, got none");
}

Response FallbackClient::complete(const Request& req) {
    std::string errors;
    int last_status = 0;
    for (size_t i = 0; i < chain_.size(); ++i) {
        try {
            return chain_[i]->complete(req);
        } catch (const ModelError& e) {
            if (e.cancelled()) throw;
            errors += (errors.empty() ? "" : "; ") + std::string(e.what());
            last_status = e.status();
            if (i + 1 < chain_.size() && on_fallback) on_fallback(e, *chain_[i + 1]);
        } catch (const std::invalid_argument& e) {
            // A request this provider cannot express (e.g. the computer tool on OpenAI).
            errors += (errors.empty() ? "" : "; ") + chain_[i]->provider() + " " + chain_[i]->model() + ": " + e.what();
        }
    }
    throw ModelError(chain_.back()->provider(), last_status,
                     "all " + std::to_string(chain_.size()) + " model providers failed: " + errors);
}

json FallbackClient::buildBody(const Request& req) const { return chain_.front()->buildBody(req); }
json FallbackClient::redactedRequest(const Request& req) const { return chain_.front()->redactedRequest(req); }
std::string FallbackClient::provider() const { return chain_.front()->provider(); }
std::string FallbackClient::model() const { return chain_.front()->model(); }

}  // namespace eacu::model
