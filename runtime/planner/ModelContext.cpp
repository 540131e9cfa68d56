#include "planner/ModelContext.h"

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "model/Action.h"
#include "model/FallbackClient.h"
#include "model/Prompts.h"
#include "step/AssetHits.h"
#include "step/Session.h"
#include "step/TreeNodes.h"
#include "vision/CursorMark.h"
#include "vision/ocr/OcrCache.h"

namespace eacu {

using json = nlohmann::json;


std::unique_ptr<model::ModelClient> ModelContext::clientFromEnv(const std::function<const char*(const char*)>& getenv_,
                                                           std::shared_ptr<const CancelToken> cancel) {
    std::function<bool()> stop;
    if (cancel) stop = [cancel] { return cancel->cancelled(); };
    auto main = model::providerFromEnv("EACU_MODEL", getenv_);
    if (!main) return nullptr;
    auto fb = model::providerFromEnv("EACU_MODEL_FALLBACK", getenv_);
    main->http.cancel = stop;
    if (!fb) return model::makeClient(*main);
    fb->http.cancel = stop;
    std::vector<std::unique_ptr<model::ModelClient>> chain;
    chain.push_back(model::makeClient(*main));
    chain.push_back(model::makeClient(*fb));
    return std::make_unique<model::FallbackClient>(std::move(chain));
}

model::CacheMode ModelContext::cacheModeFromEnv() {
    const char* v = std::getenv("EACU_MODEL_CACHE");
    if (!v || !*v) return model::CacheMode::Record;
    try {
        return model::parseCacheMode(v);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("EACU_MODEL_CACHE: ") + e.what());
    }
}

ModelContext::ModelContext(Session& session, std::unique_ptr<model::ModelClient> client, model::CacheMode mode)
    : session_(session), client_(std::move(client)), mode_(mode) {
    caller_ = std::make_unique<model::ModelCaller>(client_.get(), session_.log(), mode_, session_.runId());
    options_.som.scale = session_.device().scaleFactor();
}

ModelContext::~ModelContext() = default;

void ModelContext::setClient(std::unique_ptr<model::ModelClient> client) {
    client_ = std::move(client);
    caller_->setClient(client_.get());
}

std::string ModelContext::describe() const {
    std::string who = client_ ? client_->provider() + " " + client_->model() : std::string("no model");
    return who + ", cache " + model::cacheModeName(mode_);
}

Observation ModelContext::observe(bool with_som) {
    double t0 = monotonicSeconds();
    Observation o;
    o.frame = session_.device().capture();
    o.cursor = session_.device().cursor();
    o.frame_id = session_.recordFrame(o.frame);
    o.image = makeModelImage(o.frame.bgr, options_.image, o.frame.scale);
    o.fingerprint = model::screenFingerprint(o.frame.bgr);
    if (options_.a11y) {
        o.a11y = treeNodesOnScreen(session_.device(), {0, 0, o.frame.bgr.cols, o.frame.bgr.rows});
        for (const SomA11yNode& n : o.a11y) {
            Point p0 = o.image.transform.physicalToImage({n.box.x, n.box.y});
            Point p1 = o.image.transform.physicalToImage({n.box.x + n.box.w, n.box.y + n.box.h});
            o.a11y_text += "  " + n.role + " \"" + n.name + "\" at (" + std::to_string(p0.x) + "," +
                           std::to_string(p0.y) + " " + std::to_string(p1.x - p0.x) + "x" + std::to_string(p1.y - p0.y) +
                           ")\n";
        }
    }
    if (with_som) {
        std::vector<SomAssetHit> hits;
        if (options_.som_assets)
            hits = findAssetHits(session_.assets(), session_.options().script_dir, o.frame, options_.asset_apps, matcher_,
                                 session_.cancel());
        std::vector<SomOcrLine> lines;
        if (!options_.som_ocr.empty())
            for (const OcrLine& l : OcrCache::shared().get(o.frame.bgr, std::nullopt, options_.som_ocr)->lines)
                lines.push_back({l.text, l.box, l.confidence});
        o.som = buildSom(o.frame.bgr, lines, hits, options_.som, o.a11y);
        o.som_text = somText(o.som);
    }
    o.ms = (monotonicSeconds() - t0) * 1000;
    return o;
}

model::Message ModelContext::screenMessage(const ModelImage& image, const Observation& o, const std::string& text) {
    ModelImage marked{image.image.clone(), image.transform};
    Point at = marked.transform.physicalToImage(o.cursor);
    drawCursorMark(marked.image, at);
    std::string pointer = "Mouse pointer (marked 鼠标指针 on the screenshot): x=" + std::to_string(at.x) +
                          ", y=" + std::to_string(at.y) + " in the screenshot's pixels";
    std::vector<model::Part> parts{model::Part::textPart(pointer),
                                   model::imagePart(marked, o.frame_id, options_.image_format)};
    if (o.som.elements.empty() && !o.a11y_text.empty())
        parts.push_back(model::Part::textPart("Accessibility tree (interactive elements; boxes in the screenshot's pixels):\n" +
                                              o.a11y_text));
    parts.push_back(model::Part::textPart(text));
    return model::Message::user(std::move(parts));
}

model::CallMeta ModelContext::callMeta(const Observation& o, const std::string& kind, const std::string& prompt) {
    model::CallMeta meta;
    meta.kind = kind;
    meta.prompt = prompt;
    meta.fingerprint = o.fingerprint;
    if (o.frame_id) meta.frame_ids = {o.frame_id};
    return meta;
}

model::Response ModelContext::call(const model::Request& req, const model::CallMeta& meta, const std::string& provider) {
    if (!client_ && (mode_ != model::CacheMode::Replay || !meta.cacheable))
        throw model::ModelError("model", 0,
                                "no model is configured: set EACU_MODEL_PROVIDER (anthropic|openai), EACU_MODEL and "
                                "EACU_MODEL_BASE_URL/EACU_MODEL_API_KEY, or call eacu.model.config{...}");
    model::ModelClient* chosen = client_.get();
    if (!provider.empty() && client_ && client_->provider() != provider) {
        chosen = nullptr;
        if (auto* fb = dynamic_cast<model::FallbackClient*>(client_.get())) {
            for (const auto& c : fb->chain())
                if (c->provider() == provider) {
                    chosen = c.get();
                    break;
                }
        }
        if (!chosen)
            throw std::invalid_argument("model provider \"" + provider + "\" is not configured (configured: " +
                                        client_->provider() + "; set EACU_MODEL_FALLBACK_PROVIDER for a second one)");
    }
    if (chosen == client_.get()) return caller_->call(req, meta);
    caller_->setClient(chosen);
    try {
        model::Response r = caller_->call(req, meta);
        caller_->setClient(client_.get());
        return r;
    } catch (...) {
        caller_->setClient(client_.get());
        throw;
    }
}

namespace {

const char* kAskSystem =
    "You look at a screenshot of a Linux (X11) desktop and answer the user's question about it, "
    "truthfully and briefly. Answer only from what the screenshot shows.";
const char* kAskJson =
    "\n\nAnswer with exactly one JSON value (an object unless the question asks otherwise) and "
    "nothing else: no prose, no markdown.";

}  // namespace

AskResult ask(ModelContext& ctx, const std::string& question, bool want_json, const std::string& provider) {
    Session& s = ctx.session();
    StepRecord step = s.beginStep("ask", question);
    step.method = "model";
    Observation o = ctx.observe(false);
    step.frame_before = o.frame_id ? std::optional<int64_t>(o.frame_id) : std::nullopt;
    step.transform_json = o.image.transform.toJson().dump();

    model::Request req;
    req.system = std::string(kAskSystem) + (want_json ? kAskJson : "");
    req.max_tokens = ctx.options().max_tokens;
    req.json_mode = want_json;
    req.messages.push_back(ctx.screenMessage(o.image, o, question));
    model::CallMeta meta = ModelContext::callMeta(o, "ask", req.system + "\n" + question);

    AskResult out;
    double t0 = monotonicSeconds();
    auto finish = [&](const std::string& status, const std::string& error) {
        step.status = status;
        step.error = error;
        step.action_ms = (monotonicSeconds() - t0) * 1000;
        step.params_json = json{{"json", want_json}, {"model_call", ctx.caller().lastRowId()},
                                {"from_cache", out.from_cache}, {"answer", clipUtf8(out.text, 2000)}}
                               .dump();
        s.commitStep(step);
    };
    try {
        model::Response r = ctx.call(req, meta, provider);
        out.text = r.text;
        out.from_cache = r.from_cache;
        out.call_id = ctx.caller().lastRowId();
    } catch (const std::exception& e) {
        std::string msg = std::string("ask: the model call failed: ") + e.what();
        finish("failed", msg);
        throw std::runtime_error(msg);
    }
    if (want_json) {
        std::string body = model::stripCodeFence(out.text);
        json j = json::parse(body, nullptr, false);
        if (j.is_discarded()) {
            std::string msg = "ask: expected a JSON answer from the model, got text that is not JSON: " +
                              clipUtf8(out.text, 500);
            finish("failed", msg);
            throw std::runtime_error(msg);
        }
        out.json = std::move(j);
    }
    finish("ok", "");
    return out;
}

}  // namespace eacu
