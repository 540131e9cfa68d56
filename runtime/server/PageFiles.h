// The chat page served at `/` (runtime/server/page/), embedded into the binary at build time
// by cmake/embed_files.cmake.
#pragma once
#include <string_view>

namespace eacu {

/// The bytes of runtime/server/page/`name` as they were at build time ("index.html",
/// "style.css", "app.js", ...). Throws std::out_of_range for another name.
std::string_view pageFile(std::string_view name);

}  // namespace eacu
