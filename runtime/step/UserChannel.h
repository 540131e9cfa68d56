// How a run reaches the person it works for: the terminal for `eacu run` and the REPL; a web
// chat for a service (task.awaiting_user until acknowledged). Risky steps (confirm) and
// ask_user() both go through the run's channel.
#pragma once
#include <string>

#include "base/Cancel.h"

namespace eacu {

class UserChannel {
public:
    virtual ~UserChannel() = default;
    /// Asks whether the risky action `what` may run. Returns "" when allowed, else why not
    /// ("the user said no", "there is no terminal to ask on ..."). Throws Cancelled when the
    /// run is cancelled while it waits.
    virtual std::string confirm(const std::string& what, const CancelToken& cancel) = 0;
    /// Shows `text` to the person and waits for their answer (a line of text; "" is an answer).
    /// Throws StepError code "blocked" when nobody can answer (no terminal: fails closed), and
    /// Cancelled when the run is cancelled while it waits.
    virtual std::string ask(const std::string& text, const CancelToken& cancel) = 0;
    /// Asks the person to do something on the screen and waits until they say they did (their
    /// reply, e.g. "我已经操作", is returned). `kind` says why: "needs_user" (the model needs
    /// them, e.g. to log in), "click" (a click could not be aimed: they click instead).
    /// Throws as ask() does: StepError "blocked" when nobody can answer, Cancelled on a stop.
    virtual std::string awaitAction(const std::string& kind, const std::string& text, const CancelToken& cancel) = 0;
};

/// The terminal: asks on stderr and reads a line from stdin when both are terminals; without
/// one, confirm refuses and ask throws StepError "blocked" (failing closed). Waits poll the run's
/// cancel token every 50 ms, so a deadline or a signal stops them.
class TerminalChannel : public UserChannel {
public:
    std::string confirm(const std::string& what, const CancelToken& cancel) override;
    std::string ask(const std::string& text, const CancelToken& cancel) override;
    std::string awaitAction(const std::string& kind, const std::string& text, const CancelToken& cancel) override;
};

/// Prints `prompt` on stderr and reads one line from stdin (without its newline), polling
/// `cancel` every 50 ms. Returns false at end of input. Throws Cancelled when cancelled.
bool readTerminalLine(const std::string& prompt, const CancelToken& cancel, std::string& line);

/// True when stdin and stderr are both terminals (someone can be asked).
bool haveTerminal();

}  // namespace eacu
