// The command table in the two forms the package installs: a manual page (`eacu help --man`,
// man 1 eacu) and a bash completion script (`eacu help --bash-completion`), both made from the
// same table as `eacu --help`, so they cannot drift from it.
#pragma once
#include <string>
#include <vector>

#include "CommandTable.h"

namespace eacu {

/// The manual page (roff, section 1): NAME, SYNOPSIS, DESCRIPTION with the common options and
/// the environment of `eacu --help`, one subsection per command with its synopsis and whole
/// help text, FILES (the installed layout) and SEE ALSO.
std::string manPage();

/// A bash completion script for `eacu`: the command names (and --help, --version) after
/// `eacu`, then the options each command's help names; file names otherwise.
std::string bashCompletion();

/// Every option ("--db", "-o") a command's synopsis and the option lines of its help name, in
/// order, once each, and --help.
std::vector<std::string> commandOptions(const Command& c);

}  // namespace eacu
