#include "bench/BenchAdb.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "Cli.h"
#include "assets/AssetLibrary.h"
#include "base/Clock.h"
#include "bench/Corpus.h"
#include "device/DeviceFactory.h"
#include "device/adb/AdbDevice.h"
#include "step/Session.h"
#include "vision/Locator.h"

namespace fs = std::filesystem;

namespace eacu {
namespace {

void printAdbRow(const char* what, const std::vector<double>& v, const char* unit) {
    Percentiles p = percentiles(v);
    double sum = 0;
    for (double x : v) sum += x;
    std::printf("  %-34s median %10.1f %s   p90 %10.1f %s   mean %10.1f %s\n", what, p.median, unit, p.p90, unit,
                v.empty() ? 0.0 : sum / double(v.size()), unit);
}

// `n` whole steps on `d`: a tap on `target` (Session::tap: capture, locate, input, effect and
// settle), then the BACK key (input, settle) that shows it again. Their milliseconds are added to
// `taps` and `backs`.
void wholeSteps(Session& session, const TargetSpec& target, int n, std::vector<double>& taps,
                std::vector<double>& backs) {
    for (int i = 0; i < n; ++i) {
        double t = monotonicSeconds();
        Match m = session.tap(target);
        taps.push_back((monotonicSeconds() - t) * 1000);
        if (!m.found) throw std::runtime_error("eacu bench adb: " + target.label + " was not found (step " +
                                               std::to_string(i + 1) + ")");
        t = monotonicSeconds();
        session.key("back");
        backs.push_back((monotonicSeconds() - t) * 1000);
    }
}

// Whole steps by the tree element named `name` and by its image; prints them and their ratio to
// the raw capture's median `floor_ms`.
void benchSteps(AdbDevice& d, const std::string& name, int n, double floor_ms) {
    AssetLibrary assets = AssetLibrary::loadFrom(eacuHome());
    Locator locator;
    SessionOptions so;
    so.limits = {};  // a benchmark may take more actions and time than a run's defaults
    Session session(d, assets, locator, nullptr, 0, so);
    TargetSpec tree;
    tree.a11y = A11yQuery{};
    tree.a11y->name = name;
    tree.label = "{name=\"" + name + "\"}";
    Match found = session.wait(tree, 10);
    Frame frame = d.capture();
    cv::Rect r = cv::Rect(found.box.x, found.box.y, found.box.w, found.box.h) & cv::Rect(0, 0, frame.width(), frame.height());
    if (r.area() == 0) throw std::runtime_error("eacu bench adb: " + tree.label + " has no bounds on the screen");
    std::error_code ec;
    fs::path png = fs::temp_directory_path(ec) / ("eacu-bench-adb-" + std::to_string(getpid()) + ".png");
    if (!cv::imwrite(png.string(), frame.bgr(r))) throw std::runtime_error("eacu bench adb: cannot write " + png.string());
    struct Remove {
        fs::path p;
        ~Remove() {
            std::error_code e;
            fs::remove(p, e);
        }
    } remove{png};
    TargetSpec image;
    image.image = png.string();
    image.label = "the image of " + tree.label;
    std::vector<double> tree_ms, image_ms, back_ms;
    wholeSteps(session, tree, n, tree_ms, back_ms);
    wholeSteps(session, image, n, image_ms, back_ms);
    std::printf("  whole steps on %s (capture, locate, input, effect and settle), %d each:\n", tree.label.c_str(), n);
    printAdbRow("step: tap it by the tree", tree_ms, "ms");
    printAdbRow("step: tap it by its image", image_ms, "ms");
    printAdbRow("step: key back", back_ms, "ms");
    std::printf("  ratio to the raw capture floor (median %.1f ms): tree step %.2fx, image step %.2fx, key step %.2fx\n",
                floor_ms, percentiles(tree_ms).median / floor_ms, percentiles(image_ms).median / floor_ms,
                percentiles(back_ms).median / floor_ms);
}

}  // namespace

int benchAdb(const std::string& spec, int n, const std::string& tap_name) {
    DeviceSpec s = parseDeviceSpec(spec.empty() ? "adb" : spec);
    if (s.kind != DeviceSpec::Kind::Adb)
        throw std::invalid_argument("eacu bench adb: expected --device adb[:SERIAL], got \"" + spec + "\"");
    std::unique_ptr<AdbDevice> d = AdbDevice::open(s.serial);
    std::printf("eacu bench adb: %s, %d rounds\n", d->describe().c_str(), n);
    const AdbClient& c = d->client();
    std::vector<double> raw_ms, raw_bytes, png_ms, png_bytes, shell_ms, process_ms;
    for (int i = 0; i < n; ++i) {
        double t = monotonicSeconds();
        std::string raw = c.exec("screencap", 30);
        raw_ms.push_back((monotonicSeconds() - t) * 1000);
        raw_bytes.push_back(double(raw.size()));
        t = monotonicSeconds();
        std::string png = c.exec("screencap -p", 60);
        png_ms.push_back((monotonicSeconds() - t) * 1000);
        png_bytes.push_back(double(png.size()));
    }
    Point centre{d->screenSize().w / 2, d->screenSize().h / 2};
    std::string tap = "input tap " + std::to_string(centre.x) + " " + std::to_string(centre.y);
    d->move(centre);
    for (int i = 0; i < n; ++i) {
        double t = monotonicSeconds();
        d->click(MouseButton::Left);
        shell_ms.push_back((monotonicSeconds() - t) * 1000);
        t = monotonicSeconds();
        AdbShellResult r = c.shell(tap, 30);
        process_ms.push_back((monotonicSeconds() - t) * 1000);
        if (r.exit_code != 0) throw DeviceError("adb " + c.serial() + ": `" + tap + "` exited " + std::to_string(r.exit_code));
    }
    printAdbRow("capture raw (exec:screencap)", raw_ms, "ms");
    printAdbRow("  bytes per raw frame", raw_bytes, "B ");
    printAdbRow("capture PNG (screencap -p)", png_ms, "ms");
    printAdbRow("  bytes per PNG frame", png_bytes, "B ");
    printAdbRow("tap through the long-lived shell", shell_ms, "ms");
    printAdbRow("tap, one shell connection each", process_ms, "ms");
    if (tap_name.empty())
        std::printf("  (whole steps: give --tap NAME, an element of the tree that BACK brings back)\n");
    else
        benchSteps(*d, tap_name, n, percentiles(raw_ms).median);
    return 0;
}

}  // namespace eacu
