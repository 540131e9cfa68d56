// Input gestures made of several device events.
#pragma once
#include "base/Cancel.h"
#include "device/Device.h"

namespace eacu {

/// A left-button drag: presses at the pointer (the caller has put it at `from`), moves to `to`
/// in steps of about 20 ms spread over `seconds` (so that toolkits see motion, not a jump),
/// releases. Points in physical pixels. Throws Cancelled when `cancel` is cancelled during the
/// motion; the button is released first.
void dragPointer(Device& device, Point from, Point to, double seconds, const CancelToken& cancel);

}  // namespace eacu
