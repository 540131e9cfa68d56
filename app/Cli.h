// What the eacu commands share: option parsing, number and run-id arguments, the home folder,
// the device named by --display, terminal colour and message helpers.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace eacu {

class Device;
class VirtualDisplay;

/// A mistake on the command line (an unknown option, a missing or malformed value, a bad RUN):
/// the command prints it and exits 2.
struct UsageError : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

/// Options common to subcommands, parsed from argv.
/// - `db`: run-log path (--db; default RunLog::defaultPath()).
/// - `display`: --display (or its alias --device) value: a device spec (device/DeviceFactory.h:
///   ":N", "virtual[:WxH]", "image:PATH", "chromium[:WxH[@S]]", "cdp:http://HOST:PORT",
///   "adb[:SERIAL]", "agent:HOST:PORT"); "" = $DISPLAY.
/// - `wm`: --wm value: the window manager started on a virtual display ("openbox"); "" or
///   "none": none.
/// - `positional`: the remaining arguments; `passthrough`: everything after "--".
struct CliOptions {
    std::string db;
    std::string display;
    std::string wm;
    std::vector<std::string> positional;
    std::vector<std::string> passthrough;
    std::vector<std::pair<std::string, std::string>> flags;  // other --name value pairs

    /// The value of --name, if given.
    std::optional<std::string> flag(const std::string& name) const;
};

/// The run log's path: --db, else RunLog::defaultPath() ($EACU_DB, else
/// ~/.local/share/eacu/runs.db).
std::string runLogPath(const CliOptions& o);

/// The path of this eacu executable (/proc/self/exe), which serve and worker run for each
/// task. Throws std::runtime_error naming errno when it cannot be read.
std::string selfPath();

/// Parses argv[first..] of the command argv[first - 1]; `value_flags` lists the --options that
/// take a value (besides --db and --display), `bool_flags` those that take none. Throws
/// UsageError for an unknown option, naming the options the command takes
/// ("unknown option --foo (expected --db, --display, -o, --quiet; see eacu report --help)"),
/// or for a missing value.
CliOptions parseCli(int argc, char** argv, int first, const std::vector<std::string>& value_flags,
                    const std::vector<std::string>& bool_flags = {});

/// True when argv[first..] holds the option `name` before a "--" (what follows "--" belongs to
/// the script). Used for --help/-h and for `eacu run --task`.
bool hasOption(int argc, char** argv, int first, std::string_view name);

/// The value `value` of the number option `name`, parsed whole, in [lo, hi] (`range` says so
/// in words, e.g. "[0, 1]"). Throws UsageError("--threshold expects a number in
/// [0, 1], got \"abc\"").
double numberFlag(const std::string& name, const std::string& value, double lo, double hi, const char* range);
/// numberFlag for a whole number in [lo, hi]; the UsageError says "a whole number".
int integerFlag(const std::string& name, const std::string& value, int lo, int hi);

/// The folder holding assets/ and scripts/: $EACU_HOME, else PREFIX/share/eacu beside an
/// installed executable (PREFIX/bin/eacu), else the first of the executable's ancestors that has
/// assets/index.json or scripts/ (the build tree), else the data folder compiled in
/// (EACU_DATA_DIR, the install prefix's share/eacu), else the source tree the binary was built from.
std::string eacuHome();

/// A RUN argument: a positive run id. Throws UsageError("expected a run id (a
/// positive number), got \"abc\"").
int64_t parseRunId(const std::string& text);

/// Whether to colour terminal output: on when stdout is a terminal and $NO_COLOR is unset;
/// --color (if the command takes it) forces it on, --no-color off.
bool useColour(const CliOptions& o);
/// `s` wrapped in the ANSI colour `code` ("31" red, "32" green, "33" yellow) when `on`.
std::string paint(bool on, const char* code, const std::string& s);

/// The first line of a message (all of it when it has no newline).
std::string firstLine(const std::string& s);

}  // namespace eacu
