// The top-level windows of an agent's screen (docs/agent-protocol.md "windows", "window").
#pragma once
#include <functional>

#include <nlohmann/json.hpp>

#include "device/Windows.h"

namespace eacu {

class AgentDevice;

/// Windows on the agent: ids are the agent's window handles (HWND on Windows); `cls` is the
/// window class, `instance` the program's file name. Each operation asks the agent, then
/// polls the window's state until it is reached (as Windows.h says) or throws DeviceError
/// naming what was expected and what came.
class AgentWindows final : public Windows {
public:
    explicit AgentWindows(AgentDevice& device) : device_(device) {}

    std::vector<WindowInfo> list() override;
    std::optional<WindowInfo> info(uint64_t id) override;
    std::optional<WindowInfo> frontmost() override;
    WindowInfo focus(uint64_t id, double timeout = 5) override;
    WindowInfo minimize(uint64_t id, double timeout = 5) override;
    WindowInfo maximize(uint64_t id, double timeout = 5) override;
    WindowInfo restore(uint64_t id, double timeout = 5) override;
    void close(uint64_t id, double timeout = 5) override;
    WindowInfo move(uint64_t id, int x, int y, double timeout = 5) override;
    WindowInfo resize(uint64_t id, int w, int h, double timeout = 5) override;
    /// PrintWindow; where it gives a black picture the agent reads the window's DC if no other
    /// window covers it, else throws DeviceError saying so.
    WindowCapture capture(uint64_t id) override;
    std::optional<WindowInfo> windowAt(Point p) override;
    /// Posted WM_*BUTTON* messages to the innermost child at p.
    void sendClick(uint64_t id, Point p, MouseButton button, int count = 1) override;
    /// Posted WM_KEYDOWN/WM_KEYUP to the window's focused control (named keys only).
    void sendKeys(uint64_t id, const std::vector<Key>& combo) override;
    /// Posted WM_CHAR to the window's focused control.
    void sendText(uint64_t id, const std::string& text) override;

private:
    WindowInfo act(uint64_t id, const char* action, double timeout, const std::function<bool(const WindowInfo&)>& ok,
                   const std::string& expected, nlohmann::json extra = nlohmann::json::object());

    AgentDevice& device_;
};

}  // namespace eacu
