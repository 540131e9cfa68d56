#include "device/Gestures.h"

#include <algorithm>
#include <cmath>


namespace eacu {

void dragPointer(Device& device, Point from, Point to, double seconds, const CancelToken& cancel) {
    device.press(MouseButton::Left);
    device.sync();
    const int steps = std::max(2, int(seconds / 0.02));
    try {
        for (int i = 1; i <= steps; ++i) {
            double f = double(i) / steps;
            device.move({int(std::lround(from.x + (to.x - from.x) * f)), int(std::lround(from.y + (to.y - from.y) * f))});
            device.sync();
            cancel.sleep(seconds / steps);
        }
    } catch (...) {
        device.release(MouseButton::Left);
        device.sync();
        throw;
    }
    device.release(MouseButton::Left);
    device.sync();
}

}  // namespace eacu
