// Shared by the libFuzzer targets (tests/fuzz): a scratch folder of this process, and the rule
// that a fuzzer fails only on what is a bug (a crash, a sanitizer report, an invariant broken,
// an exception the code under test does not document).
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace eacu::fuzz {

/// A folder of this fuzzing process under $TMPDIR (created once; libFuzzer's workers are
/// processes of their own).
inline const std::filesystem::path& scratch() {
    static const std::filesystem::path dir = [] {
        auto d = std::filesystem::temp_directory_path() / ("eacu-fuzz-" + std::to_string(getpid()));
        std::filesystem::create_directories(d);
        return d;
    }();
    return dir;
}

/// Writes the input to scratch()/name and returns the path.
inline std::string writeInput(const std::string& name, const uint8_t* data, size_t size) {
    std::string p = (scratch() / name).string();
    std::ofstream(p, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), std::streamsize(size));
    return p;
}

/// An invariant broke: says which, then aborts (libFuzzer saves the input as a crash).
[[noreturn]] inline void broken(const char* what) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
}

}  // namespace eacu::fuzz
