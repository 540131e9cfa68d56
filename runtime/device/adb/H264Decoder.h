// An H.264 Annex B byte stream (screenrecord --output-format=h264) decoded with FFmpeg's libavcodec.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include <opencv2/core.hpp>

struct AVCodecContext;
struct AVFrame;
struct AVPacket;
struct SwsContext;

namespace eacu {

/// Decodes an H.264 elementary stream in Annex B form (NAL units after 00 00 01 start codes, no
/// container) as it arrives, with libavcodec's h264 decoder (low delay, one thread, CHUNKS: a
/// picture is output as soon as its last slice is decoded) and libswscale for the colours.
///
/// Annex B marks where a NAL unit begins, not where it ends: a unit is complete when the next
/// start code arrives, or when the caller knows the bytes stop at a unit's end (`tail_complete`:
/// the sender paused for 30 ms, as screenrecord writes each encoded frame at once). Without that the last
/// picture of a change would wait for the next change. When bytes that follow a tail taken as
/// complete do not begin a NAL unit, that unit was cut: damaged() turns true (the pictures that
/// follow may be wrong until a key frame; the caller restarts the stream). Not thread-safe.
class H264Decoder {
public:
    /// Throws DeviceError when this FFmpeg has no H.264 decoder.
    H264Decoder();
    ~H264Decoder();
    H264Decoder(const H264Decoder&) = delete;
    H264Decoder& operator=(const H264Decoder&) = delete;

    /// Feeds the next bytes of the stream; returns the pictures they completed, each BGR
    /// (CV_8UC3) at the video's size, in order.
    std::vector<cv::Mat> feed(std::string_view bytes, bool tail_complete);
    /// True once a NAL unit taken as complete turned out cut (see the class comment).
    bool damaged() const { return damaged_; }
    /// Pictures decoded so far.
    long pictures() const { return pictures_; }

private:
    void decode(std::string_view units, std::vector<cv::Mat>& out);
    void decodeUnit(std::string_view unit, std::vector<cv::Mat>& out);
    AVCodecContext* ctx_ = nullptr;
    AVFrame* frame_ = nullptr;
    AVPacket* packet_ = nullptr;
    SwsContext* sws_ = nullptr;
    std::string pending_;       // bytes of the unit not known complete yet (from its start code)
    bool tail_taken_ = false;   // the last feed handed its tail over as complete
    bool damaged_ = false;
    long pictures_ = 0;
};

}  // namespace eacu
