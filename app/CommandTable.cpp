#include "CommandTable.h"

#include "Cli.h"
#include "commands/Commands.h"
#include "repl/Repl.h"

namespace eacu {
namespace {

// Option lines that several commands share.
#define EACU_OPT_DB "  --db PATH         the run log (SQLite); default $EACU_DB, else ~/.local/share/eacu/runs.db\n"
#define EACU_OPT_DISPLAY                                                                          \
    "  --display D       the screen: \":N\" an X display, \"virtual\" a private Xvfb (1280x800;\n" \
    "                    \"virtual:WxH\" another size) started and always stopped, \"image:PNG\"\n" \
    "                    a static screenshot (input goes nowhere), \"chromium[:WxH[@S]]\" a page of\n" \
    "                    a headless Chromium started for the run (no X server; S the device\n" \
    "                    scale), \"cdp:http://HOST:PORT\" a new page of a running Chromium,\n" \
    "                    \"adb[:SERIAL]\" an Android device through adb (eacu devices),\n" \
    "                    \"agent:HOST:PORT\" a device agent (eacu-agent.exe on Windows; token\n" \
    "                    from $EACU_AGENT_TOKEN); default $DISPLAY\n" \
    "  --device D        the same as --display\n"
#define EACU_OPT_WM                                                                               \
    "  --wm WM           with --display virtual: the window manager started on it (\"openbox\";\n" \
    "                    minimize and maximize need one); default none\n"

// `eacu run` is one command with two forms: a script, or a task sentence (--task).
int runEitherForm(int argc, char** argv) {
    return hasOption(argc, argv, 2, "--task") ? cmdRunTask(argc, argv) : cmdRun(argc, argv);
}

const std::vector<Command> kCommands = {
    {"run",
     "eacu run SCRIPT [--display D] [--wm WM] [--db PATH] [--verbose] [--model-cache off|record|replay]\n"
     "         [--max-actions N] [--max-time S] [--serve-fd N] [--heal] [-- ARGS...]\n"
     "eacu run --task SENTENCE [--dry-run] [--yes] [--display D] [--db PATH] [--max-actions N]\n"
     "         [--max-time S] [--serve-fd N]",
     "Run a task script, or a task sentence routed to an app module, as a recorded run.\n"
     "\n"
     "eacu run SCRIPT runs the Lua script; ARGS after -- are its arg table. Exit 0 on success; on\n"
     "failure it prints one line with the run id and the reason and exits 1. At --max-time, or on\n"
     "SIGINT/SIGTERM, the run stops within a second even in a busy Lua loop: it is recorded as\n"
     "timed_out (exit 1) or interrupted (exit 128 + the signal: 130, 143), and the programs it\n"
     "launched and its Xvfb are stopped.\n"
     "eacu run --task SENTENCE routes the sentence to an app module's template (scripts/<app>/\n"
     "init.lua: patterns, keywords, package) and runs it; a sentence no template matches goes to\n"
     "autopilot() when a model is configured (EACU_MODEL_PROVIDER, EACU_MODEL).\n"
     "\n"
     "Options:\n" EACU_OPT_DISPLAY EACU_OPT_WM EACU_OPT_DB
     "  --verbose         print the whole error with the Lua traceback\n"
     "  --heal            a line whose targets are all missing is looked for again by similarity to\n"
     "                    what it recorded, and taken only when proven unique (docs/healing.md);\n"
     "                    eacu heal RUN then writes the healed targets back into the script\n"
     "  --model-cache M   model answers (ask, plan, autopilot, dynamic targets) are recorded with cache\n"
     "                    keys (record, the default), not keyed (off), or served from earlier\n"
     "                    runs' recorded answers when the screen still fits (replay: no network)\n"
     "  --max-actions N   the run's action limit: inputs of the script, step{}, plan, autopilot and\n"
     "                    dynamic targets alike (default 80; 0 = none)\n"
     "  --max-time S      the run's deadline in seconds, for waits and model calls too (default\n"
     "                    480; 0 = none)\n"
     "  --task SENTENCE   run the template the sentence routes to instead of a script\n"
     "  --dry-run         with --task: print the module, template and parameters; run nothing\n"
     "  --yes             with --task: allow risky templates without asking (else asked on a\n"
     "                    terminal, refused without one)\n"
     "  --serve-fd N      run as a worker of eacu serve: JSON lines on descriptor N (run, intent,\n"
     "                    step, awaiting_user, answer, end); the person is asked through it\n"
     "                    (confirm, ask_user, the autopilot's needs_user, a click handed over) and\n"
     "                    the run waits for its ack line\n"
     "\n"
     "Environment: EACU_CLICK_CHECK=1 makes the autopilot check each click with the model first\n"
     "(autopilot option click_check); EACU_ALLOW_DOMAINS / EACU_BLOCK_DOMAINS (comma-separated\n"
     "domains) limit the URLs the browser module opens.\n",
     runEitherForm},
    {"runs",
     "eacu runs [--status passed|failed|running|interrupted|timed_out] [--script TEXT]\n"
     "          [--since 2h|3d|YYYY-MM-DD[ HH:MM]|UNIX] [--replays] [--limit N] [--db PATH]",
     "List recent runs, newest first.\n"
     "\n"
     "Options:\n"
     "  --status S        only runs with that status\n"
     "  --script TEXT     only runs whose script path contains TEXT\n"
     "  --since WHEN      only runs started since a duration ago (90s, 30m, 2h, 3d), a local date\n"
     "                    or time (2026-11-22, \"2026-11-22 10:30\") or Unix seconds\n"
     "  --replays         only replays of other runs\n"
     "  --limit N         at most N runs (default 20)\n" EACU_OPT_DB,
     cmdRuns},
    {"show",
     "eacu show [RUN] [--color|--no-color] [--db PATH]",
     "The steps of a run (default: the latest) as a table.\n"
     "\n"
     "A replay also lists where it differs from the run it replays.\n"
     "\n"
     "Options:\n"
     "  --color           colour the table even when stdout is not a terminal\n"
     "  --no-color        no colour (also $NO_COLOR)\n" EACU_OPT_DB,
     cmdShow},
    {"report",
     "eacu report [RUN] [-o FILE.html] [--assets DIR] [--quiet] [--db PATH]",
     "The run (default: the latest) as one self-contained HTML page.\n"
     "\n"
     "A step timeline, the frames with the match box and input point, a scrubber; it opens\n"
     "without a network.\n"
     "\n"
     "Options:\n"
     "  -o FILE           the page (default eacu-run-RUN.html; also --output)\n"
     "  --assets DIR      write the images into DIR instead of embedding them\n"
     "  --quiet           print nothing on success\n" EACU_OPT_DB,
     cmdReport},
    {"replay",
     "eacu replay [RUN] [--mode script|actions] [--display D] [--wm WM] [--timeout S] [--threshold T]\n"
     "            [--max-actions N] [--max-time S] [--verbose] [--quiet] [--db PATH]",
     "Play a recorded run (default: the latest) back as a new run linked to it.\n"
     "\n"
     "script (default): the recorded script and arguments again, model answers from the\n"
     "recording. actions: the recorded inputs, each gated by a check that the screen around the\n"
     "target matches the recorded frame (a mismatch stops the replay).\n"
     "\n"
     "Options:\n"
     "  --mode M          script or actions\n" EACU_OPT_DISPLAY EACU_OPT_WM
     "  --timeout S       actions mode: seconds to wait for the screen around each target to\n"
     "                    match the recorded frame (default 5)\n"
     "  --threshold T     actions mode: the score the recorded crop needs, in [0, 1] (default 0.9)\n"
     "  --max-actions N   the replay run's action limit (default 80; 0 = none)\n"
     "  --max-time S      the replay run's deadline in seconds (default 480; 0 = none)\n"
     "  --verbose         each replayed step, and the whole error\n"
     "  --quiet           no line naming the replay when it starts\n" EACU_OPT_DB,
     cmdReplay},
    {"frames",
     "eacu frames [RUN] -o DIR [--db PATH]",
     "Export a run's frames (default: the latest run) as PNG files.\n"
     "\n"
     "DIR gets frame-<id>.png for every frame and frames.tsv saying which step used which.\n"
     "\n"
     "Options:\n"
     "  -o DIR            the folder (created when missing; also --output)\n" EACU_OPT_DB,
     cmdFrames},
    {"record",
     "eacu record [--display D | --device SPEC] [--wm WM] [--launch CMD]... -o FILE.lua [--assets DIR] [--quiet]",
     "Record what a person does on an X display and write it as a runnable script.\n"
     "On any other device (--device chromium, cdp:URL, adb, agent:HOST:PORT) it starts eacu studio\n"
     "in record mode instead (the person acts on the device's screen in the browser).\n"
     "\n"
     "Each click is written with the most robust target proven on the screen just before it:\n"
     "the accessibility element under the pointer, else a word OCR reads there and nowhere\n"
     "else, else an image cut around the point (saved in the assets folder) found only there,\n"
     "else the coordinates, saying why. Typed text becomes input, keys key; drags and scrolls\n"
     "too. Stop with Ctrl-C (SIGINT, SIGTERM) or the Pause key on the recorded display.\n"
     "\n"
     "Options:\n" EACU_OPT_DISPLAY EACU_OPT_WM
     "  --launch CMD      start CMD (/bin/sh) on the display first; written as launch \"CMD\"\n"
     "  -o FILE.lua       the script to write (also --output)\n"
     "  --assets DIR      where image targets are saved (default FILE_assets beside the script)\n"
     "  --quiet           print only the line saying what is recorded\n",
     cmdRecord},
    {"script",
     "eacu script [RUN] -o FILE.lua [--assets DIR] [--db PATH]",
     "Write a recorded run's steps (the script's, the model's, the person's) as a script.\n"
     "\n"
     "An autopilot run becomes a deterministic script that repeats the task with no model: each\n"
     "input step is written with the most robust target proven on its recorded frame (as eacu\n"
     "record does, without the accessibility tree, which the run log does not keep); a script's\n"
     "own steps keep the target the script gave.\n"
     "\n"
     "Options:\n"
     "  -o FILE.lua       the script to write (also --output)\n"
     "  --assets DIR      where image targets are saved (default FILE_assets beside the script)\n" EACU_OPT_DB,
     cmdScript},
    {"heal",
     "eacu heal RUN [-o FILE.lua] [--apply] [--db PATH]",
     "Write the targets a run healed (eacu run --heal) back into its script.\n"
     "\n"
     "Prints a unified diff of the script: each healed line gets the target proven on the\n"
     "frame it was healed on first, with its old targets kept as alternatives; new image\n"
     "crops are named after the step (saved from the run log). Exit 0 also when nothing was\n"
     "healed (an empty diff). docs/healing.md.\n"
     "\n"
     "Options:\n"
     "  --apply           write the healed script over the run's script (and the new crops)\n"
     "  -o FILE.lua       write it to FILE instead (also --output); crops beside it\n" EACU_OPT_DB,
     cmdHeal},
    {"repl",
     "eacu repl [--display D] [--wm WM] [--db PATH] [--no-color]",
     "Interactive Lua with the whole API on a live screen, recorded as one run.\n"
     "\n"
     "History, tab completion of globals, module members and asset names; Ctrl-C cancels a\n"
     "running wait; .help lists the dot commands (.shot, .record, .run, .exit).\n"
     "\n"
     "Options:\n" EACU_OPT_DISPLAY EACU_OPT_WM EACU_OPT_DB
     "  --no-color        no colour (also $NO_COLOR)\n",
     cmdRepl},
    {"locate",
     "eacu locate SHOT.png TEMPLATE.png|--text PHRASE [--threshold T] [--scale S]\n"
     "            [--region x,y,w,h] [--lang L] [--annotate OUT.png]",
     "Locate a template or a phrase in a screenshot and print every stage's best candidate.\n"
     "\n"
     "Exit 0 if found, 1 if not, 2 for bad arguments.\n"
     "\n"
     "Options:\n"
     "  --text PHRASE     look for the phrase by OCR instead of a template image\n"
     "  --threshold T     the similarity needed, in [0, 1] (default: the template's)\n"
     "  --scale S         the expected scale of the template, in [0.05, 20]\n"
     "  --region x,y,w,h  search only there (pixels of the screenshot)\n"
     "  --lang L          --text: Tesseract languages (default eng, eng+chi_sim for CJK)\n"
     "  --annotate OUT    write the screenshot with the candidates drawn to OUT.png\n",
     cmdLocate},
    {"bench",
     "eacu bench tap [--display D] [--n 30]\n"
     "eacu bench batch [--display D] [--n 5]\n"
     "eacu bench page [--device D] [--n 20]\n"
     "eacu bench settle [--display D]\n"
     "eacu bench window [--display D] [--n 30]\n"
     "eacu bench adb [--device adb[:SERIAL]] [--n 10] [--tap NAME [--send T | --input-to-frame]] [--live S]\n"
     "eacu bench agent --device agent:HOST:PORT --x11 :N [--n 20]\n"
     "eacu bench locate CORPUS [--out FILE.jsonl] [--no-learn] [--threshold T]\n"
     "eacu bench ocr CORPUS [--out FILE.jsonl] [--lang auto|eng|eng+chi_sim]",
     "Measure taps, settle waits, and locate and OCR accuracy.\n"
     "\n"
     "tap: time N taps on a real xcalc (default: a private Xvfb): capture, locate, inject, settle.\n"
     "batch: 12 xcalc keys one step at a time against one batch{} (all found on one frame, one\n"
     "settle), N rounds: both wall times, the speed-up, and whether both end on the same display.\n"
     "page: time N taps on python3-doc's index page (capture, locate, input) on the chromium\n"
     "device (default) or on Chromium under X11 (--device virtual): the same page either way.\n"
     "settle: a task of 12 actions on a real xcalc with eacu's change-and-settle waits and with a\n"
     "fixed 1 s wait after each action, in the same run: both wall times and the outcomes.\n"
     "window: xcalc's own window captured (XComposite, first and warm) against the full screen,\n"
     "locate in the window against on the screen, and clicks sent to the window as events.\n"
     "adb: an Android device's raw and PNG captures (ms and bytes per frame) and taps through the\n"
     "long-lived input shell against one adb shell connection per tap; with --tap NAME also whole\n"
     "steps (capture, locate, input, settle) on the tree element NAME, its text and its image,\n"
     "then BACK, and with --send TEXT N send-message tasks to NAME, each also as a ratio to the raw\n"
     "capture's median; live frames (the serve page's) as frames/s. Frames come from the phone's\n"
     "video stream (screenrecord) unless EACU_ADB_STREAM=0; --live S times only the live frames\n"
     "for S seconds (run it while the screen changes); --input-to-frame with --tap NAME times only\n"
     "input -> changed frame on the page: N clicks on NAME and BACK keys as the take-over performs\n"
     "the person's input, each until the run's live screen publishes a changed frame (still screen).\n"
     "agent: a tap (capture, locate, input) on a label of the Windows agent's screen, through the\n"
     "agent and through the X11 device on the display showing it (--x11 :N, Wine's virtual\n"
     "desktop on Xvfb), N rounds: both, and the ratio of the medians (the X11 tap is the floor).\n"
     "locate: the image cases of a corpus (tests/corpus/locate-v1 format), blind: hit rate,\n"
     "false positives, median and p90 ms per scale.\n"
     "ocr: the text cases of a corpus: hit rate, OCR ms per frame, lookup ms on a read frame.\n"
     "\n"
     "Options:\n" EACU_OPT_DISPLAY
     "  --n N             tap, window, page, batch, agent: how many taps or rounds (default 30; page,\n"
     "                    agent: 20; batch: 5)\n"
     "  --x11 :N          agent: the X display the agent's screen is shown on\n"
     "  --tap NAME        adb: also time whole steps on the tree element named NAME\n"
     "  --send TEXT       adb, with --tap: also N send-message tasks to NAME (real messages)\n"
     "  --live SECONDS    adb: only the live frames that change, for SECONDS\n"
     "  --input-to-frame  adb, with --tap: only input -> changed live frame, N clicks and N BACKs\n"
     "  --out FILE        locate, ocr: one JSON line per case\n"
     "  --no-learn        locate: do not learn the device scale from earlier hits\n"
     "  --threshold T     locate: the similarity needed, in [0, 1] (default: the templates')\n"
     "  --lang L          ocr: Tesseract languages (auto: eng, or eng+chi_sim for CJK)\n",
     cmdBench},
    {"devices",
     "eacu devices",
     "List the Android devices the adb server knows (host:devices-l on $ANDROID_ADB_SERVER_PORT,\n"
     "default 5037), each with its state; offline and unauthorized ones are explained. A device\n"
     "listed as \"device\" is driven with --device adb:SERIAL (docs/android.md).\n",
     cmdDevices},
    {"serve",
     "eacu serve [--host H] [--port P] [--workers N] [--display virtual|virtual:WxH|:N] [--wm WM]\n"
     "           [--device chromium[:WxH[@S]]|cdp:URL|adb[:SERIAL]|agent:HOST:PORT]\n"
     "           [--db PATH] [--token T] [--launch CMD]... [--allow-scripts] [--click-check]\n"
     "           [--max-actions N] [--max-time S] [--heartbeat S]\n"
     "           [--queue redis://[USER:PASSWORD@]HOST:PORT[/DB]] [--reaper S] [--events-ttl S]",
     "Serve the live service: a chat page at / where a person sends a task and watches the computer\n"
     "do it (the screen live, the progress timeline, the answer), and its HTTP API.\n"
     "\n"
     "Each task is a run of its own (recorded like eacu run --task: an app module's template when\n"
     "one matches, else autopilot()), in a worker process on a private Xvfb with the --launch\n"
     "programs started on it; tasks wait in a queue while every worker is busy. Sessions, messages,\n"
     "tasks and the events of their streams are kept in the run log: after a restart the history\n"
     "is there, and a task that was running is marked interrupted.\n"
     "\n"
     "API: GET / (the page), GET /healthz, POST /api/chat/send {session_id?, text} ->\n"
     "{session_id, task_id}, POST /api/chat/stop {task_id}, POST /api/chat/ack-user-action\n"
     "{task_id}, GET /api/chat/stream?session_id=S (SSE: task.started, screen.live,\n"
     "progress.append, progress.update, task.awaiting_user, task.completed, task.failed,\n"
     "task.stopped; Last-Event-ID resumes), GET /api/sessions[/ID], POST /task {task} ->\n"
     "{task_id}, GET /task/ID -> {status, result, steps}, GET /api/frames/ID (PNG),\n"
     "GET /api/tasks/ID/live.jpg. Errors are {\"error\": \"...\"} with a 4xx status.\n"
     "\n"
     "Options:\n"
     "  --host H          the address to listen on (default 127.0.0.1); any other than loopback\n"
     "                    needs --token\n"
     "  --port P          the port (default 8765; 0 = any free port, printed at start)\n"
     "  --workers N       tasks that run at once (default 2; 1 with --display :N)\n"
     "  --display D       virtual (default: a private 1280x800 Xvfb per task), virtual:WxH, or\n"
     "                    an X display :N that every task shares\n"
     "  --device SPEC     a device that is not an X display: chromium[:WxH[@S]] (ONE headless\n"
     "                    Chromium, a page per task), cdp:URL, adb[:SERIAL] or agent:HOST:PORT\n"
     "                    (one worker); no Xvfb, no --wm, no --launch\n"
     "  --wm WM           the window manager started on each private display (\"openbox\")\n" EACU_OPT_DB
     "  --token T         every request needs \"Authorization: Bearer T\" (or ?access_token=T);\n"
     "                    default $EACU_TOKEN\n"
     "  --launch CMD      a shell command started on each task's display before the task (the\n"
     "                    desktop it works on); repeatable\n"
     "  --allow-scripts   accept Lua source as a task ({\"script\": \"...\"}); needs --token\n"
     "  --click-check     model-driven clicks move, check the marked pointer with the model and\n"
     "                    correct up to 4 times before clicking (seed 001 section 4.1)\n"
     "  --max-actions N   each task's action limit (default 80; 0 = none)\n"
     "  --max-time S      each task's deadline in seconds (default 480; 0 = none)\n"
     "  --heartbeat S     seconds between the comment lines of an idle event stream (default 15)\n"
     "  --queue URL       tasks go on this Redis (redis://[USER:PASSWORD@]HOST:PORT[/DB]; the\n"
     "                    password also from EACU_REDIS_PASSWORD) and run on `eacu worker`s on\n"
     "                    any machine; then --workers 0 (docs/many-machines.md)\n"
     "  --reaper S        with --queue: how often a committed task whose worker's lease is gone\n"
     "                    is ended lost (default 2)\n"
     "  --events-ttl S    with --queue: how long a task's Redis keys stay after it ended\n"
     "                    (default 3600)\n",
     cmdServe},
    {"studio",
     "eacu studio [--device SPEC | --display :N|virtual[:WxH]] [--wm WM] [--launch CMD]... [-o FILE.lua]\n"
     "            [--assets DIR] [--port P] [--host H --token T]",
     "See what eacu sees and write a script by doing the task, in the browser (docs/studio.md).\n"
     "\n"
     "Prints eacu studio: http://HOST:PORT/ : a page with the device's live screen. What you do\n"
     "there (click, double click, long press, drag, wheel, keys, text through the input method)\n"
     "is done on the device at once and becomes a script line whose target is proven on the\n"
     "screen before it, off the input path (as eacu record proves: the tree element, a text read\n"
     "there and nowhere else, an image crop the replay's own locate finds only there, else the\n"
     "coordinates, saying why). Inspect shows the element under the pointer, the words OCR reads\n"
     "there and the target eacu would write; verify lines; play the script back; save. Ctrl-C\n"
     "saves (with -o) and stops everything it started.\n"
     "\n"
     "Options:\n" EACU_OPT_DISPLAY EACU_OPT_WM
     "  --device SPEC     chromium[:WxH[@S]], cdp:URL, adb[:SERIAL], agent:HOST:PORT (or an X display)\n"
     "  --launch CMD      start CMD (/bin/sh) on the X display first, or the app of package CMD on\n"
     "                    Android; written as launch \"CMD\"\n"
     "  -o FILE.lua       the script (saved on Ctrl-C; default studio.lua, saved by the page only)\n"
     "  --assets DIR      where image targets are saved (default FILE_assets beside the script)\n"
     "  --port P          the page's port (default 8766; 0: any free port)\n"
     "  --host H          the address to listen on (default 127.0.0.1; any other needs --token)\n"
     "  --token T         the page's token (also $EACU_TOKEN): given once in the URL, then a cookie\n",
     cmdStudio},
    {"worker",
     "eacu worker --queue URL [--slots N] [--display virtual|virtual:WxH|:N] [--wm WM]\n"
     "            [--device chromium[:WxH[@S]]|cdp:URL|adb[:SERIAL]|agent:HOST:PORT]\n"
     "            [--launch CMD]... [--name NAME] [--db PATH] [--lease S] [--heartbeat S]\n"
     "            [--events-ttl S] [--click-check] [--allow-scripts] [--drain S]",
     "Take tasks from an eacu serve --queue on Redis and run them on this machine, each as eacu\n"
     "serve's own workers do (a private Xvfb with the --launch programs, eacu run --serve-fd 3),\n"
     "recorded in this machine's run log. Each task is committed to this worker (one atomic\n"
     "change in Redis) before any input; a task is never run twice. The worker holds a lease,\n"
     "renewed by its heartbeat: when it cannot renew it in time (Redis unreachable, the process\n"
     "paused) it stops its runs at once, and the server ends them lost; each run is also told the\n"
     "lease and stops sending input when it runs out, even if only this process is paused.\n"
     "\n"
     "Options:\n"
     "  --queue URL       the server's Redis (as eacu serve --queue)\n"
     "  --slots N         tasks at once (default 1; 1 with --display :N)\n"
     "  --display D       virtual (default: a private 1280x800 Xvfb per task), virtual:WxH, or :N\n"
     "  --device SPEC     a device that is not an X display: chromium[:WxH[@S]] (ONE headless\n"
     "                    Chromium, a page per slot), cdp:URL, adb[:SERIAL] or agent:HOST:PORT\n"
     "                    (one slot); no Xvfb, no --wm, no --launch; the run sends its live screen\n"
     "  --wm WM           the window manager started on each private display\n" EACU_OPT_DB
     "  --launch CMD      a shell command started on each task's display before it; repeatable\n"
     "  --name NAME       this worker's name among the queue's workers (default HOST-PID)\n"
     "  --lease S         the lease on its tasks (default 15)\n"
     "  --heartbeat S     how often the lease is renewed (default lease/4 up to 3; at most lease/2)\n"
     "  --events-ttl S    how long a task's Redis keys stay after it ended (default 3600)\n"
     "  --click-check     as eacu serve --click-check\n"
     "  --allow-scripts   run Lua source tasks too (else they fail: whoever may write to the\n"
     "                    Redis could run any program here)\n"
     "  --drain S         on SIGTERM take no new task and let the running ones end for up to S\n"
     "                    seconds, then stop them (default 0: SIGTERM stops them at once; SIGINT\n"
     "                    or a second SIGTERM always does)\n",
     cmdWorker},
    {"workers",
     "eacu workers --queue URL [--json]",
     "List the workers that hold a lease on a Redis queue: name, host, slots, busy, device kind,\n"
     "version, protocol and last heartbeat (as GET /api/workers).\n",
     cmdWorkers},
    {"help",
     "eacu help [COMMAND]\n"
     "eacu COMMAND --help\n"
     "eacu help --man|--bash-completion",
     "Print the list of commands, or one command's help.\n"
     "\n"
     "eacu help --man prints this manual as a man page (roff; man 1 eacu), eacu help\n"
     "--bash-completion a bash completion script for the commands and their options.\n",
     nullptr},
    {"version",
     "eacu --version",
     "Print eacu's version.\n",
     nullptr},
};

#undef EACU_OPT_DB
#undef EACU_OPT_DISPLAY
#undef EACU_OPT_WM

const char* kOverviewHead =
    "eacu — GUI automation with Lua scripts, image targets and a recorded run log\n"
    "\n"
    "Commands (eacu help COMMAND, or eacu COMMAND --help, prints one command's options):\n";

const char* kOverviewTail =
    "\n"
    "Common options:\n"
    "  --db PATH       the run log (SQLite). Default: $EACU_DB, else ~/.local/share/eacu/runs.db\n"
    "  --display D     the screen: \":N\" an X display, \"virtual\" a private Xvfb (1280x800) that is\n"
    "                  started and always stopped, \"image:shot.png\" a static screenshot.\n"
    "                  Default: $DISPLAY.\n"
    "  --wm WM         with --display virtual: a window manager (\"openbox\") started on it.\n"
    "Environment:\n"
    "  EACU_DB, EACU_HOME (folder with assets/ and scripts/), EACU_STDLIB_DIR (load stdlib/*.lua\n"
    "  from disk instead of the embedded copy).\n"
    "  The model: EACU_MODEL_PROVIDER (anthropic|openai), EACU_MODEL (model name),\n"
    "  EACU_MODEL_BASE_URL (https://api.anthropic.com, or https://host/v1 for OpenAI-compatible\n"
    "  servers), EACU_MODEL_API_KEY (else ANTHROPIC_API_KEY / OPENAI_API_KEY; never logged),\n"
    "  EACU_MODEL_TIMEOUT, EACU_MODEL_MAX_RETRIES; the same with EACU_MODEL_FALLBACK_ for a second\n"
    "  provider tried when the first fails; EACU_MODEL_CACHE (as --model-cache).\n";

// `text` with every line indented by `indent`.
std::string indented(std::string_view text, const char* indent) {
    std::string out;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        out += indent;
        out += text.substr(start, end - start);
        out += '\n';
        start = end + 1;
    }
    return out;
}

}  // namespace

const std::vector<Command>& commandTable() { return kCommands; }

const Command* findCommand(std::string_view name) {
    for (const Command& c : kCommands)
        if (c.name == name) return &c;
    return nullptr;
}

std::string commandNames() {
    std::string out;
    for (const Command& c : kCommands) out += (out.empty() ? "" : ", ") + std::string(c.name);
    return out;
}

std::string overviewHelp() {
    std::string out = kOverviewHead;
    for (const Command& c : kCommands) {
        out += indented(c.synopsis, "  ");
        out += "      " + firstLine(std::string(c.help)) + "\n";
    }
    return out + kOverviewTail;
}

std::string commandHelp(const Command& c) {
    return "Usage:\n" + indented(c.synopsis, "  ") + "\n" + std::string(c.help);
}

}  // namespace eacu
