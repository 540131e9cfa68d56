// The reference-image library: assets/index.json and scripts/<app>/images/index.json.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vision/Template.h"

namespace eacu {

/// One named reference image. `path` is absolute. `threshold` overrides the default similarity
/// threshold; `offset` moves the input point from the match centre (template pixels);
/// `scale` is the device scale factor the image was captured at (unset: the PNG's pHYs, else 1).
struct Asset {
    std::string name;            // as written in the index, e.g. "btn_1"
    std::string app;             // "" for assets/index.json, else the scripts/<app> folder name
    std::string path;
    std::vector<std::string> aliases;
    std::optional<double> threshold;
    Point offset;
    std::optional<double> scale;
    std::string description;

    /// "calculator.btn_1", or the bare name for a global asset.
    std::string qualifiedName() const { return app.empty() ? name : app + "." + name; }
};

/// Thrown when a target string names nothing; the message lists what was tried.
struct TargetNotFound : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// Index of named reference images with aliases, loaded from JSON indexes in seed 002's format:
/// `{"version": "1.0", "<category>": {"<name>": {"path": "...", "aliases": [...],
/// "threshold": 0.9, "offset": [dx, dy], "scale": 1.0, "description": "..."}}}`; entries may
/// also stand at the top level. Paths are relative to the index file's folder.
/// Not thread-safe (the decoded-image cache is unguarded): use from one thread.
class AssetLibrary {
public:
    /// Loads `root`/assets/index.json and every `root`/scripts/<app>/images/index.json that
    /// exists. Throws std::runtime_error naming the file for malformed JSON or entries.
    static AssetLibrary loadFrom(const std::string& root);

    /// Adds the entries of one index file; `app` is "" for the shared index. Throws
    /// std::runtime_error("<file>: ...") on malformed JSON, a missing "path", or a name/alias
    /// defined twice in the same scope.
    void loadIndex(const std::string& index_path, const std::string& app);

    /// The asset called `name`: a qualified name ("calculator.btn_1"), a bare name or an alias
    /// that is unique across apps (the global index wins over apps). nullptr if none. Throws
    /// TargetNotFound when a bare name is ambiguous, listing the candidates.
    const Asset* find(const std::string& name) const;

    /// Resolves a target string to a template: an asset name or alias, then an image path
    /// relative to `script_dir`, then relative to the working directory (".png" may be left
    /// out). The template carries the asset's threshold, offset and scale. Decoded images are
    /// cached by path. Throws TargetNotFound listing everything tried, or std::runtime_error
    /// when the file exists but is not an image.
    Template resolve(const std::string& target, const std::string& script_dir) const;

    /// resolve(), plus the variants of the image: files beside it named `<stem>_v2.png`,
    /// `<stem>_v3.png`, ... (seed 002: any one matching is a hit), each with the same
    /// threshold, offset and scale. The first element is resolve()'s template.
    std::vector<Template> resolveVariants(const std::string& target, const std::string& script_dir) const;

    /// Loads an image file as a template (cached).
    Template loadImage(const std::string& path) const;

    /// Every qualified asset name, sorted.
    std::vector<std::string> names() const;
    /// Index files loaded, in order.
    const std::vector<std::string>& indexFiles() const { return index_files_; }

private:
    std::vector<std::unique_ptr<Asset>> assets_;
    std::map<std::string, std::vector<const Asset*>> by_key_;  // name/alias/qualified -> assets
    std::vector<std::string> index_files_;
    mutable std::map<std::string, Template> cache_;
};

}  // namespace eacu
