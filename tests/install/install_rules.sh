#!/usr/bin/env bash
# make install's rules (cmake/Install.cmake) into a temporary DESTDIR: the files the package
# ships are there; the installed eacu prints the project's version, finds its app modules under
# PREFIX/share/eacu (not the source tree), keeps `eacu --help`'s commands; the manual page
# renders; the bash completion completes commands and options and is found by bash-completion's
# loader; both systemd units pass `systemd-analyze verify`. No display, no network.
# Usage: install_rules.sh BUILD_DIR SOURCE_DIR OUT VERSION
set -uo pipefail
BUILD=$1; SRC=$2; OUT=$3; VERSION=$4
. "$SRC/tests/e2e/lib.bash"
start_test
unset EACU_HOME
# Under /tmp-like $OUT/tmp: no ancestor of the installed eacu is the source tree.
dest=$(mktemp -d "${TMPDIR:-/tmp}/eacu-destdir.XXXXXX")
[ -n "$dest" ] || fail "mktemp"
trap 'rm -rf "$dest"' EXIT

DESTDIR=$dest cmake --install "$BUILD" --prefix /usr >"$OUT/install.log" 2>&1 ||
  fail "cmake --install into DESTDIR failed: $(tail -20 "$OUT/install.log")"
u=$dest/usr
for f in bin/eacu share/eacu/assets/index.json share/eacu/scripts/calculator/init.lua \
         share/eacu/scripts/browser/init.lua share/eacu/examples/calculator.lua share/eacu/meta/eacu.lua \
         share/eacu/systemd/serve.env share/eacu/systemd/worker.env \
         lib/systemd/system/eacu-serve.service lib/systemd/system/eacu-worker@.service \
         share/man/man1/eacu.1.gz share/bash-completion/completions/eacu \
         share/doc/eacu/README.md share/doc/eacu/docs/deploy.md share/doc/eacu/docs/many-machines.md \
         share/doc/eacu/deploy/Containerfile; do
  [ -f "$u/$f" ] || fail "the install has no $f"
done
ls "$u"/share/eacu/scripts/calculator/images/*.png >/dev/null 2>&1 || fail "no calculator images installed"
# Every LuaCATS stub, every example.
for f in "$SRC"/stdlib/meta/*.lua; do [ -f "$u/share/eacu/meta/${f##*/}" ] || fail "stub ${f##*/} not installed"; done
# Nothing outside the prefix (no /etc file: the package leaves nothing there).
outside=$(cd "$dest" && find . -mindepth 1 -maxdepth 1 ! -name usr)
[ -z "$outside" ] || fail "installed outside the prefix: $outside"
# The units name the installed executable (prefix /usr), not the build tree.
grep -q '^ExecStart=/usr/bin/eacu serve ' "$u/lib/systemd/system/eacu-serve.service" || fail "serve unit ExecStart: $(grep ExecStart "$u/lib/systemd/system/eacu-serve.service")"
grep -q '^ExecStart=/usr/bin/eacu worker .*--drain ' "$u/lib/systemd/system/eacu-worker@.service" || fail "worker unit ExecStart"
echo "ok: the install holds the expected files"

# eacu --version: the CMake project's version.
v=$("$u/bin/eacu" --version) || fail "eacu --version exited $?"
expect_eq "$v" "eacu $VERSION" "installed eacu --version"
# The same commands as the built one.
expect_eq "$("$u/bin/eacu" --help)" "$("$BUILD/eacu" --help)" "installed eacu --help"
echo "ok: eacu --version and --help"

# The installed eacu finds the app modules under PREFIX/share/eacu: a script that loads the
# calculator module and says where it came from (a static screenshot as the device).
cat >"$OUT/where.lua" <<'LUA'
local calc = require "calculator"
print("module " .. package.searchpath("calculator", package.path))
LUA
out=$("$u/bin/eacu" run "$OUT/where.lua" --display "image:$SRC/tests/fixtures/xcalc.png" --db "$OUT/where.db" 2>&1) ||
  fail "installed eacu run: $out"
expect_contains "$out" "module $u/share/eacu/scripts/calculator/init.lua" "the module the installed eacu loads"
echo "ok: the installed eacu loads its modules from $u/share/eacu"

# The manual page renders without a groff warning and holds every command.
man_text=$(zcat "$u/share/man/man1/eacu.1.gz" | groff -man -Tutf8 -ww 2>"$OUT/groff.err") || fail "groff failed"
[ ! -s "$OUT/groff.err" ] || fail "groff warnings on the manual page: $(head -5 "$OUT/groff.err")"
commands=$("$BUILD/eacu" --help | sed -nE 's/^  eacu ([a-z]+).*/\1/p' | sort -u)
[ "$(wc -w <<<"$commands")" -ge 15 ] || fail "eacu --help lists too few commands: $commands"
for c in $commands; do
  grep -qE "eacu $c( |$)" <<<"$man_text" || fail "the manual page has no synopsis of eacu $c"
done
grep -q -- "--drain S" <<<"$man_text" || fail "the manual page lacks eacu worker's options"
lexgrog "$u/share/man/man1/eacu.1.gz" >/dev/null || fail "lexgrog finds no NAME section (whatis/apropos)"
echo "ok: the manual page renders and lists the commands"

# The completion: commands, then a command's options.
complete_words() {  # WORDS... : what _eacu offers for the last word
  bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _eacu; echo "${COMPREPLY[*]}"' _ \
    "$u/share/bash-completion/completions/eacu" "$@"
}
expect_eq "$(complete_words eacu wor)" "worker workers" "completion of 'eacu wor'"
expect_eq "$(complete_words eacu worker --dr)" "--drain" "completion of 'eacu worker --dr'"
expect_eq "$(complete_words eacu run --displ)" "--display" "completion of 'eacu run --displ'"
expect_eq "$(complete_words eacu run --display vir)" "virtual virtual:1280x800" "completion of --display's value"
expect_eq "$(complete_words eacu --vers)" "--version" "completion of 'eacu --vers'"
# bash-completion's loader finds it where the package puts it (XDG_DATA_DIRS/bash-completion).
if [ -f /usr/share/bash-completion/bash_completion ]; then
  found=$(XDG_DATA_DIRS=$u/share bash -c '. /usr/share/bash-completion/bash_completion; _completion_loader eacu; complete -p eacu' 2>&1)
  expect_contains "$found" "-F _eacu eacu" "bash-completion loads the installed completion"
else
  fail "bash-completion is not installed (make deps installs it)"
fi
echo "ok: bash completion"

# systemd-analyze verify on both units, the worker as an instance. verify needs ExecStart's
# program to exist and checks the units against this machine's own (sysinit.target, ...): the
# units of an install into a prefix of the test's own (no DESTDIR) name that prefix's eacu.
command -v systemd-analyze >/dev/null || fail "systemd-analyze is not installed (make deps installs systemd)"
prefix=$dest/prefix
cmake --install "$BUILD" --prefix "$prefix" >"$OUT/install-prefix.log" 2>&1 || fail "cmake --install --prefix failed"
grep -q "^ExecStart=$prefix/bin/eacu serve " "$prefix/lib/systemd/system/eacu-serve.service" || fail "the units name the prefix's eacu"
units=$dest/units
mkdir -p "$units"
cp "$prefix/lib/systemd/system/eacu-serve.service" "$units/"
cp "$prefix/lib/systemd/system/eacu-worker@.service" "$units/eacu-worker@w1.service"
for unit in eacu-serve.service eacu-worker@w1.service; do
  SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no "$units/$unit" >"$OUT/verify-$unit.log" 2>&1 ||
    fail "systemd-analyze verify $unit: $(cat "$OUT/verify-$unit.log")"
  # Warnings count too (verify exits 0 on some of them).
  [ ! -s "$OUT/verify-$unit.log" ] || fail "systemd-analyze verify $unit says: $(cat "$OUT/verify-$unit.log")"
done
# verify does catch a broken unit (so the check above means something).
sed 's/^ExecStart=/ExecStrat=/' "$units/eacu-serve.service" >"$units/broken.service"
if SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no "$units/broken.service" >"$OUT/verify-broken.log" 2>&1 &&
   [ ! -s "$OUT/verify-broken.log" ]; then
  fail "systemd-analyze verify passed a unit with no ExecStart"
fi
echo "ok: systemd-analyze verify on eacu-serve.service and eacu-worker@.service"
echo "install_rules: ok"
