#include "geometry/ModelImage.h"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <array>
#include <cmath>
#include <stdexcept>

namespace eacu {

namespace {

std::string num(double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%g", v);
    return b;
}

void checkRange(double v, double lo, double hi, const char* what) {
    if (!(v >= lo && v <= hi))
        throw std::out_of_range(std::string(what) + " " + num(v) + " is outside [" + num(lo) + ", " +
                                num(hi) + "]");
}

int clampi(long v, int lo, int hi) { return int(std::max<long>(lo, std::min<long>(hi, v))); }

}  // namespace

ModelImagePolicy ModelImagePolicy::parse(const std::string& name) {
    if (name == "none") return none();
    if (name == "budget" || name == "anthropic") return anthropic();
    if (name == "xga") return xga();
    throw std::invalid_argument("model image policy: expected none|budget|anthropic|xga, got \"" + name +
                                "\"");
}

Size modelImageSize(Size p, const ModelImagePolicy& pol) {
    if (p.w <= 0 || p.h <= 0) return {std::max(1, p.w), std::max(1, p.h)};
    switch (pol.kind) {
    case ModelImagePolicy::Kind::None:
        return p;
    case ModelImagePolicy::Kind::Xga: {
        // computer-use-demo tools/computer.py scale_coordinates(): first target whose aspect
        // ratio is within 0.02 of the screen's; used only when it is narrower than the screen.
        static const Size targets[] = {{1024, 768}, {1280, 800}, {1366, 768}};
        double ratio = double(p.w) / p.h;
        for (const Size& t : targets) {
            if (std::abs(double(t.w) / t.h - ratio) < 0.02) {
                if (t.w < p.w) return t;
                break;
            }
        }
        return p;
    }
    case ModelImagePolicy::Kind::Budget: {
        double s = 1.0;
        long long_edge = std::max(p.w, p.h);
        if (pol.max_long_edge > 0 && long_edge > pol.max_long_edge) s = double(pol.max_long_edge) / long_edge;
        if (pol.max_pixels > 0 && double(p.w) * p.h * s * s > double(pol.max_pixels))
            s = std::sqrt(double(pol.max_pixels) / (double(p.w) * p.h));
        auto fits = [&](int w, int h) {
            if (pol.max_long_edge > 0 && std::max(w, h) > pol.max_long_edge) return false;
            if (pol.max_pixels > 0 && long(w) * h > pol.max_pixels) return false;
            if (pol.max_tiles > 0 && long((w + 27) / 28) * ((h + 27) / 28) > pol.max_tiles) return false;
            return true;
        };
        int w = std::max(1, int(std::floor(p.w * s))), h = std::max(1, int(std::floor(p.h * s)));
        // Shrink in small steps until every limit holds (the tile count is not continuous).
        while (!fits(w, h) && (w > 1 || h > 1)) {
            s *= 0.995;
            w = std::max(1, int(std::floor(p.w * s)));
            h = std::max(1, int(std::floor(p.h * s)));
        }
        return {w, h};
    }
    }
    return p;
}

ModelImage makeModelImage(const cv::Mat& bgr, const ModelImagePolicy& policy, double dpi_scale) {
    if (bgr.empty()) throw std::invalid_argument("makeModelImage: empty image");
    ModelImage m;
    Size phys{bgr.cols, bgr.rows};
    Size sz = modelImageSize(phys, policy);
    m.transform.physical = phys;
    m.transform.image = sz;
    m.transform.dpi_scale = dpi_scale > 0 ? dpi_scale : 1.0;
    m.transform.policy = policy.kind == ModelImagePolicy::Kind::None    ? "none"
                         : policy.kind == ModelImagePolicy::Kind::Xga ? "xga"
                                                                        : "budget";
    if (sz == phys)
        m.image = bgr;
    else
        cv::resize(bgr, m.image, cv::Size(sz.w, sz.h), 0, 0,
                   sz.w < phys.w ? cv::INTER_AREA : cv::INTER_LINEAR);
    return m;
}

Point ModelImageTransform::imageToPhysical(double x, double y) const {
    checkRange(x, 0, image.w, "model-image x");
    checkRange(y, 0, image.h, "model-image y");
    long px = std::lround(x / sx()), py = std::lround(y / sy());
    return {clampi(px, 0, physical.w - 1), clampi(py, 0, physical.h - 1)};
}

Point ModelImageTransform::physicalToImage(Point p) const {
    return {int(std::lround(p.x * sx())), int(std::lround(p.y * sy()))};
}

Rect ModelImageTransform::imageRectToPhysical(const Rect& r) const {
    long x0 = std::lround(r.x / sx()), y0 = std::lround(r.y / sy());
    long x1 = std::lround((r.x + r.w) / sx()), y1 = std::lround((r.y + r.h) / sy());
    return {int(x0), int(y0), int(x1 - x0), int(y1 - y0)};
}

Rect ModelImageTransform::physicalRectToImage(const Rect& r) const {
    long x0 = std::lround(r.x * sx()), y0 = std::lround(r.y * sy());
    long x1 = std::lround((r.x + r.w) * sx()), y1 = std::lround((r.y + r.h) * sy());
    return {int(x0), int(y0), int(x1 - x0), int(y1 - y0)};
}

Point ModelImageTransform::fractionToPhysical(double fx, double fy) const {
    checkRange(fx, 0, 1, "fraction x");
    checkRange(fy, 0, 1, "fraction y");
    return {clampi(long(std::floor(fx * physical.w)), 0, physical.w - 1),
            clampi(long(std::floor(fy * physical.h)), 0, physical.h - 1)};
}

Point ModelImageTransform::permilleToPhysical(double x, double y) const {
    checkRange(x, 0, 1000, "per-mille x");
    checkRange(y, 0, 1000, "per-mille y");
    return fractionToPhysical(x / 1000.0, y / 1000.0);
}

Point ModelImageTransform::physicalToPermille(Point p) const {
    return {int(std::lround(1000.0 * p.x / std::max(1, physical.w))),
            int(std::lround(1000.0 * p.y / std::max(1, physical.h)))};
}

Rect ModelImageTransform::normBoxToPhysical(double x1, double y1, double x2, double y2) const {
    checkRange(x1, 0, 1, "bbox x1");
    checkRange(y1, 0, 1, "bbox y1");
    checkRange(x2, 0, 1, "bbox x2");
    checkRange(y2, 0, 1, "bbox y2");
    if (x2 < x1 || y2 < y1)
        throw std::invalid_argument("bbox [" + num(x1) + ", " + num(y1) + ", " + num(x2) + ", " + num(y2) +
                                    "]: expected x1 <= x2 and y1 <= y2");
    long a = std::lround(x1 * physical.w), b = std::lround(y1 * physical.h);
    long c = std::lround(x2 * physical.w), d = std::lround(y2 * physical.h);
    return {int(a), int(b), int(c - a), int(d - b)};
}

Rect ModelImageTransform::permilleBoxToPhysical(double x1, double y1, double x2, double y2) const {
    for (double v : {x1, y1, x2, y2}) checkRange(v, 0, 1000, "per-mille bbox value");
    return normBoxToPhysical(x1 / 1000.0, y1 / 1000.0, x2 / 1000.0, y2 / 1000.0);
}

std::array<double, 4> ModelImageTransform::physicalToNormBox(const Rect& r) const {
    double w = std::max(1, physical.w), h = std::max(1, physical.h);
    return {r.x / w, r.y / h, (r.x + r.w) / w, (r.y + r.h) / h};
}

Point ModelImageTransform::logicalToPhysical(Point l) const {
    return {int(std::lround(l.x * dpi_scale)), int(std::lround(l.y * dpi_scale))};
}

Point ModelImageTransform::physicalToLogical(Point p) const {
    return {int(std::lround(p.x / dpi_scale)), int(std::lround(p.y / dpi_scale))};
}

nlohmann::json ModelImageTransform::toJson() const {
    return {{"policy", policy},           {"physical", {physical.w, physical.h}},
            {"image", {image.w, image.h}}, {"sx", sx()},
            {"sy", sy()},                  {"dpi_scale", dpi_scale}};
}

std::string encodeImage(const cv::Mat& bgr, const std::string& format, int quality) {
    std::vector<uchar> buf;
    bool ok;
    if (format == "jpeg" || format == "jpg")
        ok = cv::imencode(".jpg", bgr, buf, {cv::IMWRITE_JPEG_QUALITY, quality});
    else if (format == "png")
        ok = cv::imencode(".png", bgr, buf, {cv::IMWRITE_PNG_COMPRESSION, 3});
    else
        throw std::invalid_argument("encodeImage: expected format png|jpeg, got \"" + format + "\"");
    if (!ok || buf.empty()) throw std::runtime_error("encodeImage: OpenCV could not encode a " + format);
    return std::string(buf.begin(), buf.end());
}

}  // namespace eacu
