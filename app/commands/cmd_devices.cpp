// eacu devices: the Android devices the adb server knows, with their state explained.
#include <cstdio>

#include "Cli.h"
#include "commands/Commands.h"
#include "device/adb/AdbClient.h"

namespace eacu {

int cmdDevices(int argc, char** argv) {
    try {
        CliOptions o = parseCli(argc, argv, 2, {});
        if (!o.positional.empty()) throw UsageError("expected no arguments, got \"" + o.positional[0] + "\"");
        int port = adbServerPort();
        std::vector<AdbDeviceInfo> all = listAdbDevices(port);
        if (all.empty()) {
            std::printf("no Android device (adb server on 127.0.0.1:%d): connect one by USB with USB debugging on, "
                        "or `adb connect HOST:PORT`\n", port);
            return 0;
        }
        for (const auto& d : all) {
            std::string note = explainAdbState(d.state);
            if (note.empty() && d.state == "device") note = "use --device adb:" + d.serial;
            std::string model = d.model.empty() ? "" : "model " + d.model;
            std::printf("%-24s %-13s %-22s %s\n", d.serial.c_str(), d.state.c_str(), model.c_str(), note.c_str());
        }
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "eacu devices: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu devices: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
