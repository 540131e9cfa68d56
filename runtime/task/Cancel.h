// Process-wide cancellation of blocking waits (Ctrl-C in a REPL, a signal in a run).
#pragma once

namespace eacu {

/// Asks every running wait, locate loop and sleep to stop with a "cancelled" error.
/// Async-signal-safe.
void requestCancel();
/// Clears a pending cancellation (before the next command of a REPL).
void clearCancel();
/// True when a cancellation is pending.
bool cancelRequested();
/// Sleeps `seconds` on the monotonic clock in short slices; throws std::runtime_error("cancelled")
/// when a cancellation is requested meanwhile.
void sleepCancellable(double seconds);

}  // namespace eacu
