#include "vision/Template.h"

#include <filesystem>
#include <stdexcept>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace eacu {

Template Template::load(const std::string& path) {
    if (!std::filesystem::is_regular_file(path))
        throw std::runtime_error("cannot read image \"" + path + "\": no such file");
    cv::Mat img = cv::imread(path, cv::IMREAD_UNCHANGED);
    if (img.empty())
        throw std::runtime_error("cannot read image \"" + path +
                                 "\": not a PNG/JPEG image OpenCV can decode");
    Template t;
    t.path = path;
    t.name = std::filesystem::path(path).stem().string();
    if (img.depth() != CV_8U) img.convertTo(img, CV_8U, 1.0 / 256);
    switch (img.channels()) {
        case 1: cv::cvtColor(img, t.bgr, cv::COLOR_GRAY2BGR); break;
        case 3: t.bgr = img; break;
        case 4: {
            cv::cvtColor(img, t.bgr, cv::COLOR_BGRA2BGR);
            cv::Mat alpha;
            cv::extractChannel(img, alpha, 3);
            double minA = 0;
            cv::minMaxLoc(alpha, &minA);
            if (minA < 255) t.mask = alpha > 0;
            break;
        }
        default: throw std::runtime_error("cannot read image \"" + path + "\": unsupported channels");
    }
    return t;
}

}  // namespace eacu
