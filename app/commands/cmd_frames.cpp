// eacu frames RUN -o DIR: a run's frames as PNG files, with an index of which step used which.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "Cli.h"
#include "commands/Commands.h"
#include "runlog/RunReader.h"

namespace fs = std::filesystem;

namespace eacu {

int cmdFrames(int argc, char** argv) {
    try {
        CliOptions o = parseCli(argc, argv, 2, {"-o", "--output"});
        auto dir = o.flag("-o") ? o.flag("-o") : o.flag("--output");
        if (!dir || o.positional.size() > 1) {
            std::fprintf(stderr, "eacu frames: expected [RUN] -o DIR (see eacu frames --help)\n");
            return 2;
        }
        RunReader log(runLogPath(o));
        int64_t id = o.positional.empty() ? log.latestRunId() : parseRunId(o.positional[0]);
        if (!log.run(id)) {
            std::fprintf(stderr, "eacu frames: no run %lld in %s\n", (long long)id, log.path().c_str());
            return 1;
        }
        fs::create_directories(*dir);
        // Which step used each frame, for the index.
        std::map<int64_t, std::string> use;
        for (const auto& s : log.steps(id)) {
            if (s.frame_before) use[*s.frame_before] += "step " + std::to_string(s.idx) + " before " + s.action + " " + s.target + "; ";
            if (s.frame_after) use[*s.frame_after] += "step " + std::to_string(s.idx) + " after " + s.action + " " + s.target + "; ";
        }
        std::ofstream index(fs::path(*dir) / "frames.tsv");
        index << "frame\tfile\twidth\theight\tscale\ttaken_at\tused_by\n";
        size_t n = 0, bytes = 0;
        for (const auto& f : log.frames(id)) {
            std::string name = "frame-" + std::to_string(f.id) + ".png";
            auto png = log.framePng(f.id);
            std::ofstream out(fs::path(*dir) / name, std::ios::binary);
            out.write(reinterpret_cast<const char*>(png.data()), std::streamsize(png.size()));
            if (!out) throw std::runtime_error("cannot write \"" + (fs::path(*dir) / name).string() + "\"");
            index << f.id << '\t' << name << '\t' << f.width << '\t' << f.height << '\t' << f.scale << '\t'
                  << std::fixed << f.taken_at << '\t' << use[f.id] << '\n';
            ++n;
            bytes += png.size();
        }
        std::printf("%zu frames of run %lld written to %s (%.1f MB; index frames.tsv)\n", n, (long long)id,
                    dir->c_str(), double(bytes) / 1e6);
        return 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "eacu frames: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu frames: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
