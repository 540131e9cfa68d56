// eacu locate IMAGE TEMPLATE: the locator's verdict on one screenshot, stage by stage.
#include <cstdio>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "Cli.h"
#include "commands/Commands.h"
#include "base/Frame.h"
#include "vision/Locator.h"
#include "vision/ocr/OcrCache.h"
#include "vision/ocr/OcrEngine.h"
#include "vision/ocr/TextFinder.h"

namespace eacu {

namespace {

void drawBox(cv::Mat& img, const Rect& r, cv::Scalar colour, const std::string& label) {
    cv::rectangle(img, cv::Rect(r.x, r.y, r.w, r.h), colour, 2);
    cv::putText(img, label, {r.x, std::max(12, r.y - 4)}, cv::FONT_HERSHEY_SIMPLEX, 0.45, colour, 1, cv::LINE_AA);
}

// --text: reads the screenshot by OCR and prints the best readings of the phrase.
int locateText(const cv::Mat& frame, const std::string& phrase, const CliOptions& o, std::optional<Rect> region) {
    std::string langs = o.flag("--lang").value_or(OcrEngine::langsFor(phrase));
    TextFindOptions opts;
    if (auto t = o.flag("--threshold")) opts.threshold = numberFlag("--threshold", *t, 0, 1, "[0, 1]");
    TextFindOptions any = opts;
    any.threshold = 0;
    any.max_results = 5;
    double t0 = monotonicSeconds();
    auto ocr = OcrCache::shared().get(frame, region, langs);
    double ms = (monotonicSeconds() - t0) * 1000;
    auto hits = findText(*ocr, phrase, any);
    bool found = !hits.empty() && hits.front().score >= opts.threshold;
    std::printf("%s \"%s\": %zu lines read (%s) in %.0f ms\n", found ? "FOUND" : "NOT FOUND", phrase.c_str(),
                ocr->lines.size(), langs.c_str(), ms);
    for (const auto& h : hits)
        std::printf("  %.3f %s \"%s\" at %s (confidence %.2f)\n", h.score,
                    h.score >= opts.threshold ? "match   " : "rejected", h.text.c_str(), h.box.str().c_str(), h.confidence);
    if (auto out = o.flag("--annotate")) {
        cv::Mat img = frame.clone();
        for (const auto& line : ocr->lines)
            cv::rectangle(img, cv::Rect(line.box.x, line.box.y, line.box.w, line.box.h), cv::Scalar(200, 200, 200), 1);
        for (const auto& h : hits)
            drawBox(img, h.box, h.score >= opts.threshold ? cv::Scalar(0, 200, 0) : cv::Scalar(0, 0, 255),
                    cv::format("%.2f", h.score));
        if (!cv::imwrite(*out, img)) throw std::runtime_error("cannot write \"" + *out + "\"");
        std::printf("annotated: %s\n", out->c_str());
    }
    return found ? 0 : 1;
}

}  // namespace

int cmdLocate(int argc, char** argv) {
    try {
        CliOptions o = parseCli(argc, argv, 2, {"--annotate", "--threshold", "--scale", "--region", "--text", "--lang"});
        bool text_mode = o.flag("--text").has_value();
        if (o.positional.size() != (text_mode ? 1u : 2u)) {
            std::fprintf(stderr, "eacu locate: expected SHOT TEMPLATE, or SHOT --text PHRASE, got %zu "
                                 "arguments (see eacu locate --help)\n", o.positional.size());
            return 2;
        }
        cv::Mat frame = cv::imread(o.positional[0], cv::IMREAD_COLOR);
        if (frame.empty()) {
            std::fprintf(stderr, "eacu locate: cannot read image \"%s\"\n", o.positional[0].c_str());
            return 1;
        }
        LocateHints hints;
        if (auto s = o.flag("--scale")) hints.expected_scale = numberFlag("--scale", *s, 0.05, 20, "[0.05, 20]");
        if (auto r = o.flag("--region")) {
            Rect reg;
            if (std::sscanf(r->c_str(), "%d,%d,%d,%d", &reg.x, &reg.y, &reg.w, &reg.h) != 4)
                throw std::invalid_argument("--region expects x,y,w,h in pixels, got \"" + *r + "\"");
            hints.region = reg;
        }
        if (text_mode) return locateText(frame, *o.flag("--text"), o, hints.region);
        Template tpl = Template::load(o.positional[1]);
        if (auto t = o.flag("--threshold")) tpl.threshold = numberFlag("--threshold", *t, 0, 1, "[0, 1]");
        Locator locator;
        double t0 = monotonicSeconds();
        PreparedFrame pf(frame);
        LocateReport r = locator.locate(pf, {tpl}, hints);
        double ms = (monotonicSeconds() - t0) * 1000;
        const Match& m = r.match;
        std::printf("%s %s in %s: score %.3f (colour %.3f), threshold %.2f, box %s, at (%d,%d), "
                    "scale %.3f, method %s, %.1f ms\n",
                    m.found ? "FOUND" : "NOT FOUND", tpl.name.c_str(), o.positional[0].c_str(), m.score,
                    m.color_score, m.threshold, m.box.str().c_str(), m.target.x, m.target.y, m.scale,
                    m.method.c_str(), ms);
        for (const auto& st : r.stages)
            std::printf("  stage %-15s best %.3f (colour %.3f) at %s scale %.3f %s %.1f ms\n", st.stage.c_str(),
                        st.best.score, st.best.color_score, st.best.box.str().c_str(), st.best.scale,
                        st.best.found ? "found" : "rejected", st.ms);
        if (!m.veto.empty()) std::printf("  rejected by the text confirm: %s\n", m.veto.c_str());
        if (auto out = o.flag("--annotate")) {
            cv::Mat img = frame.clone();
            for (const auto& st : r.stages)
                if (!st.best.box.empty())
                    drawBox(img, st.best.box, cv::Scalar(0, 165, 255), st.stage + " " + cv::format("%.2f", st.best.score));
            if (!m.box.empty())
                drawBox(img, m.box, m.found ? cv::Scalar(0, 200, 0) : cv::Scalar(0, 0, 255),
                        cv::format("%s %.3f", m.found ? "found" : "best", m.score));
            if (!cv::imwrite(*out, img)) throw std::runtime_error("cannot write \"" + *out + "\"");
            std::printf("annotated: %s\n", out->c_str());
        }
        return m.found ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu locate: %s\n", e.what());
        return 2;
    }
}

}  // namespace eacu
