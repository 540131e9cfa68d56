#include "repl/ReplRecorder.h"

#include <chrono>
#include <stdexcept>

#include "vision/Locator.h"

namespace eacu {

ReplRecorder::~ReplRecorder() {
    stopping_ = true;
    if (poller_.joinable()) poller_.join();
}

void ReplRecorder::start(const std::string& x_display) {
    if (recorder_) throw std::runtime_error("record: already recording (stop() first)");
    if (x_display.empty()) throw std::runtime_error("record: expected a session on an X display, got none");
    device_ = openDevice(x_display);
    recorder_ = std::make_unique<PersonRecorder>(*device_.device, x_display, false);
    stopping_ = false;
    error_.clear();
    poller_ = std::thread([this] {
        try {
            // The stop key ends the polling; the lines are written at stop().
            while (!stopping_ && !recorder_->poll()) std::this_thread::sleep_for(std::chrono::milliseconds(15));
        } catch (const std::exception& e) {
            error_ = e.what();
        }
    });
}

WrittenScript ReplRecorder::stop(const ScriptOptions& o) {
    if (!recorder_) throw std::runtime_error("stop: not recording (record() first)");
    stopping_ = true;
    poller_.join();
    std::vector<ScriptItem> items = recorder_->finish();
    recorder_.reset();
    device_ = DeviceHandle{};
    if (!error_.empty()) throw std::runtime_error("stop: the recording failed: " + error_);
    Locator locator;
    return writeScript(items, locator, o);
}

}  // namespace eacu
