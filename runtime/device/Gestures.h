// Input gestures made of several device events.
#pragma once
#include "device/Device.h"

namespace eacu {

/// A left-button drag: presses at the pointer (the caller has put it at `from`), moves to `to`
/// in steps of about 20 ms spread over `seconds` (so that toolkits see motion, not a jump),
/// releases. Points in physical pixels. Throws std::runtime_error("cancelled") when a
/// cancellation is requested during the motion (task/Cancel.h); the button is released first.
void dragPointer(Device& device, Point from, Point to, double seconds);

}  // namespace eacu
