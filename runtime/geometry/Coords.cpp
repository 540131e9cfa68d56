#include "geometry/Coords.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace eacu {

static bool isInteger(double v) { return std::floor(v) == v; }

bool isFractionalPoint(double x, double y) {
    return x >= 0 && x <= 1 && y >= 0 && y <= 1 && !(isInteger(x) && isInteger(y));
}

Point resolvePoint(double x, double y, Size screen) {
    double px = x, py = y;
    if (isFractionalPoint(x, y)) {
        px = x * (screen.w - 1);
        py = y * (screen.h - 1);
    }
    Point p{int(std::lround(px)), int(std::lround(py))};
    if (p.x < 0 || p.y < 0 || p.x >= screen.w || p.y >= screen.h)
        throw std::invalid_argument("point (" + std::to_string(x) + ", " + std::to_string(y) +
                                    ") is outside the screen of " + std::to_string(screen.w) +
                                    "x" + std::to_string(screen.h) + " pixels");
    return p;
}

Rect resolveRegion(double x, double y, double w, double h, Size screen) {
    bool fractional = x >= 0 && y >= 0 && w >= 0 && h >= 0 && x <= 1 && y <= 1 && w <= 1 &&
                      h <= 1 && !(isInteger(x) && isInteger(y) && isInteger(w) && isInteger(h));
    Rect r;
    if (fractional) {
        r = {int(std::lround(x * screen.w)), int(std::lround(y * screen.h)),
             int(std::lround(w * screen.w)), int(std::lround(h * screen.h))};
    } else {
        r = {int(std::lround(x)), int(std::lround(y)), int(std::lround(w)), int(std::lround(h))};
    }
    Rect clipped = r.intersect({0, 0, screen.w, screen.h});
    if (clipped.empty())
        throw std::invalid_argument("region " + r.str() + " does not overlap the screen of " +
                                    std::to_string(screen.w) + "x" + std::to_string(screen.h));
    return clipped;
}

Point logicalToPhysical(Point l, double scale) {
    return {int(std::lround(l.x * scale)), int(std::lround(l.y * scale))};
}

Point physicalToLogical(Point p, double scale) {
    return {int(std::lround(p.x / scale)), int(std::lround(p.y / scale))};
}

}  // namespace eacu
