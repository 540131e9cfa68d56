#include "device/DeviceWait.h"

#include <algorithm>
#include <cstdio>

#include "base/Clock.h"
#include "base/IoDeadline.h"

namespace eacu {

DeviceWait::DeviceWait(std::string device, std::string operation, double own_timeout, double least)
    : device_(std::move(device)), operation_(std::move(operation)), start_(monotonicSeconds()) {
    end_ = ioWaitEnd(own_timeout, &limited_by_, least);
}

double DeviceWait::slice(double max_slice) const {
    ioCheckCancel();
    double left = end_ - monotonicSeconds();
    return left <= 0 ? 0 : std::min(left, max_slice);
}

double DeviceWait::waited() const { return monotonicSeconds() - start_; }

DeviceStalled DeviceWait::expired(const std::string& what) const {
    char buf[160];
    if (limited_by_.empty())
        std::snprintf(buf, sizeof buf, " within %.1f s (its own limit)", waited());
    else
        std::snprintf(buf, sizeof buf, " within %.1f s (%s)", waited(), limited_by_.c_str());
    return DeviceStalled(device_ + ": " + operation_ + ": " + what + buf);
}

}  // namespace eacu
