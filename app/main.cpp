// eacu: the command-line entry point.
#include <cstdio>
#include <cstring>
#include <string>

#include "Cli.h"
#include "process/Process.h"

static const char* kHelp = R"(eacu — GUI automation with Lua scripts, image targets and a recorded run log

Usage:
  eacu run SCRIPT [--display :N|virtual|virtual:WxH|image:PNG] [--db PATH]
           [--model-cache off|record|replay] [--max-actions N] [--max-time S] [-- ARGS...]
      Run a task script. Exit 0 on success; on failure print one line with the reason and
      the run id, exit 1. --model-cache: model answers (ask, plan, agent, dynamic targets)
      are recorded with cache keys (record, the default), not keyed (off), or served from
      earlier runs' recorded answers when the screen still fits (replay: no network needed).
      --max-actions/--max-time: the run's limits (default 80 actions, 480 s; 0 = none).
  eacu run --task SENTENCE [--dry-run] [--yes] [--display D] [--db PATH]
      Route a task sentence to an app module's template (scripts/<app>/init.lua: patterns,
      keywords, package) and run it; --dry-run prints the module, template and parameters.
      --yes allows risky templates without asking (else: asked on a terminal, refused without).
  eacu bench settle [--display D]
      A task of 12 actions on a real xcalc with eacu's change-and-settle waits and with a fixed
      1 s wait after each action, in the same run: both wall times and the outcomes.
  eacu runs [--db PATH] [--status passed|failed|running|interrupted] [--script NAME]
            [--since 2h|3d|YYYY-MM-DD[ HH:MM]|UNIX] [--replays] [--limit N]
      List recent runs.
  eacu show [RUN] [--db PATH]
      The steps of a run (default: the latest) as a table.
  eacu report [RUN] [-o FILE.html] [--assets DIR] [--db PATH]
      The run as one self-contained HTML page: step timeline, frames with the match box and
      input point, scrubber. --assets DIR writes the images there instead of embedding them.
  eacu replay [RUN] [--mode script|actions] [--display D] [--timeout S] [--db PATH]
      Play a recorded run back as a new run linked to it. script (default): the recorded
      script and arguments again. actions: the recorded inputs, each gated by a check that the
      screen around the target matches the recorded frame (a mismatch stops the replay).
  eacu frames [RUN] -o DIR [--db PATH]
      Export a run's frames as PNG files (frame-<id>.png and frames.tsv).
  eacu repl [--display D] [--db PATH]
      Interactive Lua with the whole API: history, tab completion, .help, .shot, .record.
  eacu locate SHOT.png TEMPLATE.png|--text PHRASE [--threshold T] [--scale S]
      [--region x,y,w,h] [--lang L] [--annotate OUT.png]
      Locate a template in a screenshot and print every stage's best candidate; exit 0 if found.
  eacu bench tap [--display D] [--n 30]
      Time taps on a real xcalc (default: a private Xvfb): capture, locate, inject, settle.
  eacu bench locate CORPUS [--out FILE.jsonl] [--no-learn] [--threshold T]
      The image cases of a corpus (../shared/corpus/locate-v1 format), blind: hit rate, false
      positives, median and p90 ms per scale; one JSON line per case with --out.
  eacu bench ocr CORPUS [--out FILE.jsonl] [--lang auto|eng|eng+chi_sim]
      The text cases of a corpus: hit rate, OCR ms per frame, lookup ms on a read frame.
  eacu --help | --version

Options:
  --db PATH       run log (SQLite). Default: $EACU_DB, else ~/.local/share/eacu/runs.db
  --display D     the screen: ":N" an X display, "virtual" a private Xvfb (1280x800) that is
                  started and always stopped, "image:shot.png" a static screenshot.
                  Default: $DISPLAY.
Environment:
  EACU_DB, EACU_HOME (folder with assets/ and scripts/), EACU_STDLIB_DIR (load stdlib/*.lua
  from disk instead of the embedded copy).
  The model: EACU_MODEL_PROVIDER (anthropic|openai), EACU_MODEL (model name),
  EACU_MODEL_BASE_URL (https://api.anthropic.com, or https://host/v1 for OpenAI-compatible
  servers), EACU_MODEL_API_KEY (else ANTHROPIC_API_KEY / OPENAI_API_KEY; never logged),
  EACU_MODEL_TIMEOUT, EACU_MODEL_MAX_RETRIES; the same with EACU_MODEL_FALLBACK_ for a second
  provider tried when the first fails; EACU_MODEL_CACHE (as --model-cache).
)";

namespace eacu {
int cmdRunTask(int argc, char** argv);
}

int main(int argc, char** argv) {
    eacu::Process::installSignalCleanup();
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
        !std::strcmp(argv[1], "help")) {
        std::fputs(kHelp, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    std::string cmd = argv[1];
    if (cmd == "--version" || cmd == "version") {
        std::printf("eacu %s\n", EACU_VERSION);
        return 0;
    }
    if (cmd == "run") {
        for (int i = 2; i < argc; ++i)
            if (!std::strcmp(argv[i], "--task")) return eacu::cmdRunTask(argc, argv);  // cmd_task.cpp
        return eacu::cmdRun(argc, argv);
    }
    if (cmd == "runs") return eacu::cmdRuns(argc, argv);
    if (cmd == "show") return eacu::cmdShow(argc, argv);
    if (cmd == "bench") return eacu::cmdBench(argc, argv);
    if (cmd == "locate") return eacu::cmdLocate(argc, argv);
    if (cmd == "report") return eacu::cmdReport(argc, argv);
    if (cmd == "replay") return eacu::cmdReplay(argc, argv);
    if (cmd == "frames") return eacu::cmdFrames(argc, argv);
    if (cmd == "repl") return eacu::cmdRepl(argc, argv);
    std::fprintf(stderr, "eacu: unknown command \"%s\" (expected run, runs, show, report, replay, frames, repl, bench, locate; see eacu --help)\n",
                 cmd.c_str());
    return 2;
}
