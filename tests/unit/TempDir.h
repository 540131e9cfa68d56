// A temporary folder a test makes for itself (under $TMPDIR, else /tmp) and removes at the end.
#pragma once
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace eacu::test {

class TempDir {
public:
    /// Makes a fresh folder named eacu-unit-XXXXXX. Throws std::runtime_error when it cannot.
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "eacu-unit-XXXXXX").string();
        if (!::mkdtemp(tmpl.data()))
            throw std::runtime_error("TempDir: cannot make " + tmpl + ": " + std::strerror(errno));
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::filesystem::path& path() const { return path_; }
    /// The absolute path of `rel` inside the folder.
    std::string operator/(const std::string& rel) const { return (path_ / rel).string(); }

    /// Writes `text` to `rel` (folders made as needed); returns its absolute path.
    std::string write(const std::string& rel, const std::string& text) const {
        std::filesystem::path p = path_ / rel;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p) << text;
        return p.string();
    }

private:
    std::filesystem::path path_;
};

}  // namespace eacu::test
