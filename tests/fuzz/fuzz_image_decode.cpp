// Reference images as users and asset indexes point at them: any bytes in a file named .png
// (and .jpg), loaded as a template (OpenCV's decoders, our pHYs reader for the device scale
// factor, channel handling). Invariants: a loaded template has pixels, 3 channels, 8 bits, a
// mask of its size when it has one, and a positive scale. A file that is not an image is a
// std::runtime_error saying so.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "FuzzCommon.h"
#include "vision/Template.h"

using namespace eacu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    for (const char* name : {"ref.png", "ref.jpg"}) {
        std::string path = fuzz::writeInput(name, data, size);
        try {
            Template t = Template::load(path);
            if (t.bgr.empty() || t.bgr.type() != CV_8UC3) fuzz::broken("a loaded template is not 8-bit BGR");
            if (!t.mask.empty() && t.mask.size() != t.bgr.size()) fuzz::broken("a template's mask differs in size");
            if (!(t.scale > 0)) fuzz::broken("a template's scale is not positive");
        } catch (const std::runtime_error&) {
        }
        (void)pngScale(path);
    }
    return 0;
}
