// The report page's template, style and script (runtime/runlog/report/), embedded into the
// binary at build time by cmake/embed_files.cmake.
#pragma once
#include <string_view>

namespace eacu {

/// The bytes of runtime/runlog/report/`name` as they were at build time: "report.html" (the
/// page, with {{name}} placeholders), "report.css", "report.js". Throws std::out_of_range for
/// another name.
std::string_view reportFile(std::string_view name);

}  // namespace eacu
