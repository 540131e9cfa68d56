// The table of eacu's commands: what `eacu --help` lists, what `eacu help CMD` and
// `eacu CMD --help` print, and the function main dispatches to.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace eacu {

/// One command of the eacu executable.
/// - `name`: the word after eacu ("report").
/// - `synopsis`: its usage, one form per line starting with "eacu"; continuation lines are
///   indented ("eacu report [RUN] [-o FILE.html] [--assets DIR] [--db PATH]").
/// - `help`: what `eacu help NAME` prints after the synopsis: a one-line summary (also shown
///   by `eacu --help`), then details and options.
/// - `run`: runs it with main's argc/argv (argv[1] == name); returns the exit status. Null for
///   help and version, which main answers itself.
struct Command {
    std::string_view name;
    std::string_view synopsis;
    std::string_view help;
    int (*run)(int argc, char** argv);
};

/// Every command, in the order `eacu --help` lists them.
const std::vector<Command>& commandTable();

/// The command called `name`, or null.
const Command* findCommand(std::string_view name);

/// "run, runs, show, ...": the names of every command, for "expected ..." messages.
std::string commandNames();

/// `eacu --help`: every command's synopsis with its one-line summary, the common options and
/// the environment.
std::string overviewHelp();

/// `eacu help NAME` / `eacu NAME --help`: the command's synopsis and its whole help text.
std::string commandHelp(const Command& c);

}  // namespace eacu
