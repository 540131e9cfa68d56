#include "vision/CursorMark.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include <opencv2/freetype.hpp>
#include <opencv2/imgproc.hpp>

namespace eacu {
namespace {

const cv::Scalar kRed(48, 59, 255);  // #ff3b30 as BGR
const char* kLabel = "鼠标指针";

// A FreeType renderer with a CJK font, made once per thread (loading a font is slow); null when
// no such font is installed.
cv::freetype::FreeType2* cjkFont() {
    thread_local std::unique_ptr<cv::Ptr<cv::freetype::FreeType2>> font;
    if (!font) {
        font = std::make_unique<cv::Ptr<cv::freetype::FreeType2>>();
        for (const char* path : {"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
                                 "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
                                 "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"}) {
            if (!std::filesystem::exists(path)) continue;
            try {
                auto f = cv::freetype::createFreeType2();
                f->loadFontData(path, 0);
                *font = f;
                break;
            } catch (const cv::Exception&) {
                // Not a font FreeType reads: try the next one.
            }
        }
    }
    return font->get();
}

}  // namespace

void drawCursorMark(cv::Mat& bgr, Point at) {
    if (bgr.empty() || bgr.type() != CV_8UC3)
        throw std::invalid_argument("drawCursorMark: expected a non-empty 8-bit BGR image");
    cv::Point p(std::clamp(at.x, 0, bgr.cols - 1), std::clamp(at.y, 0, bgr.rows - 1));
    cv::circle(bgr, p, 12, kRed, 4, cv::LINE_AA);
    // The tail 80 px up-left, or down/right when that would leave the image.
    int dx = p.x >= 80 ? -80 : 80, dy = p.y >= 80 ? -80 : 80;
    cv::Point tail(p.x + dx, p.y + dy);
    tail.x = std::clamp(tail.x, 0, bgr.cols - 1);
    tail.y = std::clamp(tail.y, 0, bgr.rows - 1);
    // The arrow ends at the circle's edge, so the point itself stays visible.
    cv::Point2d dir(p.x - tail.x, p.y - tail.y);
    double len = std::max(1.0, std::hypot(dir.x, dir.y));
    cv::Point tip(int(p.x - dir.x / len * 14), int(p.y - dir.y / len * 14));
    if (len > 20) cv::arrowedLine(bgr, tail, tip, kRed, 3, cv::LINE_AA, 0, 16.0 / len);
    // The label beside the tail, on the side away from the point, kept inside the image.
    const int height = 20;
    cv::freetype::FreeType2* font = cjkFont();
    int baseline = 0;
    cv::Size size = font ? font->getTextSize(kLabel, height, -1, &baseline)
                         : cv::getTextSize("mouse pointer", cv::FONT_HERSHEY_SIMPLEX, 0.6, 2, &baseline);
    int x = dx < 0 ? tail.x - size.width : tail.x;
    int y = dy < 0 ? tail.y - 4 : tail.y + size.height + 4;
    x = std::clamp(x, 0, std::max(0, bgr.cols - size.width));
    y = std::clamp(y, size.height, std::max(size.height, bgr.rows - 1));
    if (font) font->putText(bgr, kLabel, {x, y}, height, kRed, -1, cv::LINE_AA, true);
    else cv::putText(bgr, "mouse pointer", {x, y}, cv::FONT_HERSHEY_SIMPLEX, 0.6, kRed, 2, cv::LINE_AA);
}

}  // namespace eacu
