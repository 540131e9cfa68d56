// Session: batch — actions whose targets are all found on one frame, sent with no capture,
// effect wait or settle between them, and one settle at the end (seed 002's execution levels:
// steps that need no check of their own run together).
#include <map>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "base/Clock.h"
#include "base/Format.h"
#include "base/Utf8.h"
#include "device/KeyCombo.h"
#include "step/ActionExecutor.h"
#include "step/Session.h"

namespace eacu {

namespace {

bool pointerVerb(const std::string& a) { return a == "tap" || a == "double_tap" || a == "long_press"; }

}  // namespace

BatchResult Session::batch(const std::vector<BatchAction>& actions, double timeout) {
    const size_t n = actions.size();
    if (n == 0) throw std::invalid_argument("batch: expected at least one action, got none");
    auto label = [&](size_t i) {
        const BatchAction& b = actions[i];
        std::string what = b.target ? describeTarget(*b.target) : "\"" + clipUtf8(b.text, 40) + "\"";
        return "batch action " + std::to_string(i + 1) + " of " + std::to_string(n) + " (" + b.action + " " + what +
               ")";
    };

    // Everything is checked before anything is sent.
    for (size_t i = 0; i < n; ++i) {
        const BatchAction& b = actions[i];
        if (pointerVerb(b.action)) {
            if (!b.target) throw std::invalid_argument(label(i) + ": expected a target");
            const TargetSpec& t = *b.target;
            if (t.window || t.anchor || t.a11y)
                throw std::invalid_argument(label(i) + ": a batch finds its targets on one capture of the screen: "
                                            "expected an image, text or point target, got a " +
                                            std::string(t.window ? "window-bound" : t.anchor ? "relative" : "a11y") +
                                            " target");
            if (!t.image && !t.text && !t.point)
                throw std::invalid_argument(label(i) + ": expected an image, text or point target");
            if (b.action == "long_press" && !(b.hold > 0))
                throw std::invalid_argument(label(i) + ": expected a hold of more than 0 s, got " + fixed(b.hold, 3));
        } else if (b.action == "input") {
            try {
                decodeUtf8(b.text);
            } catch (const std::invalid_argument& e) {
                throw std::invalid_argument(label(i) + ": " + e.what());
            }
        } else if (b.action == "key") {
            try {
                device_.checkKeys(parseKeyCombo(b.text));
            } catch (const std::invalid_argument& e) {
                throw std::invalid_argument(label(i) + ": " + e.what());
            }
        } else {
            throw std::invalid_argument(label(i) + ": expected tap, double_tap, long_press, input or key");
        }
    }
    executor_.checkLimits("batch of " + std::to_string(n));

    // Every searched target on one frame: captured again until all are there at once.
    const double t0 = monotonicSeconds();
    const double wait_for = timeout < 0 ? options_.find_timeout : timeout;
    const double deadline = t0 + wait_for;
    std::map<std::string, std::vector<Template>> variants;  // image targets' templates, loaded once
    for (size_t i = 0; i < n; ++i) {
        const BatchAction& b = actions[i];
        if (!b.target || !b.target->image) continue;
        std::string key = describeTarget(*b.target);
        if (variants.count(key)) continue;
        try {
            variants[key] = templatesFor(*b.target);
        } catch (const TargetNotFound& e) {
            throw TargetNotFound(label(i) + ": " + e.what());
        }
    }
    Frame frame;
    std::vector<Match> found(n);
    for (;;) {
        cancel().check();
        frame = device_.capture();
        std::map<std::string, Located> seen;  // one look per distinct target
        size_t missing = n;
        for (size_t i = 0; i < n && missing == n; ++i) {
            const BatchAction& b = actions[i];
            if (!b.target) continue;
            const TargetSpec& t = *b.target;
            if (!t.searched()) {
                found[i].method = "point";
                found[i].found = true;
                found[i].target = pointFor(t);
                continue;
            }
            const std::string key = describeTarget(t);
            auto it = seen.find(key);
            if (it == seen.end())
                it = seen.emplace(key, t.text ? lookForText(t, frame) : lookForImage(t, variants[key], frame)).first;
            found[i] = it->second.match;
            if (!found[i].found) missing = i;
        }
        if (missing == n) break;
        if (monotonicSeconds() + options_.poll_interval > deadline) {
            const BatchAction& b = actions[missing];
            StepRecord s = newStep(b.action, &*b.target);
            s.params_json = nlohmann::json{{"batch", {{"index", missing + 1}, {"of", n}}}}.dump();
            Located l = std::move(seen[describeTarget(*b.target)]);
            failLocate(s, *b.target, l, wait_for,
                       ("not found on one frame with the other targets of the batch (action " +
                        std::to_string(missing + 1) + " of " + std::to_string(n) + "; nothing was sent)")
                           .c_str());
        }
        cancel().sleep(options_.poll_interval);
    }
    BatchResult r;
    r.locate_ms = (monotonicSeconds() - t0) * 1000;
    r.frame_id = saveFrame(frame);
    for (size_t i = 0; i < n; ++i)
        if (actions[i].target) r.matches.push_back(found[i]);

    // The inputs, back to back; the last one waits for the effect of them all and settles.
    for (size_t i = 0; i < n; ++i) {
        const BatchAction& b = actions[i];
        InputAction a;
        a.action = b.action;
        a.target = b.target ? describeTarget(*b.target) : b.text;
        if (b.target) {
            a.at = found[i].target;
            a.foundBy(found[i]);
            a.button = b.button;
            a.count = b.action == "double_tap" ? 2 : 1;
            a.hold = b.action == "long_press" ? b.hold : 0;
        } else if (b.action == "input") {
            a.text = b.text;
        } else {
            a.combo = b.text;
        }
        a.params["batch"] = {{"index", i + 1}, {"of", n}};
        a.before = frame;
        a.before_id = r.frame_id;
        a.retry_without_effect = false;  // an effect may be any action's: none is pressed again
        a.wait_effect = i + 1 == n;
        try {
            InputResult done = executor_.perform(std::move(a));
            if (i + 1 == n) r.settle = std::move(done.settle);
        } catch (const StepError& e) {
            throw StepError(e.code, label(i) + ": " + e.what(), e.step_id, e.frame_id, e.target, e.best);
        } catch (const DeviceError& e) {
            throw DeviceError(label(i) + ": " + e.what());
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(label(i) + ": " + e.what());
        }
        ++r.actions;
    }
    r.ms = (monotonicSeconds() - t0) * 1000;
    return r;
}

}  // namespace eacu
