// Model-driven steps of one run: the configured model client, the model_calls log and the
// response cache, and what a model is shown of the screen (model image + Set-of-Marks).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/Cancel.h"
#include "base/Frame.h"
#include "base/Utf8.h"
#include "geometry/ModelImage.h"
#include "model/ModelClient.h"
#include "model/ResponseCache.h"
#include "vision/TemplateMatcher.h"
#include "vision/som/Som.h"

namespace eacu {

class Session;

/// How model steps look at the screen and call the model.
/// - `image`: how screenshots are scaled for the model; `image_format` "png" | "jpeg".
/// - `max_tokens`: answer limit per call.
/// - `som`: Set-of-Marks tuning; `som_assets`: locate the asset library's images and add the
///   ones found as elements (content: the asset's first alias, else its qualified name);
///   `asset_apps`: only assets of these apps ("" = the shared index); empty = every asset.
/// - `som_ocr`: the Tesseract language set whose OCR lines become text elements (cached per
///   frame); empty = no OCR.
/// - `a11y`: read the device's accessibility tree with each observation (when it has one) and
///   give its interactive elements to Set-of-Marks and the screen message (seed 004).
struct ModelStepOptions {
    ModelImagePolicy image = ModelImagePolicy::anthropic();
    std::string image_format = "png";
    int max_tokens = 1024;
    SomOptions som;
    bool som_assets = true;
    std::vector<std::string> asset_apps;
    std::string som_ocr = "eng+chi_sim";
    bool a11y = true;
};

/// The screen as a model is shown it: the frame (recorded as `frame_id`), where the mouse
/// pointer was (`cursor`, physical pixels), the scaled model image with its transform, the
/// Set-of-Marks elements and their text list, and the frame's fingerprint for the response
/// cache. `a11y`: the interactive elements of the accessibility tree on the screen (empty when
/// the device has no tree), `a11y_text` their list as the model reads it. `ms`: time to build it.
struct Observation {
    Frame frame;
    int64_t frame_id = 0;
    Point cursor;
    ModelImage image;
    SomResult som;
    std::string som_text;
    std::string fingerprint;
    std::vector<SomA11yNode> a11y;
    std::string a11y_text;
    double ms = 0;
};

/// The model side of a session. Owns the client (possibly none: replay only) and the
/// ModelCaller that records every call in the session's run log (its `model_calls`) and serves
/// cached answers from it. Not thread-safe.
class ModelContext {
public:
    /// `client` may be null (no model configured). Calls are logged in the session's run log
    /// (on its connection) when it has one; without one nothing is logged or replayed.
    ModelContext(Session& session, std::unique_ptr<model::ModelClient> client, model::CacheMode mode);
    ~ModelContext();

    /// The client configured by EACU_MODEL_* (and EACU_MODEL_FALLBACK_*), whose HTTP calls stop
    /// when `cancel` is cancelled (null: only on a signal); nullptr when EACU_MODEL_PROVIDER is
    /// unset. Throws std::invalid_argument for a bad configuration (the message never holds a key).
    static std::unique_ptr<model::ModelClient> clientFromEnv(
        const std::function<const char*(const char*)>& getenv = nullptr,
        std::shared_ptr<const CancelToken> cancel = nullptr);
    /// The cache mode named by $EACU_MODEL_CACHE (record when unset: live calls, stored with
    /// their cache keys so the run can be replayed). Throws std::invalid_argument.
    static model::CacheMode cacheModeFromEnv();

    Session& session() { return session_; }
    ModelStepOptions& options() { return options_; }
    model::ModelCaller& caller() { return *caller_; }
    model::CacheMode mode() const { return mode_; }
    /// The configured client (null when none).
    model::ModelClient* client() { return client_.get(); }
    /// Replaces the client (null = none); the call sequence goes on.
    void setClient(std::unique_ptr<model::ModelClient> client);
    /// "openai qwen-test, cache record" / "no model, cache replay".
    std::string describe() const;

    /// Captures the screen, records the frame, scales it for the model, reads the interactive
    /// elements of the accessibility tree (ModelStepOptions::a11y; none when the device has no
    /// tree) and, when `with_som`, builds the Set-of-Marks (tree elements + control proposals +
    /// OCR lines + asset matches).
    Observation observe(bool with_som = true);
    /// A user message showing `image` (observation `o`'s screen as the model sees it, recorded
    /// as its frame) followed by `text`, in the configured image format. The mouse pointer is
    /// marked on the image (vision/CursorMark: a circle, an arrow and "鼠标指针") and its
    /// position given as a field before it: "Mouse pointer (marked 鼠标指针): x=.., y=.. in the
    /// screenshot's pixels" (seed 001 §4.2). An observation without Set-of-Marks (whose marks
    /// would carry them) that has accessibility-tree elements lists them after the image:
    /// "Accessibility tree (interactive elements; boxes in the screenshot's pixels):" then one
    /// line each, `push button "OK" at (x,y wxh)`.
    model::Message screenMessage(const ModelImage& image, const Observation& o, const std::string& text);
    /// The cache/log facts of a call about observation `o`: `kind`, the `prompt` text the
    /// cache key is made from, the screen's fingerprint and frame id.
    static model::CallMeta callMeta(const Observation& o, const std::string& kind, const std::string& prompt);

    /// One model call through the cache/log (see model::ModelCaller::call). When `provider`
    /// is not empty and the client is a fallback chain, only the chain's member with that
    /// provider name ("anthropic" | "openai") is used. Throws model::ModelError.
    model::Response call(const model::Request& req, const model::CallMeta& meta, const std::string& provider = "");

private:
    Session& session_;
    std::unique_ptr<model::ModelClient> client_;
    model::CacheMode mode_;
    std::unique_ptr<model::ModelCaller> caller_;
    ModelStepOptions options_;
    TemplateMatcher matcher_;
};

/// What ask() returns: the answer text and, when JSON was asked for, the parsed value.
struct AskResult {
    std::string text;
    std::optional<nlohmann::json> json;
    bool from_cache = false;
    int64_t call_id = 0;
};

/// Asks a question about the current screen (screenshot sent, no Set-of-Marks). With `json`,
/// the model is told to answer with one JSON value and the answer must parse (a markdown
/// fence is stripped); otherwise a std::runtime_error says "expected a JSON answer" and shows
/// the raw text. Recorded as an `ask` step; the call as kind "ask".
AskResult ask(ModelContext& ctx, const std::string& question, bool json, const std::string& provider = "");

}  // namespace eacu
