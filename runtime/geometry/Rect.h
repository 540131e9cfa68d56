// Point, Size and Rect in physical pixels of a captured frame (origin top-left).
#pragma once
#include <algorithm>
#include <string>

namespace eacu {

/// A point in physical pixels of the frame it belongs to.
struct Point {
    int x = 0;
    int y = 0;
    bool operator==(const Point&) const = default;
};

/// An axis-aligned box in physical pixels: top-left (x, y), width w, height h.
struct Rect {
    int x = 0;
    int y = 0;
    int w = 0;
    int h = 0;

    bool operator==(const Rect&) const = default;
    bool empty() const { return w <= 0 || h <= 0; }
    int area() const { return empty() ? 0 : w * h; }
    /// Centre, rounded down.
    Point center() const { return {x + w / 2, y + h / 2}; }
    bool contains(Point p) const { return p.x >= x && p.y >= y && p.x < x + w && p.y < y + h; }
    /// Intersection; empty Rect{} when the boxes do not overlap.
    Rect intersect(const Rect& o) const {
        int x0 = std::max(x, o.x), y0 = std::max(y, o.y);
        int x1 = std::min(x + w, o.x + o.w), y1 = std::min(y + h, o.y + o.h);
        if (x1 <= x0 || y1 <= y0) return {};
        return {x0, y0, x1 - x0, y1 - y0};
    }
    /// The smallest box holding both (an empty box counts as a box too).
    Rect united(const Rect& o) const {
        int x0 = std::min(x, o.x), y0 = std::min(y, o.y);
        int x1 = std::max(x + w, o.x + o.w), y1 = std::max(y + h, o.y + o.h);
        return {x0, y0, x1 - x0, y1 - y0};
    }
    /// Intersection over union in [0, 1]; 0 for empty boxes.
    double iou(const Rect& o) const {
        int inter = intersect(o).area();
        int uni = area() + o.area() - inter;
        return uni > 0 ? double(inter) / uni : 0.0;
    }
    /// Grown by `m` pixels on every side (shrunk if negative).
    Rect grown(int m) const { return {x - m, y - m, w + 2 * m, h + 2 * m}; }
    std::string str() const {
        return "(" + std::to_string(x) + "," + std::to_string(y) + " " + std::to_string(w) + "x" +
               std::to_string(h) + ")";
    }
};

struct Size {
    int w = 0;
    int h = 0;
    bool operator==(const Size&) const = default;
};

}  // namespace eacu
