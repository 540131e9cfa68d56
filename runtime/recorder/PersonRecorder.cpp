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
        if (e.kind == RecordedInput::Kind::ButtonDown) {
            screens_[e.time] = history_.before(e.time);
            reader_.add(e.time, screens_[e.time], e.at);
        }
        events_.push_back(std::move(e));
    }
    if (!history_.error().empty()) throw std::runtime_error("the screen capture stopped: " + history_.error());
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
        if (auto b = read.bands.find(a.time); b != read.bands.end()) it.band = b->second;
        items.push_back(it);
    }
    return items;
}

}  // namespace eacu
