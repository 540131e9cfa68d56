// eacu repl: interactive Lua with the whole API on a live screen.
#pragma once

namespace eacu {

/// `eacu repl [--display D] [--db PATH] [--no-color]`: a session recorded as one run; returns
/// 0 when left with Ctrl-D or .exit, 1 when the run log or device cannot be opened, 2 for bad
/// options.
int cmdRepl(int argc, char** argv);

}  // namespace eacu
