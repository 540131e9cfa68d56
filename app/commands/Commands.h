// The eacu commands, one function each (app/commands/cmd_NAME.cpp). Each takes main's argv
// (argv[1] is the command's name, its options start at argv[2]), prints its result to stdout
// and its errors to stderr, and returns the exit status: 0 success, 1 failure, 2 bad usage.
// CommandTable.cpp lists them with their help.
#pragma once

namespace eacu {

/// eacu run SCRIPT: a task script as a recorded run (130 when stopped by a signal).
int cmdRun(int argc, char** argv);
/// eacu run --task SENTENCE: a task sentence routed to an app module's template and run.
int cmdRunTask(int argc, char** argv);
/// eacu runs: recent runs from the run log.
int cmdRuns(int argc, char** argv);
/// eacu show [RUN]: a run's steps as a table.
int cmdShow(int argc, char** argv);
/// eacu report [RUN]: a run as one self-contained HTML page.
int cmdReport(int argc, char** argv);
/// eacu replay [RUN]: a recorded run played back as a new, linked run.
int cmdReplay(int argc, char** argv);
/// eacu frames [RUN] -o DIR: a run's frames as PNG files.
int cmdFrames(int argc, char** argv);
/// eacu record -o FILE.lua: a person's actions on an X display written as a script.
int cmdRecord(int argc, char** argv);
/// eacu script RUN -o FILE.lua: a recorded run's steps written as a script.
int cmdScript(int argc, char** argv);
/// eacu heal RUN [-o FILE.lua] [--apply] (cmd_heal.cpp).
int cmdHeal(int argc, char** argv);
/// eacu locate SHOT TEMPLATE|--text PHRASE: the locator's verdict on one screenshot.
int cmdLocate(int argc, char** argv);
/// eacu bench tap|settle|locate|ocr: the benchmarks (app/bench/).
int cmdBench(int argc, char** argv);
/// eacu devices: the Android devices the adb server knows, with their state.
int cmdDevices(int argc, char** argv);
/// eacu serve: the chat page, the chat and task APIs, the workers (runtime/server/).
int cmdServe(int argc, char** argv);
int cmdStudio(int argc, char** argv);
/// eacu worker: a worker of eacu serve's Redis queue, on any machine (runtime/server/RemoteWorker).
int cmdWorker(int argc, char** argv);
/// eacu workers: the workers registered on a Redis queue.
int cmdWorkers(int argc, char** argv);

}  // namespace eacu
