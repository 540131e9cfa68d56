#include "recorder/PersonRecorder.h"

#include <stdexcept>

namespace eacu {

PersonRecorder::PersonRecorder(Device& device, const std::string& x_display, bool tree)
    : input_(x_display), history_(device, tree) {
    // Recording starts when there is a screen to analyse a first press on: a press before the
    // first capture (a slow machine) would have no screen before it and be left unproven.
    constexpr double kFirstScreenTimeout = 30;
    if (!history_.waitFirst(kFirstScreenTimeout))
        throw DeviceError("recording: the screen of " + x_display + " gave no frame within " +
                          std::to_string(int(kFirstScreenTimeout)) + " s" +
                          (history_.error().empty() ? "" : ": " + history_.error()));
}

bool PersonRecorder::poll() {
    for (RecordedInput& e : input_.take()) {
        if (stopped_) break;
        if (e.keysym == kStopKeysym && e.kind != RecordedInput::Kind::Motion) {
            if (e.kind == RecordedInput::Kind::KeyDown) stopped_ = true;
            continue;
        }
        if (e.kind == RecordedInput::Kind::Motion && set_off_ < 0) set_off_ = e.time;
        if (e.kind == RecordedInput::Kind::ButtonDown) {
            screens_[e.time] = history_.before(e.time);
            if (set_off_ >= 0) approaches_[e.time] = history_.before(set_off_);
            reader_.add(e.time, screens_[e.time], e.at);
        }
        if (e.kind == RecordedInput::Kind::ButtonDown || e.kind == RecordedInput::Kind::ButtonUp) set_off_ = -1;
        events_.push_back(std::move(e));
    }
    // Captures that fail are tried again (ScreenHistory); a screen gone for this long ends it.
    constexpr double kNoScreenLimit = 30;
    if (history_.failingFor() > kNoScreenLimit)
        throw std::runtime_error("the screen capture has failed for " + std::to_string(int(kNoScreenLimit)) +
                                 " s: " + history_.error());
    return stopped_;
}

std::vector<ScriptItem> PersonRecorder::finish() {
    if (!stopped_) poll();
    input_.stop();
    history_.stop();
    PhraseReader::Read read = reader_.finish();
    read_ms_ = read.ms;
    std::vector<ScriptItem> items;
    for (const UserAction& a : groupInputs(events_)) {
        ScriptItem it;
        it.action = a;
        if (auto s = screens_.find(a.time); s != screens_.end()) it.before = s->second;
        if (auto s = approaches_.find(a.time); s != approaches_.end() && s->second != it.before) it.approach = s->second;
        if (auto b = read.bands.find(a.time); b != read.bands.end()) it.band = b->second;
        items.push_back(it);
    }
    return items;
}

}  // namespace eacu
