// OcrEngine: set-up (language models in the tessdata folder, the Tesseract workers, the
// process-wide engines).
#include "vision/ocr/OcrEngineImpl.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace fs = std::filesystem;

namespace eacu {

using ocr_detail::splitLangs;

namespace ocr_detail {

std::vector<std::string> splitLangs(const std::string& langs) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= langs.size()) {
        size_t plus = langs.find('+', start);
        if (plus == std::string::npos) plus = langs.size();
        if (plus > start) out.push_back(langs.substr(start, plus - start));
        start = plus + 1;
    }
    return out;
}

}  // namespace ocr_detail

namespace {

/// Debian package name of a Tesseract language: chi_sim -> tesseract-ocr-chi-sim.
std::string packageFor(std::string lang) {
    std::transform(lang.begin(), lang.end(), lang.begin(), [](unsigned char c) {
        return c == '_' ? '-' : char(std::tolower(c));
    });
    return "tesseract-ocr-" + lang;
}

}  // namespace

std::string OcrEngine::tessdataDir() {
    if (const char* env = std::getenv("TESSDATA_PREFIX"); env && *env) return env;
    for (const char* d : {"/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                          "/usr/share/tessdata"})
        if (fs::is_directory(d)) return d;
    return "/usr/share/tesseract-ocr/5/tessdata";
}

std::string OcrEngine::langsFor(const std::string& phrase) {
    // Lead bytes of UTF-8 sequences for U+2E80..U+9FFF (CJK radicals to unified ideographs,
    // kana, CJK punctuation), U+AC00..U+D7AF (hangul), U+F900..U+FAFF, U+FF00..U+FFEF.
    for (size_t i = 0; i + 2 < phrase.size(); ++i) {
        unsigned char c = phrase[i];
        if ((c & 0xF0) != 0xE0) continue;
        unsigned cp = ((c & 0x0F) << 12) | ((phrase[i + 1] & 0x3F) << 6) | (phrase[i + 2] & 0x3F);
        if ((cp >= 0x2E80 && cp <= 0x9FFF) || (cp >= 0xAC00 && cp <= 0xD7AF) || (cp >= 0xF900 && cp <= 0xFAFF) ||
            (cp >= 0xFF00 && cp <= 0xFFEF))
            return "eng+chi_sim";
    }
    return "eng";
}

void OcrEngine::checkLanguages(const std::string& langs) {
    auto list = splitLangs(langs);
    if (list.empty()) throw std::runtime_error("OCR: expected a language set such as \"eng+chi_sim\", got \"" + langs + "\"");
    std::string dir = tessdataDir();
    for (const auto& lang : list) {
        fs::path model = fs::path(dir) / (lang + ".traineddata");
        if (!fs::exists(model))
            throw std::runtime_error("OCR: no Tesseract model for language \"" + lang + "\": " + model.string() +
                                     " not found (install the Debian package " + packageFor(lang) +
                                     ", or set TESSDATA_PREFIX to the folder holding " + lang + ".traineddata)");
    }
}

OcrEngine::OcrEngine(const std::string& langs, OcrOptions options)
    : langs_(langs), options_(options), line_cache_(options.line_cache) {
    checkLanguages(langs);
    int n = options_.threads > 0 ? options_.threads
                                 : std::clamp(int(std::thread::hardware_concurrency()), 1, 4);
    std::string dir = tessdataDir();
    for (int i = 0; i < n; ++i) {
        auto w = std::make_unique<Worker>();
        if (w->api.Init(dir.c_str(), langs.c_str(), tesseract::OEM_LSTM_ONLY) != 0)
            throw std::runtime_error("OCR: Tesseract could not load \"" + langs + "\" from " + dir);
        w->api.SetVariable("debug_file", "/dev/null");
        w->api.SetPageSegMode(tesseract::PageSegMode(options_.page_seg_mode));
        for (const auto& [name, value] : options_.variables)
            if (!w->api.SetVariable(name.c_str(), value.c_str()))
                throw std::runtime_error("OCR: Tesseract has no parameter \"" + name + "\" (set to \"" + value + "\")");
        workers_.push_back(std::move(w));
    }
}

OcrEngine::~OcrEngine() = default;

void OcrEngine::forgetLastPage() {
    std::lock_guard lock(mutex_);
    last_ = LastPage{};
}

OcrEngine& OcrEngine::shared(const std::string& langs) { return shared(langs, "", OcrOptions{}); }

OcrEngine& OcrEngine::shared(const std::string& langs, const std::string& variant, const OcrOptions& options) {
    // One slot per (langs, variant), made under the map's lock and never removed; an engine is
    // made under its own slot's lock (and one more, so that Tesseract loads one model set at a
    // time, as before), so that loading one language set's models (0.2-1.5 s) does not hold up
    // a caller of another one already loaded (a heal's engines are loaded ahead on a thread of
    // their own, heal/SimilarityHealer).
    struct Slot {
        std::mutex m;
        std::unique_ptr<OcrEngine> engine;
    };
    static std::mutex m, loading;
    static std::map<std::pair<std::string, std::string>, std::unique_ptr<Slot>> slots;
    Slot* slot;
    {
        std::lock_guard lock(m);
        auto& s = slots[{langs, variant}];
        if (!s) s = std::make_unique<Slot>();
        slot = s.get();
    }
    std::lock_guard lock(slot->m);
    if (!slot->engine) {
        std::lock_guard one(loading);
        slot->engine = std::make_unique<OcrEngine>(langs, options);  // a throw leaves it to the next call
    }
    return *slot->engine;
}

}  // namespace eacu
