// eacu repl: LuaJIT with the whole eacu API on a live device, with line editing (GNU
// readline), a history file, tab completion, readable results, and Ctrl-C that cancels the
// running wait/locate instead of leaving.
#include <sys/select.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
}
#include <readline/history.h>
#include <readline/readline.h>

#include "assets/AssetLibrary.h"
#include "Cli.h"
#include "ScriptRun.h"
#include "repl/Repl.h"
#include "repl/ReplRecorder.h"
#include "device/Device.h"
#include "device/virtual/VirtualDisplay.h"
#include "device/x11/Highlight.h"
#include "host/LuaHost.h"
#include "process/Process.h"
#include "runlog/RunLog.h"
#include "base/Cancel.h"
#include "base/Clock.h"
#include "step/Session.h"
#include "vision/Locator.h"

namespace fs = std::filesystem;

namespace eacu {
namespace {

const char* kReplHelp = R"(eacu repl: Lua (LuaJIT) with the eacu API on a live screen. Every action is a step of
this session's run in the run log (eacu show / eacu report it afterwards).

  locate "calculator.btn_1"        a Match (box, score, method, scale) or nil and the reason
  m = wait("AC", 5); highlight(m)  outline what was found on the real screen for 1.5 s
  tap "1"  input "text"  key "ctrl+s"  scroll(3)  screenshot("a.png")  eacu.assets()
  = expr / expr                    prints the value(s), tables nested
Keys: Tab completes globals, module members (eacu.<Tab>) and asset names (tap "<Tab>);
      Ctrl-C cancels a running wait/locate/sleep (or clears the line); Ctrl-D leaves.
Commands:
  .help                 this text
  .shot [FILE]          capture the screen into the run log (and FILE.png when given)
  .record on|off [FILE] start/stop recording the lines you enter; off saves them as a script
                        (default repl-YYYYmmdd-HHMMSS.lua) runnable with eacu run
  record()  ...  stop()  record what you do on the screen yourself (an X display: on it; any
                        other device: on its live screen in the studio page record() prints);
                        stop() writes it as script lines (also into the history, and into
                        .record when on)
  .run                  the run id and log of this session
  .exit                 leave (also Ctrl-D)
)";

volatile std::sig_atomic_t g_evaluating = 0;
volatile std::sig_atomic_t g_prompt_interrupt = 0;
LuaHost* g_host = nullptr;  // the REPL's host, for Ctrl-C

void onInterrupt(int) {
    if (g_evaluating) {
        cancelAllFromSignal(SIGINT);          // a native wait, locate or sleep stops
        if (g_host) g_host->interrupt();  // and so does a busy Lua loop (the JIT is off)
    }
    else g_prompt_interrupt = 1;
}

struct Repl;
Repl* g_repl = nullptr;

struct Repl {
    LuaHost* host = nullptr;
    Session* session = nullptr;
    RunLog* log = nullptr;
    int64_t run_id = 0;
    std::string history;
    std::string pending;  // an incomplete chunk awaiting more lines
    bool recording = false;
    std::vector<std::string> recorded;
    ReplRecorder person;  // record() ... stop()
    std::string device_spec;  // --device as given ("" = $DISPLAY): what record() records
    const AssetLibrary* assets = nullptr;
    std::vector<std::string> asset_words;
    bool done = false;
    bool colour = false;

    lua_State* L() const { return host->state(); }

    void say(const std::string& s, const char* code = nullptr) const {
        std::printf("%s\n", code ? paint(colour, code, s).c_str() : s.c_str());
        std::fflush(stdout);
    }

    const char* prompt() const { return pending.empty() ? "eacu> " : "  >> "; }

    // Compiles `code` as `return <code>` (an expression) or as a chunk. Returns 0 and leaves the
    // function on the stack, 1 for a syntax error (message on the stack), 2 when the chunk is
    // incomplete (more lines needed).
    int compile(const std::string& code) {
        std::string expr = "return " + code;
        if (luaL_loadbuffer(L(), expr.data(), expr.size(), "=repl") == 0) return 0;
        lua_pop(L(), 1);
        if (luaL_loadbuffer(L(), code.data(), code.size(), "=repl") == 0) return 0;
        std::string msg = lua_tostring(L(), -1) ? lua_tostring(L(), -1) : "";
        if (msg.find("<eof>") != std::string::npos && msg.rfind("<eof>") + 6 >= msg.size()) {
            lua_pop(L(), 1);
            return 2;
        }
        return 1;
    }

    static int traceback(lua_State* L) {
        const char* msg = lua_tostring(L, 1);
        if (!msg) {
            if (luaL_callmeta(L, 1, "__tostring") && lua_isstring(L, -1)) return 1;
            lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
        }
        return 1;
    }

    // Runs the function on top of the stack; prints its results readably or the error.
    bool call() {
        int base = lua_gettop(L());
        lua_pushcfunction(L(), traceback);
        lua_insert(L(), base);
        clearPendingSignal();
        g_evaluating = 1;
        int rc = lua_pcall(L(), 0, LUA_MULTRET, base);
        g_evaluating = 0;
        host->clearInterrupt();
        bool cancelled = pendingSignal() != 0;
        clearPendingSignal();
        lua_remove(L(), base);
        if (rc != 0) {
            std::string msg = lua_tostring(L(), -1) ? lua_tostring(L(), -1) : "(error)";
            lua_pop(L(), 1);
            if (cancelled) say("cancelled (Ctrl-C): " + msg, "33");
            else say("error: " + msg, "31");
            return false;
        }
        int n = lua_gettop(L()) - base + 1;
        if (n > 0) {
            lua_getglobal(L(), "require");
            lua_pushstring(L(), "eacu.repl");
            if (lua_pcall(L(), 1, 1, 0) != 0) {
                lua_pop(L(), 1 + n);
                return true;
            }
            lua_getfield(L(), -1, "show");
            lua_remove(L(), -2);
            lua_insert(L(), base);
            if (lua_pcall(L(), n, 0, 0) != 0) {
                say(std::string("(cannot print the result: ") + lua_tostring(L(), -1) + ")", "31");
                lua_pop(L(), 1);
            }
        }
        lua_settop(L(), base - 1);
        return true;
    }

    void command(const std::string& line) {
        std::string cmd = line.substr(0, line.find(' '));
        std::string rest = line.size() > cmd.size() ? line.substr(cmd.size() + 1) : "";
        rest.erase(0, rest.find_first_not_of(' '));
        rest.erase(rest.find_last_not_of(' ') + 1);
        if (cmd == ".help" || cmd == ".h" || cmd == ".?") {
            std::fputs(kReplHelp, stdout);
        } else if (cmd == ".exit" || cmd == ".quit" || cmd == ".q") {
            done = true;
        } else if (cmd == ".run") {
            say("run " + std::to_string(run_id) + " in " + (log ? log->path() : std::string("(no log)")));
        } else if (cmd == ".shot") {
            try {
                g_evaluating = 1;
                Frame f;
                int64_t id = session->screenshot(rest, &f);
                g_evaluating = 0;
                say("frame " + std::to_string(id) + " of run " + std::to_string(run_id) + ", " + std::to_string(f.width()) +
                    "x" + std::to_string(f.height()) + (rest.empty() ? "" : ", written to " + rest));
            } catch (const std::exception& e) {
                g_evaluating = 0;
                say(std::string("error: .shot: ") + e.what(), "31");
            }
        } else if (cmd == ".record") {
            std::string what = rest.substr(0, rest.find(' '));
            std::string file = rest.size() > what.size() ? rest.substr(what.size() + 1) : "";
            if (what == "on") {
                recording = true;
                recorded.clear();
                say("recording: the lines you enter from now on are kept; .record off [FILE] saves them");
            } else if (what == "off") {
                if (!recording) {
                    say("error: .record off: not recording (.record on first)", "31");
                    return;
                }
                recording = false;
                if (file.empty()) {
                    file = formatLocalTime(wallSeconds(), "repl-%Y%m%d-%H%M%S.lua");
                }
                std::ofstream out(file);
                out << "-- Recorded in eacu repl (run " << run_id << "); run it with: eacu run " << file << "\n";
                for (const auto& l : recorded) out << l << "\n";
                if (!out) {
                    say("error: .record off: cannot write \"" + file + "\"", "31");
                    return;
                }
                say("saved " + std::to_string(recorded.size()) + " line" + (recorded.size() == 1 ? "" : "s") + " to " + file);
            } else {
                say("error: .record expects on or off, got \"" + what + "\"", "31");
            }
        } else {
            say("error: unknown command " + cmd + " (expected .help, .shot, .record, .run, .exit)", "31");
        }
    }

    void line(char* raw) {
        lineInner(raw);
        rl_set_prompt(prompt());  // the next prompt follows the state (continuation lines)
    }

    void lineInner(char* raw) {
        if (!raw) {  // Ctrl-D
            if (!pending.empty()) {
                pending.clear();
                std::printf("\n");
                return;
            }
            std::printf("\n");
            done = true;
            return;
        }
        std::string text = raw;
        std::free(raw);
        std::string trimmed = text;
        trimmed.erase(0, trimmed.find_first_not_of(" \t"));
        if (!trimmed.empty()) {
            add_history(text.c_str());
            if (!history.empty()) append_history(1, history.c_str());
        }
        if (pending.empty() && trimmed.empty()) return;
        if (pending.empty() && trimmed[0] == '.') {
            command(trimmed);
            return;
        }
        if (pending.empty() && trimmed[0] == '=') trimmed = trimmed.substr(1), text = trimmed;
        std::string code = pending.empty() ? text : pending + "\n" + text;
        int rc = compile(code);
        if (rc == 2) {
            pending = code;
            return;
        }
        pending.clear();
        if (rc == 1) {
            std::string msg = lua_tostring(L(), -1);
            lua_pop(L(), 1);
            say("error: " + msg, "31");
            return;
        }
        if (call() && recording) recorded.push_back(code);
    }

    std::vector<std::string> luaCompletions(const std::string& word) {
        std::vector<std::string> out;
        lua_getglobal(L(), "require");
        lua_pushstring(L(), "eacu.repl");
        if (lua_pcall(L(), 1, 1, 0) != 0) {
            lua_pop(L(), 1);
            return out;
        }
        lua_getfield(L(), -1, "complete");
        lua_pushstring(L(), word.c_str());
        if (lua_pcall(L(), 1, 1, 0) == 0 && lua_istable(L(), -1)) {
            for (int i = 1;; ++i) {
                lua_rawgeti(L(), -1, i);
                if (!lua_isstring(L(), -1)) {
                    lua_pop(L(), 1);
                    break;
                }
                out.push_back(lua_tostring(L(), -1));
                lua_pop(L(), 1);
            }
        }
        lua_pop(L(), 2);
        return out;
    }
};

// eacu._repl.record() -> message: starts recording what the person does on the session's
// device: the X display itself, or the studio's record mode on any other device (the message
// names its page). stdlib/eacu/repl.lua's record() prints the message.
int luaRecord(lua_State* L) {
    std::string said;
    try {
        ReplDevice d;
        d.device = &g_repl->session->device();
        d.spec = g_repl->device_spec;
        d.display = g_repl->session->options().display;
        d.assets = g_repl->assets;
        ScriptOptions o;
        o.assets_ref = "repl_assets";
        o.assets_dir = (fs::path(g_repl->session->options().script_dir) / o.assets_ref).string();
        said = g_repl->person.start(d, o);
    } catch (const std::exception& e) {
        return luaL_error(L, "%s", e.what());
    }
    lua_pushlstring(L, said.data(), said.size());
    return 1;
}

// eacu._repl.stop() -> lines, n: the person's actions since record() as script lines (one
// string), added to the history (and to .record's lines when on), and their number.
int luaStop(lua_State* L) {
    WrittenScript w;
    try {
        w = g_repl->person.stop();
    } catch (const std::exception& e) {
        return luaL_error(L, "%s", e.what());
    }
    size_t at = 0, n = 0;
    while (at < w.lua.size()) {
        size_t end = w.lua.find('\n', at);
        if (end == std::string::npos) end = w.lua.size();
        std::string line = w.lua.substr(at, end - at);
        at = end + 1;
        if (line.empty()) continue;
        add_history(line.c_str());
        if (!g_repl->history.empty()) append_history(1, g_repl->history.c_str());
        if (g_repl->recording) g_repl->recorded.push_back(line);
        ++n;
    }
    lua_pushlstring(L, w.lua.data(), w.lua.size());
    lua_pushinteger(L, lua_Integer(n));
    return 2;
}

// package.preload's eacu._repl: the native side of stdlib/eacu/repl.lua's record() and stop().
int openReplNative(lua_State* L) {
    const luaL_Reg fns[] = {{"record", luaRecord}, {"stop", luaStop}, {nullptr, nullptr}};
    lua_newtable(L);
    luaL_register(L, nullptr, fns);
    return 1;
}

std::vector<std::string> g_matches;

char* nextMatch(const char*, int state) {
    static size_t i;
    if (state == 0) i = 0;
    return i < g_matches.size() ? strdup(g_matches[i++].c_str()) : nullptr;
}

// Readline's completion hook: asset names inside quotes, else Lua names.
char** complete(const char* text, int start, int) {
    rl_attempted_completion_over = 1;
    g_matches.clear();
    std::string word = text;
    char before = start > 0 ? rl_line_buffer[start - 1] : 0;
    if (before == '"' || before == '\'') {
        for (const auto& a : g_repl->asset_words)
            if (a.compare(0, word.size(), word) == 0) g_matches.push_back(a);
        rl_completion_append_character = before;
    } else {
        g_matches = g_repl->luaCompletions(word);
        rl_completion_append_character = '\0';
    }
    if (g_matches.empty()) return nullptr;
    return rl_completion_matches(text, nextMatch);
}

Repl* g_handler_repl = nullptr;
void onLine(char* l) { g_handler_repl->line(l); }

std::string historyPath() {
    if (const char* h = std::getenv("EACU_REPL_HISTORY"); h) return h;
    fs::path db = RunLog::defaultPath();
    return (db.parent_path() / "repl_history").string();
}

}  // namespace

int cmdRepl(int argc, char** argv) {
    CliOptions o;
    try {
        o = parseCli(argc, argv, 2, {}, {"--no-color"});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu repl: %s\n", e.what());
        return 2;
    }
    RunSpec spec;
    spec.script = (fs::current_path() / "(repl)").string();
    spec.session.script_dir = fs::current_path().string();
    spec.limits = {};  // an interactive session has no action or time limit
    std::unique_ptr<OpenRun> r;
    try {
        r = openRun(o, std::move(spec));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu repl: %s\n", e.what());
        return 1;
    }
    Run& run = *r->run;
    RunLog* log = &run.log();
    int64_t run_id = run.id();
    Size size = run.device().screenSize();
    const AssetLibrary& assets = r->assets;
    SessionOptions& so = run.session().options();
    int code = 0;
    {
        Session& session = run.session();
        LuaHost host(&session);
        host.addPackagePath(so.script_dir);
        host.addPackagePath((fs::path(eacuHome()) / "scripts").string());

        Repl repl;
        repl.host = &host;
        g_host = &host;
        repl.session = &session;
        repl.log = log;
        repl.run_id = run_id;
        repl.colour = useColour(o);
        repl.device_spec = o.display;
        repl.assets = &assets;
        std::set<std::string> words;
        for (const auto& n : assets.names()) {
            words.insert(n);
            if (const Asset* a = assets.find(n)) {
                words.insert(a->name);
                for (const auto& al : a->aliases) words.insert(al);
            }
        }
        repl.asset_words.assign(words.begin(), words.end());
        repl.history = historyPath();
        g_repl = &repl;
        // record() and stop(): stdlib/eacu/repl.lua's, over this REPL's native eacu._repl.
        lua_getglobal(host.state(), "package");
        lua_getfield(host.state(), -1, "preload");
        lua_pushcfunction(host.state(), openReplNative);
        lua_setfield(host.state(), -2, "eacu._repl");
        lua_pop(host.state(), 2);
        if (luaL_dostring(host.state(), "local r = require('eacu.repl'); record, stop = r.record, r.stop") != 0) {
            std::fprintf(stderr, "eacu repl: %s\n", lua_tostring(host.state(), -1));
            lua_pop(host.state(), 1);
        }
        g_handler_repl = &repl;

        using_history();
        stifle_history(2000);
        if (!repl.history.empty()) {
            std::error_code ec;
            fs::create_directories(fs::path(repl.history).parent_path(), ec);
            if (!fs::exists(repl.history)) std::ofstream(repl.history).flush();
            read_history(repl.history.c_str());
            history_truncate_file(repl.history.c_str(), 2000);
        }
        rl_readline_name = "eacu";
        rl_attempted_completion_function = complete;
        rl_basic_word_break_characters = const_cast<char*>(" \t\n\"'`@$><=;|&{(,+-*/%^~#[]");
        rl_catch_signals = 0;
        rl_catch_sigwinch = 1;

        struct sigaction sa {};
        sa.sa_handler = onInterrupt;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;  // no SA_RESTART: select() returns EINTR at the prompt
        sigaction(SIGINT, &sa, nullptr);

        std::printf("eacu %s repl on %s (%dx%d) — run %lld in %s\n.help for help, Tab completes, Ctrl-D leaves\n",
                    EACU_VERSION, run.device().describe().c_str(), size.w, size.h, (long long)run_id, log->path().c_str());
        std::fflush(stdout);
        rl_callback_handler_install(repl.prompt(), onLine);
        while (!repl.done) {
            fd_set fds;
            FD_ZERO(&fds);
            FD_SET(STDIN_FILENO, &fds);
            int r = select(STDIN_FILENO + 1, &fds, nullptr, nullptr, nullptr);
            if (r < 0 && errno == EINTR) {
                if (g_prompt_interrupt) {
                    g_prompt_interrupt = 0;
                    repl.pending.clear();
                    rl_free_line_state();
                    rl_callback_sigcleanup();
                    rl_replace_line("", 0);
                    std::printf("^C\n");
                    rl_callback_handler_remove();
                    rl_callback_handler_install(repl.prompt(), onLine);
                }
                continue;
            }
            if (r < 0) break;
            rl_callback_read_char();
        }
        rl_callback_handler_remove();
        clearOutlines();
        g_host = nullptr;
    }
    signal(SIGINT, SIG_DFL);
    clearPendingSignal();
    run.finish("");
    std::printf("run %lld: %zu steps recorded in %s\n", (long long)run_id, log->steps(run_id).size(), log->path().c_str());
    return code;
}

}  // namespace eacu
