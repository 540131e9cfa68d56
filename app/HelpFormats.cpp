#include "HelpFormats.h"

#include <algorithm>
#include <cctype>

#include "Cli.h"

namespace eacu {
namespace {

// One line of text as roff: backslashes escaped, hyphens as \- (so man prints and searches
// them as ASCII hyphens), a leading '.' or '\'' kept from being a request.
std::string roffLine(const std::string& line) {
    std::string out;
    if (!line.empty() && (line[0] == '.' || line[0] == '\'')) out += "\\&";
    for (char ch : line) {
        if (ch == '\\') out += "\\e";
        else if (ch == '-') out += "\\-";
        else out += ch;
    }
    return out;
}

// A block of text kept as it is (no filling): the help texts are laid out by hand.
std::string roffVerbatim(const std::string& text) {
    std::string out = ".nf\n";
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        out += line.empty() ? ".sp\n" : roffLine(line) + "\n";
        start = end + 1;
    }
    return out + ".fi\n";
}

}  // namespace

std::vector<std::string> commandOptions(const Command& c) {
    std::vector<std::string> out;
    // The synopsis and the help's option lines (those starting with '-' after the indent), not
    // its prose, which names other commands' options ("eacu run --serve-fd 3").
    std::string text = std::string(c.synopsis) + "\n";
    const std::string help(c.help);
    for (size_t start = 0; start < help.size();) {
        size_t end = help.find('\n', start);
        if (end == std::string::npos) end = help.size();
        const std::string line = help.substr(start, end - start);
        const size_t first = line.find_first_not_of(' ');
        if (first != std::string::npos && first > 0 && line[first] == '-') text += line + "\n";
        start = end + 1;
    }
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '-') continue;
        // An option starts a word: after a space, '[' , '(' or '|' (not inside "read-only").
        if (i > 0 && !(text[i - 1] == ' ' || text[i - 1] == '[' || text[i - 1] == '(' || text[i - 1] == '|' ||
                       text[i - 1] == '\n'))
            continue;
        size_t j = i + 1;
        if (j < text.size() && text[j] == '-') ++j;
        size_t name = j;
        while (j < text.size() && (std::islower((unsigned char)text[j]) || std::isdigit((unsigned char)text[j]) ||
                                   (text[j] == '-' && j > name)))
            ++j;
        if (j == name) continue;
        // "-o" style options are one letter; longer single-dash words are prose ("-h" is kept).
        if (name == i + 1 && j - name != 1) continue;
        if (j < text.size() && (std::isalnum((unsigned char)text[j]) || text[j] == '_')) continue;
        std::string opt = text.substr(i, j - i);
        while (!opt.empty() && opt.back() == '-') opt.pop_back();
        if (opt.size() < 2 || opt == "--") continue;
        if (std::find(out.begin(), out.end(), opt) == out.end()) out.push_back(opt);
        i = j;
    }
    if (std::find(out.begin(), out.end(), "--help") == out.end()) out.push_back("--help");
    return out;
}

std::string manPage() {
    const std::string overview = overviewHelp();
    const std::string title = firstLine(overview);  // "eacu — GUI automation ..."
    std::string summary = title.substr(title.find(' ') + 1);
    if (summary.rfind("— ", 0) == 0) summary = summary.substr(std::string("— ").size());
    std::string out;
    out += ".\\\" Made by `eacu help --man` from eacu's command table: do not edit.\n";
    out += ".TH EACU 1 \"\" \"eacu " EACU_VERSION "\" \"User Commands\"\n";
    out += ".SH NAME\neacu \\- " + roffLine(summary) + "\n";
    out += ".SH SYNOPSIS\n";
    for (const Command& c : commandTable()) out += roffVerbatim(std::string(c.synopsis)) + ".br\n";
    out += ".SH DESCRIPTION\n";
    out += "eacu runs GUI automation scripts written in Lua against a device (an X display, a private\n"
           "Xvfb, a headless Chromium, an Android phone over adb, a Windows machine with eacu\\-agent)\n"
           "and records every run in a SQLite run log. Each command is described below.\n";
    const size_t tail = overview.find("\nCommon options:");
    if (tail != std::string::npos) {
        out += ".SH \"COMMON OPTIONS AND ENVIRONMENT\"\n";
        out += roffVerbatim(overview.substr(tail + 1));
    }
    out += ".SH COMMANDS\n";
    for (const Command& c : commandTable()) {
        out += ".SS " + roffLine(std::string(c.name)) + "\n";
        out += roffVerbatim(std::string(c.synopsis));
        out += ".PP\n";
        out += roffVerbatim(std::string(c.help));
    }
    out += ".SH FILES\n"
           ".TP\n.I /usr/share/eacu\n"
           "the app modules (scripts/), shared assets (assets/), examples/, the LuaCATS stubs for\n"
           "editors (meta/) and the Windows agent (windows/eacu\\-agent.exe); EACU_HOME overrides it.\n"
           ".TP\n.I ~/.local/share/eacu/runs.db\n"
           "the run log (EACU_DB or \\-\\-db overrides it); the services keep theirs in /var/lib/eacu.\n"
           ".TP\n.I /etc/eacu/serve.env, /etc/eacu/worker\\-NAME.env\n"
           "the settings of the eacu\\-serve and eacu\\-worker@NAME systemd services.\n";
    out += ".SH \"SEE ALSO\"\n"
           "/usr/share/doc/eacu/docs/ (cli.md, lua\\-api.md, many\\-machines.md, deploy.md).\n";
    return out;
}

std::string bashCompletion() {
    std::string names, cases;
    for (const Command& c : commandTable()) {
        if (c.name == "version") continue;  // `eacu --version`
        names += std::string(names.empty() ? "" : " ") + std::string(c.name);
        std::string opts;
        for (const std::string& o : commandOptions(c)) opts += (opts.empty() ? "" : " ") + o;
        cases += "    " + std::string(c.name) + ") opts=\"" + opts + "\" ;;\n";
    }
    return "# bash completion for eacu; made by `eacu help --bash-completion` from its command table.\n"
           "_eacu() {\n"
           "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opts\n"
           "  COMPREPLY=()\n"
           "  if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
           "    COMPREPLY=($(compgen -W \"" + names + " --help --version\" -- \"$cur\"))\n"
           "    return 0\n"
           "  fi\n"
           "  if [ \"${COMP_WORDS[1]}\" = help ] && [ \"$COMP_CWORD\" -eq 2 ]; then\n"
           "    COMPREPLY=($(compgen -W \"" + names + "\" -- \"$cur\"))\n"
           "    return 0\n"
           "  fi\n"
           "  case $prev in\n"
           "    --display) COMPREPLY=($(compgen -W \"virtual virtual:1280x800 :0 image:\" -- \"$cur\")); return 0 ;;\n"
           "    --device) COMPREPLY=($(compgen -W \"chromium cdp: adb agent:\" -- \"$cur\")); return 0 ;;\n"
           "    --wm) COMPREPLY=($(compgen -W \"openbox none\" -- \"$cur\")); return 0 ;;\n"
           "  esac\n"
           "  case ${COMP_WORDS[1]} in\n" +
           cases +
           "    *) opts=\"\" ;;\n"
           "  esac\n"
           "  if [[ $cur == -* ]]; then\n"
           "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
           "  fi\n"
           "  return 0\n"
           "}\n"
           "complete -o default -F _eacu eacu\n";
}

}  // namespace eacu
