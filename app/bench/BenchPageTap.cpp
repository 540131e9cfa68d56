#include "bench/BenchPageTap.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "Cli.h"
#include "assets/AssetLibrary.h"
#include "base/Clock.h"
#include "bench/Corpus.h"
#include "device/DeviceFactory.h"
#include "step/Session.h"
#include "vision/Locator.h"

namespace fs = std::filesystem;

namespace eacu {
namespace {

void printPageRow(const char* what, const std::vector<double>& v) {
    Percentiles p = percentiles(v);
    double sum = 0;
    for (double x : v) sum += x;
    std::printf("  %-26s median %7.2f ms   p90 %7.2f ms   mean %7.2f ms\n", what, p.median, p.p90,
                v.empty() ? 0.0 : sum / double(v.size()));
}

constexpr const char* kBenchPage = "file:///usr/share/doc/python3-doc/html/index.html";

}  // namespace

int benchPageTap(const std::string& spec, int n) {
    DeviceHandle dev = openDevice(spec.empty() ? "chromium" : spec);
    Device& device = *dev.device;
    AssetLibrary assets = AssetLibrary::loadFrom(eacuHome());
    Locator locator;
    SessionOptions so;
    so.limits = {};  // a benchmark may take more actions and time than a run's defaults
    so.display = dev.display;
    Session session(device, assets, locator, nullptr, 0, so);

    std::error_code ec;
    fs::path work = fs::temp_directory_path(ec) / ("eacu-bench-page-" + std::to_string(getpid()));
    fs::create_directories(work);
    struct Cleanup {
        fs::path dir;
        Session& s;
        ~Cleanup() {
            s.stopProcesses(1.0);
            std::error_code e;
            fs::remove_all(dir, e);
        }
    } cleanup{work, session};

    Size size = device.screenSize();
    if (Navigator* page = device.navigator()) {
        page->navigate(kBenchPage, 30);
    } else {
        double dsf = device.scaleFactor();
        // TMPDIR: Chromium's own temporary folder (its singleton socket) goes with the profile.
        session.launch({"env", "TMPDIR=" + work.string(), "chromium", "--no-sandbox", "--test-type", "--disable-gpu", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--disable-features=Translate", "--user-data-dir=" + (work / "profile").string(),
                        "--window-position=0,0",
                        "--window-size=" + std::to_string(int(size.w / dsf)) + "," + std::to_string(int(size.h / dsf)),
                        std::string("--app=") + kBenchPage});
    }
    TargetSpec heading;
    heading.text = "Parts of the documentation";
    heading.label = "text \"Parts of the documentation\"";
    session.wait(heading, 30);
    session.waitStable(10);  // the page laid out and painted (a window may still be settling)
    Frame first = device.capture();
    Match found = session.locate(heading);
    if (!found.found) throw std::runtime_error("the heading \"Parts of the documentation\" was not found");
    Rect b = found.box;
    b.x -= 4, b.y -= 4, b.w += 8, b.h += 8;
    cv::Rect r = cv::Rect(b.x, b.y, b.w, b.h) & cv::Rect(0, 0, first.width(), first.height());
    fs::path png = work / "heading.png";
    if (!cv::imwrite(png.string(), first.bgr(r))) throw std::runtime_error("cannot write " + png.string());
    TargetSpec target;
    target.image = png.string();
    target.label = "the heading's image";

    std::printf("eacu bench page: %d taps on the heading of python3-doc's index, frame %dx%d, %s\n", n, size.w,
                size.h, device.describe().c_str());
    std::vector<double> capture, locate, inject, total;
    for (int i = 0; i < n; ++i) {
        // Apart by more than a double-click interval (X11 toolkits: 400-500 ms), so that taps in
        // a row are single clicks, not a triple click that selects the heading. Not timed.
        if (i) session.sleep(0.6);
        double t0 = monotonicSeconds();
        Frame f = device.capture();
        double t1 = monotonicSeconds();
        Match m = session.locate(target);
        double t2 = monotonicSeconds();
        if (!m.found) {
            cv::imwrite((fs::temp_directory_path() / "eacu-bench-page-miss.png").string(), device.capture().bgr);
            throw std::runtime_error("the heading was not found (tap " + std::to_string(i + 1) + ", best score " + std::to_string(m.score) + "; the screen: " + (fs::temp_directory_path() / "eacu-bench-page-miss.png").string() + ")");
        }
        device.move(m.target);
        device.click(MouseButton::Left, 1);
        device.sync();
        double t3 = monotonicSeconds();
        capture.push_back((t1 - t0) * 1000);
        locate.push_back((t2 - t1) * 1000);
        inject.push_back((t3 - t2) * 1000);
        total.push_back((t3 - t1) * 1000);  // the locate captures its own frame, as a tap does
    }
    printPageRow("capture alone", capture);
    printPageRow("locate (capture+match)", locate);
    printPageRow("input (move+click+sync)", inject);
    printPageRow("tap = locate+input", total);
    return 0;
}

}  // namespace eacu
