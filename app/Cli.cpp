#include "Cli.h"

#include <climits>
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <unistd.h>

#include "device/image/ImageDevice.h"
#include "device/virtual/VirtualDisplay.h"
#include "device/x11/X11Device.h"
#include "runlog/RunLog.h"

namespace fs = std::filesystem;

namespace eacu {

std::optional<std::string> CliOptions::flag(const std::string& name) const {
    for (const auto& [k, v] : flags)
        if (k == name) return v;
    return std::nullopt;
}

namespace {

// "eacu report": the command whose options start at argv[first].
std::string commandName(char** argv, int first) {
    return first > 1 ? std::string("eacu ") + argv[first - 1] : std::string("eacu");
}

}  // namespace

std::string runLogPath(const CliOptions& o) { return o.db.empty() ? RunLog::defaultPath() : o.db; }

CliOptions parseCli(int argc, char** argv, int first, const std::vector<std::string>& value_flags,
                    const std::vector<std::string>& bool_flags) {
    CliOptions o;
    for (int i = first; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--") {
            o.passthrough.assign(argv + i + 1, argv + argc);
            break;
        }
        if (a.rfind("--", 0) == 0 || (a.size() == 2 && a[0] == '-' && a[1] != '-')) {
            std::string name = a, value;
            bool has_value = false;
            if (auto eq = a.find('='); eq != std::string::npos) {
                name = a.substr(0, eq);
                value = a.substr(eq + 1);
                has_value = true;
            }
            bool takes_value = name == "--db" || name == "--display" || name == "--device" || name == "--wm" ||
                               std::find(value_flags.begin(), value_flags.end(), name) != value_flags.end();
            bool is_bool = std::find(bool_flags.begin(), bool_flags.end(), name) != bool_flags.end();
            if (!takes_value && !is_bool) {
                std::string expected = "--db, --display (--device), --wm";
                for (const auto& f : value_flags) expected += ", " + f;
                for (const auto& f : bool_flags) expected += ", " + f;
                throw UsageError("unknown option " + name + " (expected " + expected + "; see " +
                                            commandName(argv, first) + " --help)");
            }
            if (takes_value && !has_value) {
                if (i + 1 >= argc)
                    throw UsageError("option " + name + " needs a value (see " + commandName(argv, first) +
                                                " --help)");
                value = argv[++i];
            }
            if (name == "--db") o.db = value;
            else if (name == "--display" || name == "--device") o.display = value;  // one spec, two names
            else if (name == "--wm") o.wm = value;
            else o.flags.emplace_back(name, is_bool ? "1" : value);
            continue;
        }
        o.positional.push_back(a);
    }
    return o;
}

bool hasOption(int argc, char** argv, int first, std::string_view name) {
    for (int i = first; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--") return false;
        if (argv[i] == name) return true;
    }
    return false;
}

double numberFlag(const std::string& name, const std::string& value, double lo, double hi, const char* range) {
    size_t end = 0;
    double d = 0;
    try {
        d = std::stod(value, &end);
    } catch (const std::exception&) {
        end = 0;
    }
    if (end == 0 || end != value.size() || !(d >= lo && d <= hi))
        throw UsageError(name + " expects a number in " + range + ", got \"" + value + "\"");
    return d;
}

namespace {

// `text` parsed whole as a decimal integer into `v`; false when it is not one (or overflows).
bool parseWhole(const std::string& text, long long& v) {
    size_t end = 0;
    try {
        v = std::stoll(text, &end);
    } catch (const std::exception&) {
        return false;
    }
    return end != 0 && end == text.size();
}

}  // namespace

int64_t parseRunId(const std::string& text) {
    long long v = 0;
    if (!parseWhole(text, v) || v <= 0)
        throw UsageError("expected a run id (a positive number), got \"" + text + "\"");
    return v;
}

int integerFlag(const std::string& name, const std::string& value, int lo, int hi) {
    long long v = 0;
    if (!parseWhole(value, v) || v < lo || v > hi)
        throw UsageError(name + " expects a whole number in [" + std::to_string(lo) + ", " +
                                    std::to_string(hi) + "], got \"" + value + "\"");
    return int(v);
}


bool useColour(const CliOptions& o) {
    if (o.flag("--no-color")) return false;
    return (isatty(1) && !std::getenv("NO_COLOR")) || o.flag("--color");
}

std::string paint(bool on, const char* code, const std::string& s) {
    return on ? std::string("\033[") + code + "m" + s + "\033[0m" : s;
}

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

static bool looksLikeHome(const fs::path& p) {
    return fs::exists(p / "assets" / "index.json") || fs::is_directory(p / "scripts");
}

std::string eacuHome() {
    if (const char* h = std::getenv("EACU_HOME"); h && *h) return h;
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        // An installed eacu (PREFIX/bin/eacu, also under a DESTDIR or a moved prefix):
        // PREFIX/share/eacu.
        fs::path installed = exe.parent_path().parent_path() / "share" / "eacu";
        if (looksLikeHome(installed)) return installed.string();
        // The build tree: the source folder above it.
        for (fs::path p = exe.parent_path(); !p.empty() && p != p.root_path(); p = p.parent_path())
            if (looksLikeHome(p)) return p.string();
    }
#ifdef EACU_DATA_DIR
    if (looksLikeHome(EACU_DATA_DIR)) return EACU_DATA_DIR;
#endif
#ifdef EACU_SOURCE_DIR
    return EACU_SOURCE_DIR;
#else
    return fs::current_path().string();
#endif
}

std::string selfPath() {
    char buf[PATH_MAX];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) throw std::runtime_error(std::string("cannot read /proc/self/exe: ") + std::strerror(errno));
    return std::string(buf, size_t(n));
}

}  // namespace eacu
