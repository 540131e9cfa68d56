#include "step/UserChannel.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "base/Ascii.h"
#include "step/StepError.h"

namespace eacu {

bool haveTerminal() { return isatty(0) && isatty(2); }

bool readTerminalLine(const std::string& prompt, const CancelToken& cancel, std::string& line) {
    std::fputs(prompt.c_str(), stderr);
    std::fflush(stderr);
    line.clear();
    for (;;) {
        cancel.check();
        pollfd p{0, POLLIN, 0};
        int n = ::poll(&p, 1, 50);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (n == 0) continue;
        char c;
        ssize_t got = ::read(0, &c, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return !line.empty();
        if (c == '\n') break;
        line += c;
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
}

std::string TerminalChannel::confirm(const std::string& what, const CancelToken& cancel) {
    if (!haveTerminal())
        return "it needs a confirmation and there is no terminal to ask on (failing closed; "
               "run with --yes or EACU_CONFIRM=yes to allow it)";
    std::string line;
    if (!readTerminalLine("eacu: confirm: " + what + " [y/N] ", cancel, line)) return "no answer (end of input)";
    line = asciiLower(line);
    if (line == "y" || line == "yes") return "";
    return "the user said no";
}

std::string TerminalChannel::ask(const std::string& text, const CancelToken& cancel) {
    if (!haveTerminal())
        throw StepError(failure::kBlocked, "ask_user \"" + text +
                                               "\": it needs an answer and there is no terminal to ask on "
                                               "(failing closed)");
    std::string line;
    if (!readTerminalLine("eacu: " + text + "\n> ", cancel, line))
        throw StepError(failure::kBlocked, "ask_user \"" + text + "\": no answer (end of input)");
    return line;
}

std::string TerminalChannel::awaitAction(const std::string& kind, const std::string& text, const CancelToken& cancel) {
    if (!haveTerminal())
        throw StepError(failure::kBlocked, kind + " \"" + text +
                                               "\": it needs the person to act and there is no terminal to ask on "
                                               "(failing closed)");
    std::string line;
    if (!readTerminalLine("eacu: " + text + "\n(press Enter when done) > ", cancel, line))
        throw StepError(failure::kBlocked, kind + " \"" + text + "\": no answer (end of input)");
    return line.empty() ? std::string("done") : line;
}

}  // namespace eacu
