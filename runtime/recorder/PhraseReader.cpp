#include "recorder/PhraseReader.h"

#include <exception>

#include "base/Clock.h"
#include "recorder/TargetProof.h"
#include "vision/ocr/OcrCache.h"
#include "vision/ocr/OcrEngine.h"

namespace eacu {

PhraseReader::PhraseReader() : thread_([this] { run(); }) {}

PhraseReader::~PhraseReader() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        dropping_ = true;
        jobs_.clear();
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void PhraseReader::add(double key, std::shared_ptr<const ScreenState> screen, Point p) {
    if (!screen || screen->frame.bgr.empty()) return;
    {
        std::lock_guard<std::mutex> lock(mu_);
        jobs_.push_back({key, std::move(screen), p});
    }
    cv_.notify_all();
}

PhraseReader::Read PhraseReader::finish() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        draining_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    std::lock_guard<std::mutex> lock(mu_);
    return std::move(read_);
}

void PhraseReader::run() {
    try {
        OcrEngine::shared(kPhraseBandLangs);
        OcrEngine::shared("eng");
    } catch (const std::exception&) {
        // No OCR data: the proofs say so.
    }
    for (;;) {
        Job job;
        {
            std::unique_lock<std::mutex> lock(mu_);
            cv_.wait(lock, [this] { return dropping_ || draining_ || !jobs_.empty(); });
            if (dropping_ || jobs_.empty()) return;  // dropped, or drained
            job = std::move(jobs_.front());
            jobs_.pop_front();
        }
        const double t0 = monotonicSeconds();
        std::shared_ptr<const OcrResult> band;
        try {
            const Frame& f = job.screen->frame;
            band = OcrCache::shared().get(f.bgr, phraseBand(f, job.p), kPhraseBandLangs);
        } catch (const std::exception&) {
            // The proof reads it again and reports the error.
        }
        std::lock_guard<std::mutex> lock(mu_);
        if (band) read_.bands[job.key] = band;
        read_.ms.push_back((monotonicSeconds() - t0) * 1000.0);
    }
}

}  // namespace eacu
