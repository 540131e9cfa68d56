// The eacu command line: subcommands and their shared option parsing.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace eacu {

class Device;
class VirtualDisplay;

/// Options common to subcommands, parsed from argv.
/// - `db`: run-log path (--db; default RunLog::defaultPath()).
/// - `display`: --display value: ":N", "virtual", "virtual:WxH" or "image:PATH"; "" = $DISPLAY.
/// - `positional`: the remaining arguments; `passthrough`: everything after "--".
struct CliOptions {
    std::string db;
    std::string display;
    std::vector<std::string> positional;
    std::vector<std::string> passthrough;
    std::vector<std::pair<std::string, std::string>> flags;  // other --name value pairs

    /// The value of --name, if given.
    std::optional<std::string> flag(const std::string& name) const;
};

/// Parses argv[first..]; `value_flags` lists the --options that take a value (besides --db and
/// --display). Throws std::invalid_argument for an unknown option or a missing value.
CliOptions parseCli(int argc, char** argv, int first, const std::vector<std::string>& value_flags,
                    const std::vector<std::string>& bool_flags = {});

/// An open device and, for --display virtual, the Xvfb that backs it. Members are destroyed
/// in reverse order: the X connection closes before Xvfb stops. Users include the headers of
/// Device and VirtualDisplay.
struct OpenDevice {
    std::unique_ptr<VirtualDisplay> virtual_display;
    std::unique_ptr<Device> device;
};

/// Opens the device named by --display. For a virtual or X display it also sets $DISPLAY in
/// this process, so programs started by `launch` appear on it. Throws DeviceError/runtime_error.
OpenDevice openDevice(const std::string& display);

/// The value `value` of the number option `name`, parsed whole, in [lo, hi] (`range` says so
/// in words, e.g. "[0, 1]"). Throws std::invalid_argument("--threshold expects a number in
/// [0, 1], got \"abc\"").
double numberFlag(const std::string& name, const std::string& value, double lo, double hi, const char* range);
/// numberFlag for a whole number in [lo, hi]; the error says "a whole number".
int integerFlag(const std::string& name, const std::string& value, int lo, int hi);

/// The folder holding assets/ and scripts/: $EACU_HOME, else the first of the executable's
/// ancestors that has assets/index.json or scripts/, else the source tree the binary was built
/// from.
std::string eacuHome();

int cmdRun(int argc, char** argv);
int cmdRuns(int argc, char** argv);
int cmdShow(int argc, char** argv);
int cmdBench(int argc, char** argv);
int cmdLocate(int argc, char** argv);
/// A RUN argument: a positive run id. Throws std::invalid_argument("expected a run id (a
/// positive number), got \"abc\"").
int64_t parseRunId(const std::string& text);

int cmdReport(int argc, char** argv);
int cmdReplay(int argc, char** argv);
int cmdFrames(int argc, char** argv);
int cmdRepl(int argc, char** argv);

}  // namespace eacu
