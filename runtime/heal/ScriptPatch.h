// Writing healed targets back into a script's text (eacu heal, issue 34 item 3): the healed
// target first, the line's old targets kept as its alternatives, as a unified diff.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace eacu {

/// The top-level items of a Lua table constructor's source `{ a, k = v, ... }` (strings, nested
/// brackets and comments respected), each trimmed; nullopt when `expr` is not one.
std::optional<std::vector<std::string>> tableItems(const std::string& expr);

/// A target expression's source split into its targets (docs/targets.md "Alternatives"):
/// `{ A, alt = { B, C } }` gives A, B, C; `{ text = "OK", alt = { B } }` gives `{ text = "OK" }`
/// and B; anything else is one target. `options` receives the table's other keyed items
/// beside a positional first target (`timeout = 3`, `label = "..."`), to keep.
std::vector<std::string> splitTargets(const std::string& expr, std::vector<std::string>& options);

/// Where the first argument of the call on a script line lies: [begin, end) byte offsets of
/// `verb(ARG, ...)`, `verb ARG` (a string or table) or `verb{...}`; nullopt when the line holds
/// no call.
std::optional<std::pair<size_t, size_t>> firstArgument(const std::string& line);

/// `line` with its call's target replaced: `healed` (Lua sources, the first is the new target)
/// first, then the old targets (those not among them) as alternatives. Throws
/// std::invalid_argument when the line holds no call.
std::string healLine(const std::string& line, const std::vector<std::string>& healed);

/// A unified diff (3 lines of context) between two versions of a file with the same number of
/// lines (lines replaced, none added or removed), labelled `a_name` and `b_name`; "" when equal.
std::string unifiedDiff(const std::vector<std::string>& a, const std::vector<std::string>& b, const std::string& a_name,
                        const std::string& b_name);

}  // namespace eacu
