// Reading ahead, while the person acts, what the recorder's proofs will read: the OCR band
// around each press (recorder/TargetProof.h phraseBand), handed to the proof (ScriptItem::band).
#pragma once
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "geometry/Rect.h"
#include "recorder/ScreenHistory.h"
#include "vision/ocr/OcrResult.h"

namespace eacu {

/// A thread of its own that first loads the OCR engines a proof uses (eng+chi_sim for the band,
/// eng for a Latin phrase's whole-frame proof: each costs 0.1-3 s to load), then reads the
/// band of each screen and point given to add(), in order. An OCR error is left for the proof
/// to meet and report. finish() reads what is still queued, stops the thread and gives the
/// results; the destructor drops what is queued.
class PhraseReader {
public:
    PhraseReader();
    ~PhraseReader();
    PhraseReader(const PhraseReader&) = delete;
    PhraseReader& operator=(const PhraseReader&) = delete;

    /// Queues the band around `p` (physical pixels) of `screen` (ignored when null), under
    /// `key` (the press's time).
    void add(double key, std::shared_ptr<const ScreenState> screen, Point p);
    /// What was read: each key's band (none for a band that failed), and the milliseconds
    /// each read took.
    struct Read {
        std::map<double, std::shared_ptr<const OcrResult>> bands;
        std::vector<double> ms;
    };
    /// Reads what is queued, then stops the thread and gives what was read.
    Read finish();

private:
    void run();

    std::mutex mu_;
    std::condition_variable cv_;
    struct Job {
        double key;
        std::shared_ptr<const ScreenState> screen;
        Point p;
    };
    std::deque<Job> jobs_;  // guarded by mu_
    Read read_;             // guarded by mu_
    bool draining_ = false, dropping_ = false;                                 // guarded by mu_
    std::thread thread_;
};

}  // namespace eacu
