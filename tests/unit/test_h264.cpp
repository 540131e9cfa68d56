// The adb device's video stream: H264Decoder on a real H.264 stream (encoded by the ffmpeg
// program, as the stand-in's screenrecord does) fed whole, in pieces and cut; streamContent's
// mapping of screenrecord's picture back to the screen.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "device/adb/AdbScreenStream.h"
#include "device/adb/H264Decoder.h"

using namespace eacu;

namespace {
// 12 pictures of FFmpeg's test pattern, 176x144, as libx264 encodes them for a low-latency stream.
std::string testStream() {
    FILE* p = popen("ffmpeg -hide_banner -loglevel error -f lavfi -i testsrc=size=176x144:rate=10 -frames:v 12 "
                    "-c:v libx264 -preset ultrafast -tune zerolatency -bf 0 -f h264 - 2>/dev/null",
                    "r");
    REQUIRE(p);
    std::string out;
    char buf[65536];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    REQUIRE(pclose(p) == 0);
    return out;
}
}  // namespace

TEST_CASE("H264Decoder: a stream fed whole, in pieces, and cut", "[adb]") {
    const std::string h264 = testStream();
    REQUIRE(h264.size() > 1000);
    SECTION("whole, its end known") {
        H264Decoder d;
        auto pictures = d.feed(h264, true);
        REQUIRE(pictures.size() == 12);
        CHECK(pictures[0].cols == 176);
        CHECK(pictures[0].rows == 144);
        CHECK(pictures[0].type() == CV_8UC3);
        CHECK(cv::mean(pictures[5])[0] > 10);  // the pattern, not black
        CHECK_FALSE(d.damaged());
    }
    SECTION("in pieces of 1000 bytes: each picture once its next start code came, the last at the known end") {
        H264Decoder d;
        size_t got = 0;
        for (size_t i = 0; i < h264.size(); i += 1000) got += d.feed(std::string_view(h264).substr(i, 1000), false).size();
        CHECK(got == 11);
        CHECK(d.feed("", true).size() == 1);
        CHECK(d.pictures() == 12);
        CHECK_FALSE(d.damaged());
    }
    SECTION("a tail taken as complete that was cut") {
        size_t last = h264.rfind(std::string("\0\0\1", 3));
        REQUIRE(last != std::string::npos);
        H264Decoder d;
        d.feed(std::string_view(h264).substr(0, last + 8), true);
        CHECK_FALSE(d.damaged());
        d.feed(std::string_view(h264).substr(last + 8), false);
        CHECK(d.damaged());
    }
}

TEST_CASE("streamContent: screenrecord's picture inside its video", "[adb]") {
    // 1080x2400 in a video of 1072x2400 (sides rounded down to 16): full width, 2382 rows, centred.
    CHECK(streamContent({1072, 2400}, {1080, 2400}) == Rect{0, 9, 1072, 2382});
    // The same aspect: all of it.
    CHECK(streamContent({528, 1200}, {528, 1200}) == Rect{0, 0, 528, 1200});
    // A landscape screen in a portrait video: black above and below.
    CHECK(streamContent({720, 1280}, {2400, 1080}) == Rect{0, 478, 720, 324});
}
