#include "device/adb/H264Decoder.h"

#include <cstring>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
}

#include "device/Device.h"

namespace eacu {

namespace {

// The offset of the first start code (00 00 01) at or after `from`, npos when none.
size_t startCode(std::string_view s, size_t from) {
    for (size_t i = from; i + 2 < s.size(); ++i) {
        if (s[i + 2] > 1) {
            i += 2;  // none of the three bytes ending at i + 2 can begin a start code
            continue;
        }
        if (s[i] == 0 && s[i + 1] == 0 && s[i + 2] == 1) return i;
    }
    return std::string_view::npos;
}

bool beginsUnit(std::string_view s) {
    return s.substr(0, 3) == std::string_view("\0\0\1", 3) || s.substr(0, 4) == std::string_view("\0\0\0\1", 4);
}

}  // namespace

H264Decoder::H264Decoder() {
    const AVCodec* codec = avcodec_find_decoder(AV_CODEC_ID_H264);
    if (!codec) throw DeviceError("this FFmpeg (libavcodec) has no H.264 decoder");
    ctx_ = avcodec_alloc_context3(codec);
    ctx_->flags |= AV_CODEC_FLAG_LOW_DELAY;
    ctx_->flags2 |= AV_CODEC_FLAG2_CHUNKS;
    ctx_->thread_count = 1;
    if (avcodec_open2(ctx_, codec, nullptr) < 0) {
        avcodec_free_context(&ctx_);
        throw DeviceError("libavcodec could not open its H.264 decoder");
    }
    frame_ = av_frame_alloc();
    packet_ = av_packet_alloc();
}

H264Decoder::~H264Decoder() {
    sws_freeContext(sws_);
    av_packet_free(&packet_);
    av_frame_free(&frame_);
    avcodec_free_context(&ctx_);
}

std::vector<cv::Mat> H264Decoder::feed(std::string_view bytes, bool tail_complete) {
    std::vector<cv::Mat> out;
    if (tail_taken_ && bytes.size() >= 4 && !beginsUnit(bytes)) damaged_ = true;
    if (!bytes.empty()) tail_taken_ = false;
    pending_.append(bytes);
    size_t first = startCode(pending_, 0);
    if (first == std::string::npos) {
        // No unit begun yet (bytes before the stream's first start code are not H.264): keep the
        // last two bytes, which may open a start code.
        if (pending_.size() > 2) pending_.erase(0, pending_.size() - 2);
        return out;
    }
    if (first > 0) pending_.erase(0, first);
    size_t last = 0;
    for (size_t at = startCode(pending_, 3); at != std::string::npos; at = startCode(pending_, at + 3)) last = at;
    if (tail_complete) {
        decode(pending_, out);
        pending_.clear();
        tail_taken_ = true;
    } else if (last > 0) {
        decode(std::string_view(pending_).substr(0, last), out);
        pending_.erase(0, last);
    }
    return out;
}

void H264Decoder::decode(std::string_view units, std::vector<cv::Mat>& out) {
    // One packet per NAL unit (CHUNKS: a packet need not hold a whole picture, and one packet
    // must not hold several).
    for (size_t at = 0; at < units.size();) {
        size_t next = startCode(units, at + 3);
        if (next == std::string_view::npos) next = units.size();
        decodeUnit(units.substr(at, next - at), out);
        at = next;
    }
}

void H264Decoder::decodeUnit(std::string_view unit, std::vector<cv::Mat>& out) {
    if (unit.empty() || av_new_packet(packet_, static_cast<int>(unit.size())) < 0) return;
    std::memcpy(packet_->data, unit.data(), unit.size());
    // A unit the decoder refuses (AVERROR_INVALIDDATA) is skipped: the next key frame repairs.
    avcodec_send_packet(ctx_, packet_);
    av_packet_unref(packet_);
    while (avcodec_receive_frame(ctx_, frame_) == 0) {
        const int w = frame_->width, h = frame_->height;
        sws_ = sws_getCachedContext(sws_, w, h, static_cast<AVPixelFormat>(frame_->format), w, h, AV_PIX_FMT_BGR24,
                                    SWS_POINT, nullptr, nullptr, nullptr);
        if (!sws_) continue;
        cv::Mat bgr(h, w, CV_8UC3);
        uint8_t* dst[4] = {bgr.data, nullptr, nullptr, nullptr};
        int stride[4] = {static_cast<int>(bgr.step), 0, 0, 0};
        sws_scale(sws_, frame_->data, frame_->linesize, 0, h, dst, stride);
        out.push_back(bgr);
        ++pictures_;
        av_frame_unref(frame_);
    }
}

}  // namespace eacu
