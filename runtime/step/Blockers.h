// Blockers: things that can pop up at any time and cover a target (seed 002's Verifier:
// popup, dialog, permission, ad, error, loading, keyboard). Scripts register them; before a
// locate gives up, the session looks for each one and handles it, then looks again.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "step/Target.h"
#include "vision/Match.h"

namespace eacu {

/// One registered blocker.
/// - `name`: how the script calls it ("update_dialog"); also the default target.
/// - `kind`: seed 002's blocker type: popup, dialog, permission, ad, error, loading, keyboard,
///   unknown.
/// - `target`: what shows that the blocker is there (an image target).
/// - `dismiss`: a target to tap to get rid of it, or `key`: a key combo to press (e.g.
///   "Escape"), or `handler`: a function run with the blocker's match (a Lua callback).
///   With none of them, "Escape" is pressed (seed 002: the default is "back").
/// - `max_handled`: how often it may be handled in one run (0: no limit), against a blocker
///   that comes back forever.
/// - `handled`: how often it was handled so far.
struct Blocker {
    std::string name;
    std::string kind = "popup";
    TargetSpec target;
    std::optional<TargetSpec> dismiss;
    std::string key;
    std::function<void(const Match&)> handler;
    int max_handled = 0;
    int handled = 0;
};

/// The known blocker kinds of seed 002; throws std::invalid_argument("blocker kind: expected
/// popup|dialog|permission|ad|error|loading|keyboard|unknown, got \"x\"") for others.
void checkBlockerKind(const std::string& kind);

/// The registered blockers of a session, in registration order.
class BlockerSet {
public:
    /// Adds or replaces (same name) a blocker.
    void add(Blocker b);
    /// Removes a blocker; returns whether it was there.
    bool remove(const std::string& name);
    bool empty() const { return list_.empty(); }
    std::vector<Blocker>& list() { return list_; }
    const std::vector<Blocker>& list() const { return list_; }

private:
    std::vector<Blocker> list_;
};

}  // namespace eacu
