#!/usr/bin/env bash
# The Debian package on this machine (issue 35; `make test-package`, run by CI after make test):
# installs BUILD/eacu_*_amd64.deb with the install lines of deploy/Containerfile (apt-get update,
# apt-get install -y), then through the installed /usr/bin/eacu alone (no EACU_HOME, run from a
# folder outside the source tree): the calculator example from /usr/share/eacu/examples on a
# private display, `eacu worker --help`, a task served by `eacu serve` (the calculator template
# on xcalc); the man page, the completion, the Windows agent and the units are where the package
# says; then `apt-get remove --purge` and nothing of the package is left (only the services'
# state directory /var/lib/eacu may stay). Prints the benchmark lines: the time from the install
# command to the example's end, the .deb's size, its dependency count.
# Usage: package_test.sh BUILD_DIR
set -uo pipefail
BUILD=$(cd "$1" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$BUILD/package-test
. "$SRC/tests/e2e/lib.bash"
start_test
unset EACU_HOME EACU_STDLIB_DIR
SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo

debs=("$BUILD"/eacu_*_amd64.deb)
[ "${#debs[@]}" = 1 ] && [ -f "${debs[0]}" ] || fail "expected one eacu_*_amd64.deb in $BUILD (make package), got: ${debs[*]}"
deb=${debs[0]}
if dpkg-query -W -f='${Status}' eacu 2>/dev/null | grep -q 'install ok installed'; then
  fail "the eacu package is already installed on this machine: the test installs and purges it itself (apt-get remove --purge eacu first)"
fi
cleanup() {
  if dpkg-query -W -f='${Status}' eacu 2>/dev/null | grep -q installed; then
    $SUDO env APT_CONFIG="${APT_CONFIG:-/dev/null}" DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -q eacu >/dev/null 2>&1 || true
  fi
  [ -z "${serve_pid:-}" ] || kill "$serve_pid" 2>/dev/null || true
}
trap cleanup EXIT

# The .deb: its size, its dependencies (dpkg-shlibdeps' libraries plus the OCR data).
size=$(stat -c %s "$deb")
depends=$(dpkg-deb -f "$deb" Depends)
ndeps=$(tr ',' '\n' <<<"$depends" | grep -c .)
echo "package $(basename "$deb"): $size bytes ($((size / 1024)) KiB), $ndeps dependencies"
echo "Depends: $depends"
echo "Recommends: $(dpkg-deb -f "$deb" Recommends)"
echo "Suggests: $(dpkg-deb -f "$deb" Suggests)"
for d in tesseract-ocr-eng tesseract-ocr-chi-sim libluajit-5.1-2 libopencv-core406 libhiredis0.14; do
  grep -q "$d" <<<"$depends" || fail "Depends lacks $d: $depends"
done
expect_eq "$(dpkg-deb -f "$deb" Version)" "$("$BUILD/eacu" --version | cut -d' ' -f2)" "the package's version"

# The install: the Containerfile's own lines, with the .deb where the Containerfile copies it.
# Each RUN instruction one shell line (its continuation lines joined).
block=$(sed -n '/^# package-test: begin/,/^# package-test: end/p' "$SRC/deploy/Containerfile" | grep -v '^#' |
        sed -e ':a' -e '/\\$/N; s/\\\n//; ta' | sed 's/^RUN //')
[ -n "$block" ] || fail "deploy/Containerfile has no package-test block"
mkdir -p "$OUT/deb"
cp "$deb" "$OUT/deb/"
cmd=${block//\/tmp\/eacu\//$OUT/deb/}
echo "install: $cmd"
t0=$(date +%s.%N)
# Another apt on this machine (CI installing packages) holds dpkg's lock: wait for it, not fail.
printf 'DPkg::Lock::Timeout "600";\n' >"$OUT/apt.conf"
export APT_CONFIG=$OUT/apt.conf
$SUDO env APT_CONFIG="$APT_CONFIG" sh -ec "$cmd" >"$OUT/apt.log" 2>&1 || fail "the install failed: $(tail -20 "$OUT/apt.log")"
t_installed=$(date +%s.%N)
command -v eacu >/dev/null && [ "$(command -v eacu)" = /usr/bin/eacu ] || fail "no /usr/bin/eacu after the install"

# The calculator example, from /usr/share/eacu, on a private display, from a folder of its own.
cd "$OUT"
out=$(eacu run /usr/share/eacu/examples/calculator.lua --display virtual --db "$OUT/calc.db" 2>&1) ||
  fail "the installed calculator example failed: $out"
t_calc=$(date +%s.%N)
expect_contains "$out" "12 × 34 = 408" "the installed calculator example"
echo "ok: the calculator example from /usr/share/eacu/examples"
awk -v a="$t0" -v b="$t_installed" -v c="$t_calc" \
  'BEGIN { printf "bench install_s %.1f\nbench install_to_calculator_end_s %.1f\n", b - a, c - a }'

out=$(eacu worker --help) || fail "eacu worker --help exited $?"
expect_contains "$out" "--drain S" "eacu worker --help"
expect_eq "$(eacu --version)" "$("$BUILD/eacu" --version)" "installed eacu --version"
echo "ok: eacu worker --help, eacu --version"

# A served task through the installed binary: eacu serve (one local worker, xcalc on its
# display) runs "compute 7*8" with the calculator module's template.
python3 - "$OUT" "$SRC" <<'PY' || fail "the served task through the installed eacu failed"
import os, sys
sys.path.insert(0, os.path.join(sys.argv[2], "tests/e2e"))
from serve_client import Api, Server, wait_until
out = sys.argv[1]
server = Server("/usr/bin/eacu", ["--workers", "1", "--launch", "xcalc", "--db", os.path.join(out, "serve.db")],
                os.path.join(out, "serve.log"))
try:
    api = Api(server)
    tid = api.ok("POST", "/task", {"task": "compute 7*8"})["task_id"]
    view = wait_until(lambda: (v := api.ok("GET", f"/task/{tid}"))["status"] not in ("queued", "running") and v,
                      180, "the served task to end")
    print(f"served task {tid}: {view['status']} {view.get('result')!r} {view.get('error')!r}")
    if view["status"] != "completed" or "56" not in (view.get("result") or ""):
        sys.exit(1)
finally:
    server.stop()
PY
echo "ok: a task served by the installed eacu serve"

# What the package put where its users look.
man -w eacu | grep -qx /usr/share/man/man1/eacu.1.gz || fail "man -w eacu: $(man -w eacu 2>&1)"
for f in /usr/share/bash-completion/completions/eacu /usr/share/eacu/windows/eacu-agent.exe \
         /usr/share/eacu/meta/eacu.lua /usr/lib/systemd/system/eacu-serve.service \
         /usr/lib/systemd/system/eacu-worker@.service /usr/share/doc/eacu/docs/deploy.md; do
  dpkg -S "$f" >/dev/null 2>&1 || fail "the package does not own $f"
done
file -b /usr/share/eacu/windows/eacu-agent.exe | grep -q 'PE32+ executable' || fail "eacu-agent.exe is not a Windows executable"
mkdir -p "$OUT/units"
cp /usr/lib/systemd/system/eacu-serve.service "$OUT/units/"
cp /usr/lib/systemd/system/eacu-worker@.service "$OUT/units/eacu-worker@w1.service"
for unit in eacu-serve.service eacu-worker@w1.service; do
  v=$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no "$OUT/units/$unit" 2>&1) ||
    fail "systemd-analyze verify $unit (installed): $v"
  [ -z "$v" ] || fail "systemd-analyze verify $unit (installed) says: $v"
done
echo "ok: man page, completion, agent, stubs, units in place; the units verify"

# Remove and purge: nothing of it is left but the services' state directory.
dpkg -L eacu >"$OUT/files.txt"
$SUDO env APT_CONFIG="$APT_CONFIG" DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -q eacu >"$OUT/purge.log" 2>&1 ||
  fail "apt-get remove --purge eacu: $(tail -5 "$OUT/purge.log")"
if dpkg-query -W -f='${Status}' eacu 2>/dev/null | grep -q installed; then
  fail "eacu is still known to dpkg after the purge"
fi
left=$(while read -r f; do if [ -f "$f" ] || [ -L "$f" ]; then echo "$f"; fi; done <"$OUT/files.txt")
[ -z "$left" ] || fail "files of the package left after the purge: $left"
left=$(find /usr /etc /var /opt \( -path /var/lib/eacu -o -path /var/lib/private/eacu \) -prune -o \
         \( -name 'eacu' -o -name 'eacu.*' -o -name 'eacu-*' -o -name 'eacu@*' -o -name 'eacu_*' \) -print 2>/dev/null || true)
[ -z "$left" ] || fail "left after the purge: $left"
echo "ok: apt-get remove --purge leaves nothing of eacu (but /var/lib/eacu, if a service made it)"
echo "package_test: ok"
