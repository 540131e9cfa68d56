// Where `eacu record` and `eacu script` write a script and its image crops, and the writing.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "Cli.h"
#include "recorder/RecordedScript.h"
#include "vision/Locator.h"

namespace eacu {

/// A script to write: `script` (absolute), `assets_dir` the folder its image crops go in and
/// `assets_ref` how the script names that folder (relative to the script's folder).
struct ScriptFile {
    std::filesystem::path script;
    std::filesystem::path assets_dir;
    std::string assets_ref;
};

/// From -o FILE.lua (or --output) and --assets DIR (default: FILE_assets beside the script).
/// Throws UsageError when -o is missing.
ScriptFile scriptFileOf(const CliOptions& o);

/// Writes `items` (writeScript, with `header` as its first comment lines and the crops saved in
/// f.assets_dir) to f.script and returns what was written. Throws std::runtime_error when the
/// script or an image cannot be written.
WrittenScript writeScriptFile(const ScriptFile& f, const std::vector<ScriptItem>& items, const Locator& locator,
                              std::vector<std::string> header);

}  // namespace eacu
