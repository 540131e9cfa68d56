#include "step/TypedCheck.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include <opencv2/imgproc.hpp>

#include "base/Clock.h"
#include "base/Format.h"
#include "base/IoDeadline.h"
#include "base/Utf8.h"
#include "device/Windows.h"
#include "vision/ocr/ChangedRegions.h"
#include "vision/ocr/OcrCache.h"
#include "vision/ocr/OcrEngine.h"
#include "vision/ocr/TextFinder.h"

namespace eacu {

namespace {

std::string quotedText(const std::string& s) { return "\"" + clipUtf8(s, 200) + "\""; }

std::string plural(size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

// Characters (code points) in `s`; std::nullopt when it is not valid UTF-8.
std::optional<size_t> characters(const std::string& s) {
    try {
        return decodeUtf8(s).size();
    } catch (const std::invalid_argument&) {
        return std::nullopt;
    }
}

// The field for messages: its role and name ("text \"Name\""); the role only when a secret is
// typed or the field is a password field (Android's name is the field's text).
std::string fieldLabel(const A11yElement& f, bool secret) {
    return f.name.empty() || secret || isPasswordField(f) ? f.role : f.role + " \"" + clipUtf8(f.name, 60) + "\"";
}

}  // namespace

TypedRule typedRule(const std::optional<A11yText>& before, const std::string& typed, bool secret) {
    const std::u32string t = decodeUtf8(typed);
    TypedRule r;
    r.secret = secret;
    if (before && before->caret >= 0) {
        std::u32string b;
        try {
            b = decodeUtf8(before->text);
        } catch (const std::invalid_argument&) {
            b.clear();
        }
        const int n = static_cast<int>(b.size());
        if (before->caret <= n) {
            int s = before->caret, e = before->caret;
            if (before->sel_start >= 0 && before->sel_start < before->sel_end && before->sel_end <= n) {
                s = before->sel_start;
                e = before->sel_end;
            }
            const std::u32string want = b.substr(0, static_cast<size_t>(s)) + t + b.substr(static_cast<size_t>(e));
            r.exact = encodeUtf8(want);
            r.length = want.size();
            return r;
        }
    }
    r.contains = typed;
    r.length = t.size();
    return r;
}

TypedRule setTextRule(const std::string& text, bool secret) {
    TypedRule r;
    r.exact = text;
    r.secret = secret;
    r.length = decodeUtf8(text).size();
    return r;
}

bool typedHolds(const TypedRule& rule, const std::string& now) {
    const std::optional<size_t> n = characters(now);
    if (!n) return false;
    if (rule.secret) return rule.exact ? *n == rule.length : *n >= rule.length;
    if (rule.exact) return now == *rule.exact;
    return now.find(rule.contains) != std::string::npos;
}

std::string describeRule(const TypedRule& rule) {
    if (rule.secret) return (rule.exact ? "" : "at least ") + plural(rule.length, "character");
    if (rule.exact) return quotedText(*rule.exact);
    return "text containing " + quotedText(rule.contains);
}

std::string describeHeld(const std::string& now, bool secret) {
    if (!secret) return quotedText(now);
    return plural(characters(now).value_or(now.size()), "character");
}

TypedCheck TypedCheck::off(const std::string& why) {
    TypedCheck c;
    c.note_ = "not checked: " + why;
    return c;
}

TypedCheck TypedCheck::screenOnly(const std::string& text, bool secret, const std::string& why) {
    TypedCheck c = off(why);
    if (!secret) {
        c.screen_text_ = text;
        c.tree_why_ = why;
    }
    return c;
}

namespace {

// The device's tree now, or the reason there is none: the application of the window with the
// focus when the device knows its process (quicker on a busy desktop, and never another
// display's programs on a shared accessibility bus), else the whole tree.
std::optional<A11yElement> typedSnapshot(Device& device, std::string& why) {
    try {
        A11yScope scope;
        try {
            if (std::optional<WindowInfo> w = device.windows().frontmost(); w && w->pid > 0) scope.pid = w->pid;
        } catch (const DeviceError&) {
            // no windows (a phone): the whole tree
        }
        scope.deadline = ioWaitEnd(5);
        return device.accessibility().snapshot(scope);
    } catch (const DeviceError& e) {
        why = std::string("no accessibility tree (") + e.what() + ")";
        return std::nullopt;
    }
}

}  // namespace

TypedCheck TypedCheck::forInput(Device& device, const std::string& text, bool secret) {
    if (text.find_first_of("\n\t") != std::string::npos)
        return off("the text has Return or Tab, keys that may act rather than type");
    try {
        decodeUtf8(text);
    } catch (const std::invalid_argument&) {
        return off("the text is not valid UTF-8");
    }
    try {
        if (!device.accessibility().readsText())
            return screenOnly(text, secret, "this device's tree does not give a field's text");
    } catch (const DeviceError& e) {
        return screenOnly(text, secret, std::string("no accessibility tree (") + e.what() + ")");
    }
    std::string why;
    std::optional<A11yElement> root = typedSnapshot(device, why);
    if (!root) return screenOnly(text, secret, why);
    const A11yElement* f = focusedTextField(*root);
    if (!f) return screenOnly(text, secret, "no text field has the focus in the accessibility tree");
    std::optional<A11yText> before;
    try {
        before = device.accessibility().snapshotText(*f);
        if (!before) before = device.accessibility().readText(*f);
    } catch (const DeviceError& e) {
        return off("the focused " + fieldLabel(*f, secret) + "'s text cannot be read" +
                   (secret ? std::string() : " (" + std::string(e.what()) + ")"));
    }
    if (!before) return screenOnly(text, secret || isPasswordField(*f), "this device's tree does not give a field's text");
    TypedCheck c;
    c.device_ = &device;
    c.field_ = *f;
    c.field_->children.clear();
    c.secret_ = secret || isPasswordField(*f);
    c.rule_ = typedRule(before, text, c.secret_);
    c.keys_ = true;
    return c;
}

TypedCheck TypedCheck::forSetText(Device& device, const A11yElement& element, const std::string& text) {
    if (text.empty()) return off("the text is empty (an empty field may show its hint)");
    try {
        if (!device.accessibility().readsText()) return off("this device's tree does not give a field's text");
    } catch (const DeviceError& e) {
        return off(std::string("no accessibility tree (") + e.what() + ")");
    }
    try {
        decodeUtf8(text);
    } catch (const std::invalid_argument&) {
        return off("the text is not valid UTF-8");
    }
    TypedCheck c;
    c.device_ = &device;
    c.field_ = element;
    c.field_->children.clear();
    c.secret_ = isPasswordField(element);
    c.rule_ = setTextRule(text, c.secret_);
    return c;
}

std::optional<std::string> TypedCheck::after(double own_timeout) {
    if (!field_) return std::nullopt;
    const double t0 = monotonicSeconds(), end = ioWaitEnd(own_timeout);
    std::string now;
    int reads = 0;
    for (;;) {
        std::optional<A11yText> t;
        try {
            t = device_->accessibility().readText(*field_);
        } catch (const DeviceError& e) {
            note_ = "not checked: the " + fieldLabel(*field_, secret_) + " cannot be read afterwards" +
                    (secret_ ? std::string() : " (" + std::string(e.what()) + ")");
            field_.reset();
            return std::nullopt;
        }
        ++reads;
        if (!t) {
            note_ = "not checked: the " + fieldLabel(*field_, secret_) + "'s text cannot be read afterwards";
            field_.reset();
            return std::nullopt;
        }
        now = t->text;
        if (typedHolds(rule_, now)) {
            note_ = "checked: the " + fieldLabel(*field_, secret_) + " holds " + describeRule(rule_) + " (" +
                    plural(static_cast<size_t>(reads), "read") + ", " + fixed(monotonicSeconds() - t0, 2) + " s)";
            return std::nullopt;
        }
        if (monotonicSeconds() + 0.1 > end) break;
        ioCheckCancel();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    // Still not there: is it still the field with the focus (the keys may have moved it)?
    std::string why;
    std::optional<A11yElement> root;
    if (keys_) root = typedSnapshot(*device_, why);
    if (root) {
        const A11yElement* f = focusedTextField(*root);
        if (!f || f->path != field_->path) {
            note_ = "not checked: the focus left the " + fieldLabel(*field_, secret_) + " while typing";
            field_.reset();
            return std::nullopt;
        }
    }
    note_ = "failed: the " + fieldLabel(*field_, secret_) + " holds " + describeHeld(now, secret_) + ", expected " +
            describeRule(rule_);
    return "the " + fieldLabel(*field_, secret_) + " holds " + describeHeld(now, secret_) + " after " +
           fixed(monotonicSeconds() - t0, 1) + " s, expected " + describeRule(rule_) +
           " (read back through the accessibility tree; input(text, {check = false}) skips this check)";
}

void TypedCheck::onScreen(const cv::Mat& before, const cv::Mat& after, bool secret) {
    if (!screen_text_ || field_) return;
    const std::string text = *screen_text_;
    screen_text_.reset();
    if (secret) return;  // a secret is never looked for on the screen, nor written anywhere
    const std::string tree = "; the tree could not check (" + tree_why_ + ")";
    if (before.empty() || after.empty() || before.size() != after.size() || before.type() != after.type() ||
        before.type() != CV_8UC3)
        return;  // no pair of frames to compare (a window-bound frame of another size): "not checked" stays
    try {
        if (foldText(text).empty()) return;  // nothing OCR could read (spaces, punctuation only)
    } catch (const std::invalid_argument&) {
        return;
    }
    const double t0 = monotonicSeconds();
    cv::Mat grey_before, grey_after;
    cv::cvtColor(before, grey_before, cv::COLOR_BGR2GRAY);
    cv::cvtColor(after, grey_after, cv::COLOR_BGR2GRAY);
    // Changed pixels closer than this are one place.
    constexpr int kMargin = 8;
    std::vector<Rect> changed = changedRegions(grey_after, grey_before, {}, kMargin);
    if (changed.empty()) {
        note_ = "not confirmed on the screen: it did not change after the text was sent" + tree;
        return;
    }
    TextFindOptions any;
    any.threshold = 0;
    any.max_results = 1;
    const double required = TextFindOptions{}.threshold;
    std::optional<TextMatch> best;
    std::string read;  // the lines read where the screen changed, for the note
    try {
        // The whole frame read as a text target reads it (OcrCache: per frame; the engine lays
        // out again only where a frame of the same size differs from the one it read before),
        // then only the lines that touch a changed place.
        std::shared_ptr<const OcrResult> ocr = OcrCache::shared().get(after, std::nullopt, OcrEngine::langsFor(text));
        OcrResult there;
        for (const OcrLine& l : ocr->lines)
            if (std::any_of(changed.begin(), changed.end(), [&](const Rect& c) { return !l.box.intersect(c).empty(); })) {
                there.lines.push_back(l);
                read += (read.empty() ? "" : " ") + l.text;
            }
        std::vector<TextMatch> hits = findText(there, text, any);
        if (!hits.empty()) best = hits.front();
    } catch (const std::exception& e) {
        note_ = "not confirmed on the screen: OCR failed (" + std::string(e.what()) + ")" + tree;
        return;
    }
    const std::string took = fixed(monotonicSeconds() - t0, 2) + " s";
    if (best && best->score >= required) {
        note_ = "checked on the screen: " + quotedText(text) + " reads where the screen changed (OCR score " +
                fixed(best->score, 2) + ", " + took + ")" + tree;
        return;
    }
    note_ = "not confirmed on the screen: where it changed OCR reads " + quotedText(clipUtf8(read, 80)) + ", not " +
            quotedText(text) + " (score " + fixed(best ? best->score : 0.0, 2) + " < " + fixed(required, 2) + ", " +
            took + ")" + tree;
}

}  // namespace eacu
