// eacu bench agent: a whole tap (capture, locate, input) through the Windows device agent
// against the same tap through the X11 device on the display the agent's screen is shown on
// (Wine's virtual desktop on Xvfb), in one run: the X11 tap is the floor.
#pragma once
#include <string>

namespace eacu {

/// Opens the agent device `agent_spec` ("agent:HOST:PORT") and the X11 device `x11_display`
/// (":N", the display showing the agent's screen). The target is the first label (a static
/// text, harmless to click) in the agent's element tree (waited for up to 10 s), cut from an agent frame as an image
/// with 4 pixels around it. Then `n` rounds, each an X11 tap then an agent tap on that image:
/// capture alone, locate (its own capture + the match), input (move + click + sync) and the
/// tap (locate + input). Prints median, p90 and mean milliseconds of each, and the ratio of the
/// medians (agent / X11). Returns 0; throws DeviceError when a device cannot be opened, and
/// std::runtime_error when the agent shows no label or a device does not find the image.
int benchAgentTap(const std::string& agent_spec, const std::string& x11_display, int n);

}  // namespace eacu
