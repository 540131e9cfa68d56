// The studio's page (runtime/studio/page/), embedded into the binary at build time by
// cmake/embed_files.cmake.
#pragma once
#include <string_view>

namespace eacu {

/// The bytes of runtime/studio/page/`name` as they were at build time ("index.html",
/// "studio.js", "studio.css"). Throws std::out_of_range for another name.
std::string_view studioFile(std::string_view name);

}  // namespace eacu
