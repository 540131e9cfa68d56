// Relative targets: the element right of / left of / above / below / near / inside an anchor
// (issue 14 part 3). References: SikuliX regions (right(), left(), above(), below(), nearby(),
// inside()) and Maestro's relative selectors (rightOf, leftOf, above, below, childOf).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "geometry/Rect.h"

namespace eacu {

/// Where the wanted element lies relative to the anchor's box.
enum class Relation { RightOf, LeftOf, Above, Below, Near, Inside };

/// "right_of" -> Relation::RightOf ...; nullopt for another name.
std::optional<Relation> relationFromName(const std::string& name);
/// Relation::RightOf -> "right_of" ...
const char* relationName(Relation r);

/// A candidate element on the frame (from Set-of-Marks, OCR lines, the accessibility tree or
/// an image match). `kind`: "field" | "button" | "checkbox" | "text" | "image"; `content` its
/// text when known; `source` where it came from (for messages). Box in physical pixels.
struct RelCandidate {
    Rect box;
    std::string kind;
    std::string content;
    std::string source;
};

/// The query: relation, wanted kind ("any" or one of RelCandidate::kind), nth (1-based).
struct RelQuery {
    Relation relation = Relation::RightOf;
    std::string kind = "any";
    int nth = 1;
};

/// A candidate not taken, and why ("other kind: button", "not on the anchor's row", ...).
struct RelRejected {
    RelCandidate candidate;
    std::string reason;
};

/// The outcome: `chosen` (an index into the candidates, or -1), the accepted candidates in
/// rank order, and the rejected ones with their reasons.
struct RelPick {
    int chosen = -1;
    std::vector<int> ranked;
    std::vector<RelRejected> rejected;
};

/// Picks the nth candidate of the wanted kind in the relation to `anchor`:
/// - right_of / left_of: the candidate lies wholly beyond the anchor's right / left edge and
///   overlaps its row (vertical overlap ≥ half the smaller height); ranked by the gap.
/// - above / below: wholly beyond the top / bottom edge, overlapping its column (horizontal
///   overlap > 0); ranked by the gap.
/// - near: any candidate not overlapping the anchor, ranked by centre distance.
/// - inside: candidates whose centre lies in the anchor's box, ranked by reading order.
/// Candidates that are the anchor itself (IoU ≥ 0.5) are rejected. Distances in pixels.
RelPick pickRelative(const Rect& anchor, const std::vector<RelCandidate>& candidates, const RelQuery& q);

/// The error text of a pick that found nothing: the anchor (label and box) and each rejected
/// candidate with its reason (at most `max_listed`).
std::string describeMiss(const std::string& anchor_label, const Rect& anchor, const RelQuery& q,
                         const std::vector<RelCandidate>& candidates, const RelPick& p, int max_listed = 8);

}  // namespace eacu
