// eacu: the command-line entry point. Looks the command up in the command table
// (CommandTable.cpp) and answers --help, help CMD, CMD --help and --version itself, and
// help --man / help --bash-completion (HelpFormats.cpp).
#include <cstdio>
#include <string>

#include "Cli.h"
#include "CommandTable.h"
#include "HelpFormats.h"
#include "process/DescendantGuard.h"
#include "process/Process.h"

namespace {

int unknownCommand(const std::string& name) {
    std::fprintf(stderr, "eacu: unknown command \"%s\" (expected one of %s; see eacu --help)\n", name.c_str(),
                 eacu::commandNames().c_str());
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace eacu;
    Process::installSignalCleanup();
    if (argc < 2) {  // no command: the list on stderr, a usage error
        std::fputs(overviewHelp().c_str(), stderr);
        return 2;
    }
    std::string name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        if (name != "help" || argc < 3) {
            std::fputs(overviewHelp().c_str(), stdout);
            return 0;
        }
        std::string what = argv[2];
        if (what == "--help" || what == "-h") what = "help";  // eacu help --help
        if (what == "--man" || what == "--bash-completion") {  // what the package installs
            std::fputs((what == "--man" ? manPage() : bashCompletion()).c_str(), stdout);
            return 0;
        }
        const Command* c = findCommand(what);
        if (!c) return unknownCommand(what);
        std::fputs(commandHelp(*c).c_str(), stdout);
        return 0;
    }
    if (name == "--version" || name == "version") {
        std::printf("eacu %s\n", EACU_VERSION);
        return 0;
    }
    const Command* c = findCommand(name);
    if (!c) return unknownCommand(name);
    if (!c->run || hasOption(argc, argv, 2, "--help") || hasOption(argc, argv, 2, "-h")) {
        std::fputs(commandHelp(*c).c_str(), stdout);
        return 0;
    }
    guardDescendants();  // before any thread: nothing the command starts outlives it
    return c->run(argc, argv);
}
