#include "ScriptFile.h"

#include <fstream>

namespace fs = std::filesystem;

namespace eacu {

ScriptFile scriptFileOf(const CliOptions& o) {
    auto file = o.flag("-o") ? o.flag("-o") : o.flag("--output");
    if (!file) throw UsageError("expected -o FILE.lua");
    ScriptFile f;
    f.script = fs::absolute(*file);
    f.assets_ref = f.script.stem().string() + "_assets";
    f.assets_dir = f.script.parent_path() / f.assets_ref;
    if (auto a = o.flag("--assets")) {
        f.assets_dir = fs::absolute(*a);
        f.assets_ref = fs::relative(f.assets_dir, f.script.parent_path()).string();
    }
    return f;
}

WrittenScript writeScriptFile(const ScriptFile& f, const std::vector<ScriptItem>& items, const Locator& locator,
                              std::vector<std::string> header) {
    ScriptOptions opts;
    opts.assets_dir = f.assets_dir.string();
    opts.assets_ref = f.assets_ref;
    opts.header = std::move(header);
    WrittenScript w = writeScript(items, locator, opts);
    std::ofstream out(f.script, std::ios::trunc);
    out << w.lua;
    out.close();
    if (!out) throw std::runtime_error("cannot write \"" + f.script.string() + "\"");
    return w;
}

}  // namespace eacu
