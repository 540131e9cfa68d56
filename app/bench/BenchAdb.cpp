#include "bench/BenchAdb.h"

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "base/Clock.h"
#include "bench/Corpus.h"
#include "device/DeviceFactory.h"
#include "device/adb/AdbDevice.h"

namespace eacu {
namespace {

void printAdbRow(const char* what, const std::vector<double>& v, const char* unit) {
    Percentiles p = percentiles(v);
    double sum = 0;
    for (double x : v) sum += x;
    std::printf("  %-34s median %10.1f %s   p90 %10.1f %s   mean %10.1f %s\n", what, p.median, unit, p.p90, unit,
                v.empty() ? 0.0 : sum / double(v.size()), unit);
}

}  // namespace

int benchAdb(const std::string& spec, int n) {
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
    return 0;
}

}  // namespace eacu
