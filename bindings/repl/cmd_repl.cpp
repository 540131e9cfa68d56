#include <cstdio>
#include "cli/Cli.h"
namespace eacu {
int cmdRepl(int, char**) { std::fprintf(stderr, "eacu repl: not yet\n"); return 1; }
}
