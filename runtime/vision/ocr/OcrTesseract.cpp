// OcrEngine: what one Tesseract instance reads (a band's lines and words, one line alone, the
// layout's line boxes).
#include "vision/ocr/OcrEngineImpl.h"

#include "vision/ocr/TextProposals.h"

#include <cmath>
#include <memory>
#include <stdexcept>

#include <tesseract/resultiterator.h>

namespace eacu {

namespace {

/// The mean confidence (0..1) of the symbols of the word at `it`. Tesseract's LSTM sometimes
/// gives a word it read correctly a word confidence of 0 (tesseract-ocr/tesseract#3983, seen
/// here on "Documentation" and "os.path"); its symbols keep their own confidences.
float symbolConfidence(const tesseract::ResultIterator& it) {
    tesseract::LTRResultIterator sym(it);
    double sum = 0;
    int n = 0;
    do {
        if (sym.Empty(tesseract::RIL_SYMBOL)) break;
        sum += sym.Confidence(tesseract::RIL_SYMBOL);
        ++n;
        if (sym.IsAtFinalElement(tesseract::RIL_WORD, tesseract::RIL_SYMBOL)) break;
    } while (sym.Next(tesseract::RIL_SYMBOL));
    return n ? float(sum / n / 100.0) : 0.0f;
}

}  // namespace

namespace ocr_detail {

std::vector<OcrLine> readBand(tesseract::TessBaseAPI& api, const cv::Mat& big, const Band& band, int ppi) {
    cv::Mat roi = big.rowRange(band.y0, band.y1);
    if (!roi.isContinuous()) roi = roi.clone();
    api.SetImage(roi.data, roi.cols, roi.rows, 1, int(roi.step));
    api.SetSourceResolution(ppi);
    if (api.Recognize(nullptr) != 0) throw std::runtime_error("OCR: Tesseract failed to recognise the image");
    std::vector<OcrLine> lines;
    std::unique_ptr<tesseract::ResultIterator> it(api.GetIterator());
    if (!it) return lines;
    using tesseract::RIL_TEXTLINE;
    using tesseract::RIL_WORD;
    OcrLine line;
    bool open = false;
    auto text = [&](tesseract::PageIteratorLevel level) {
        std::unique_ptr<char[]> s(it->GetUTF8Text(level));
        std::string t = s ? s.get() : "";
        while (!t.empty() && (t.back() == '\n' || t.back() == ' ' || t.back() == '\r')) t.pop_back();
        size_t b = t.find_first_not_of(' ');
        return b == std::string::npos ? std::string() : t.substr(b);
    };
    auto box = [&](tesseract::PageIteratorLevel level) {
        int l, t, r, b;
        if (!it->BoundingBox(level, &l, &t, &r, &b)) return Rect{};
        return Rect{l, t + band.y0, r - l, b - t};
    };
    auto finish = [&]() {
        if (open && !line.words.empty()) {
            int cy = line.box.y + line.box.h / 2;
            if (cy >= band.own0 && cy < band.own1) lines.push_back(std::move(line));
        }
        line = OcrLine{};
        open = false;
    };
    do {
        if (it->Empty(RIL_WORD)) continue;
        if (it->IsAtBeginningOf(RIL_TEXTLINE)) {
            finish();
            line.text = text(RIL_TEXTLINE);
            line.box = box(RIL_TEXTLINE);
            line.confidence = it->Confidence(RIL_TEXTLINE) / 100.0f;
            open = true;
        }
        OcrWord w;
        w.text = text(RIL_WORD);
        w.box = box(RIL_WORD);
        w.confidence = it->Confidence(RIL_WORD) / 100.0f;
        if (w.confidence <= 0) w.confidence = symbolConfidence(*it);
        if (!w.text.empty() && !w.box.empty()) line.words.push_back(std::move(w));
        if (it->IsAtFinalElement(RIL_TEXTLINE, RIL_WORD)) finish();
    } while (it->Next(RIL_WORD));
    finish();
    api.Clear();
    return lines;
}

std::optional<OcrLine> readLine(tesseract::TessBaseAPI& api, const cv::Mat& grey, const Rect& r, double line_height,
                                double min_confidence, tesseract::PageSegMode mode, bool erase_frames) {
    double f = 1;
    cv::Point o;
    cv::Mat img = prepareLine(grey, r, line_height, &f, &o, erase_frames);
    auto back = api.GetPageSegMode();
    api.SetPageSegMode(mode);
    // The cut is dark text on light already (prepareLine): Tesseract's second reading of a
    // line inverted when its confidence is low (tessedit_do_invert) would only double its cost.
    bool invert = true;
    api.GetBoolVariable("tessedit_do_invert", &invert);
    api.SetVariable("tessedit_do_invert", "0");
    api.SetImage(img.data, img.cols, img.rows, 1, int(img.step));
    api.SetSourceResolution(int(std::lround(96 * f)));
    int rc = api.Recognize(nullptr);
    OcrLine line;
    std::unique_ptr<tesseract::ResultIterator> it(rc == 0 ? api.GetIterator() : nullptr);
    double sum = 0;
    if (it) do {
        if (it->Empty(tesseract::RIL_WORD)) continue;
        std::unique_ptr<char[]> t(it->GetUTF8Text(tesseract::RIL_WORD));
        int l, tp, rt, b;
        if (!t || !t[0] || !it->BoundingBox(tesseract::RIL_WORD, &l, &tp, &rt, &b)) continue;
        OcrWord w;
        w.text = t.get();
        w.confidence = it->Confidence(tesseract::RIL_WORD) / 100.0f;
        if (w.confidence <= 0) w.confidence = symbolConfidence(*it);
        int x0 = o.x + int(std::floor((l - 10) / f)), y0 = o.y + int(std::floor((tp - 10) / f));
        int x1 = o.x + int(std::ceil((rt - 10) / f)), y1 = o.y + int(std::ceil((b - 10) / f));
        w.box = Rect{x0, y0, x1 - x0, y1 - y0}.intersect(Rect{0, 0, grey.cols, grey.rows});
        if (w.box.empty()) continue;
        sum += w.confidence;
        line.text += (line.text.empty() ? "" : " ") + w.text;
        line.box = line.words.empty() ? w.box : line.box.united(w.box);
        line.words.push_back(std::move(w));
    } while (it->Next(tesseract::RIL_WORD));
    api.Clear();
    api.SetPageSegMode(back);
    api.SetVariable("tessedit_do_invert", invert ? "1" : "0");
    if (rc != 0) throw std::runtime_error("OCR: Tesseract failed to recognise a line of text");
    if (line.words.empty()) return std::nullopt;
    line.confidence = float(sum / double(line.words.size()));
    if (line.confidence < min_confidence) return std::nullopt;
    return line;
}

std::vector<Rect> layoutLines(tesseract::TessBaseAPI& api, const cv::Mat& big, const Rect& roi, int own0, int own1,
                              int ppi) {
    std::vector<Rect> out;
    if (roi.empty()) return out;
    api.SetImage(big.ptr<uchar>(roi.y) + roi.x, roi.w, roi.h, 1, int(big.step));
    api.SetSourceResolution(ppi);
    std::unique_ptr<tesseract::PageIterator> it(api.AnalyseLayout());
    if (it) do {
        if (it->Empty(tesseract::RIL_TEXTLINE)) continue;
        int l, t, r, b;
        if (!it->BoundingBox(tesseract::RIL_TEXTLINE, &l, &t, &r, &b)) continue;
        Rect box{l + roi.x, t + roi.y, r - l, b - t};
        int cy = box.y + box.h / 2;
        if (!box.empty() && cy >= own0 && cy < own1) out.push_back(box);
    } while (it->Next(tesseract::RIL_TEXTLINE));
    it.reset();
    api.Clear();
    return out;
}

}  // namespace ocr_detail

}  // namespace eacu
