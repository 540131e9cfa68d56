// eacu report: a run from the run log as one self-contained HTML page.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "runlog/RunReader.h"

namespace eacu {

/// How a report is written.
/// - `assets_dir`: when not empty, frames, thumbnails and reference images are written there as
///   files (frames/<id>.png, thumbs/<id>.jpg, refs/<n>.png) and the page links to them by a path
///   relative to `html_dir`; when empty everything is embedded in the page (base64).
/// - `html_dir`: the folder the HTML file will live in (for the relative links).
/// - `thumb_width`: width in pixels of the thumbnails shown in the step list.
/// - `reference_image`: given a step, the path of the reference image its target names (an
///   asset or image file), or nullopt; used to show "what was sought" beside "what was found".
struct ReportOptions {
    std::string assets_dir;
    std::string html_dir = ".";
    int thumb_width = 200;
    std::function<std::optional<std::string>(const StepRecord&)> reference_image;
};

/// What went into a report.
struct ReportStats {
    size_t steps = 0, frames = 0, references = 0;
    size_t html_bytes = 0;
    double ms = 0;  // time to build it
};

/// Renders run `run_id` of `log` as HTML (the page is runtime/runlog/report/report.html with
/// report.css and report.js, embedded at build time): a header (script, device, status, error; for a
/// replay, the run it replays and where the two differ), a collapsible step list on a vertical
/// timeline (action, target with its reference image, method, raw score and threshold, box,
/// input point, change ratio, settle and locate times, params, error, child steps nested), a
/// screen window showing the frame before or after the selected step with the match box and the
/// input point drawn over it, and a scrubber. Full frames are decoded only when a step is
/// selected; the list shows small JPEG thumbnails, loaded as they scroll into view.
/// The run's model calls show with the steps that made them (calls outside a step under the
/// header). The page reads `#step=N` (1-based step index) to select a step on load.
/// Throws std::runtime_error when the run does not exist or a file cannot be written.
std::string renderHtmlReport(const RunReader& log, int64_t run_id, const ReportOptions& options = {},
                             ReportStats* stats = nullptr);


}  // namespace eacu
