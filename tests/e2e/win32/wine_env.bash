# Wine for the Windows agent's tests: the test's own Xvfb and a fresh prefix in $OUT with
# Wine's virtual desktop (without it there are no frames and capture breaks), no Mono/Gecko
# installers, winedbg disabled (an unimplemented call then ends the program instead of
# hanging the test), the Wine symbol fonts and Chinese UI faces mapped to WenQuanYi Micro Hei.
# See /work/shared/reference/wine.md (measured facts about Wine 8 on this kind of machine).

# Starts Xvfb WxH (default 1280x800) on a free display; sets $DISPLAY and $xvfb_pid.
start_wine_xvfb() {
  local size=${1:-1280x800}
  Xvfb -displayfd 1 -screen 0 "${size}x24" -nolisten tcp >"$OUT/xvfb.display" 2>"$OUT/xvfb.err" &
  xvfb_pid=$!
  local n; n=$(await_printed "$OUT/xvfb.display" "$xvfb_pid" 's/^\([0-9][0-9]*\)$/\1/p' "Xvfb" "$OUT/xvfb.err") || exit 1
  export DISPLAY=:$n
}

# A fresh prefix at $1 (WINEPREFIX and the variables every wine command of the test needs are
# exported); `wineboot -i` then the registry and fonts. Takes 6-10 s.
make_wine_prefix() {
  export WINEPREFIX=$1 WINEARCH=win64 WINEDEBUG=-all
  export WINEDLLOVERRIDES="mscoree,mshtml=;winemenubuilder.exe=d;winedbg.exe=d"
  local wine=${WINE:-$(command -v wine || command -v wine64 || true)}
  [ -n "$wine" ] || fail "wine is not installed (make test installs wine64)"
  WINE=$wine
  WINESERVER=$(command -v wineserver || echo /usr/lib/wine/wineserver64)
  timeout 120 "$WINE" wineboot -i >"$OUT/wineboot.log" 2>&1 || fail "wineboot -i failed: $(tail -5 "$OUT/wineboot.log")"
  local fonts=$WINEPREFIX/drive_c/windows/Fonts f
  mkdir -p "$fonts"
  for f in /usr/share/wine/fonts/{marlett,symbol,wingding,webdings}.ttf; do [ -f "$f" ] && cp "$f" "$fonts/"; done
  {
    printf 'Windows Registry Editor Version 5.00\r\n\r\n'
    printf '[HKEY_CURRENT_USER\\Software\\Wine\\Explorer]\r\n"Desktop"="Default"\r\n\r\n'
    printf '[HKEY_CURRENT_USER\\Software\\Wine\\Explorer\\Desktops]\r\n"Default"="%s"\r\n\r\n' "${2:-1280x800}"
    printf '[HKEY_CURRENT_USER\\Software\\Wine\\WineDbg]\r\n"ShowCrashDialog"=dword:00000000\r\n\r\n'
    printf '[HKEY_CURRENT_USER\\Software\\Wine\\Fonts\\Replacements]\r\n'
    for f in "Tahoma" "Segoe UI" "SimSun" "NSimSun" "Microsoft YaHei" "MS Shell Dlg" "MS Shell Dlg 2" \
      "MS Sans Serif" "Arial" "宋体" "微软雅黑"; do
      printf '"%s"="WenQuanYi Micro Hei"\r\n' "$f"
    done
  } | iconv -f UTF-8 -t UTF-16 >"$OUT/prefix.reg"
  timeout 60 "$WINE" regedit /S "$(winepath_w "$OUT/prefix.reg")" >>"$OUT/wineboot.log" 2>&1 || fail "regedit failed"
  timeout 60 "$WINESERVER" -w >>"$OUT/wineboot.log" 2>&1 || true
}

# Cross-builds the agent and the test form (tests/e2e/win32/form.c) into $OUT/agent-build with
# mingw-w64; sets $agent_exe and $form_exe.
build_agent() {
  local root; root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
  cmake -S "$root/agent" -B "$OUT/agent-build" -DCMAKE_TOOLCHAIN_FILE="$root/cmake/mingw-w64.cmake" \
    -DCMAKE_BUILD_TYPE=Release >"$OUT/agent-build.log" 2>&1 || fail "configuring the agent: $(tail -5 "$OUT/agent-build.log")"
  cmake --build "$OUT/agent-build" -j2 >>"$OUT/agent-build.log" 2>&1 || fail "building the agent: $(tail -20 "$OUT/agent-build.log")"
  agent_exe=$OUT/agent-build/eacu-agent.exe
  form_exe=$OUT/agent-build/eacu-test-form.exe
  [ -f "$agent_exe" ] && [ -f "$form_exe" ] || fail "the cross-build made no eacu-agent.exe or eacu-test-form.exe"
}

# Starts eacu-agent.exe under Wine on a free loopback port with the token $token (a fresh one
# when unset), logging to $OUT/agent.out and agent.err; sets $agent_pid, $port and $addr once it
# says where it listens.
start_agent() {
  [ -n "${token:-}" ] || token=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
  "$WINE" "$agent_exe" --port 0 --token "$token" >"$OUT/agent.out" 2>"$OUT/agent.err" &
  agent_pid=$!
  port=$(await_printed "$OUT/agent.out" "$agent_pid" 's/^eacu-agent: listening on 127.0.0.1:\([0-9]*\) .*/\1/p' \
    "eacu-agent.exe" "$OUT/agent.err") || exit 1
  addr=127.0.0.1:$port
}

# The Windows path of a Linux path (Wine maps / as drive Z:).
winepath_w() { echo "Z:${1//\//\\}"; }

# start_form NAME [VERSION]: a fresh test form (build_agent's $form_exe; VERSION v1, v2 or v3,
# default v1) writing to $OUT/NAME.txt; waits until it says it is ready.
start_form() {
  "$WINE" "$form_exe" "$(winepath_w "$OUT")\\$1.txt" ${2:+"$2"} >/dev/null 2>&1 &
  local i
  for i in $(seq 600); do grep -q '^form: ready' "$OUT/$1.txt" 2>/dev/null && return 0; sleep 0.1; done
  fail "the form ($1${2:+, $2}) did not start within 60 s"
}
# expect_form NAME LINE WHAT: waits up to 30 s for form NAME's last line to be LINE (the form
# writes what it got as it exits).
expect_form() {
  local i
  for i in $(seq 300); do [ "$(tail -1 "$OUT/$1.txt" 2>/dev/null)" = "$2" ] && break; sleep 0.1; done
  expect_eq "$(tail -1 "$OUT/$1.txt" 2>/dev/null)" "$2" "$3"
}

# Stops every process of the test's prefix (wineserver -k, which waits for them) and its Xvfb.
stop_wine() {
  [ -n "${WINESERVER:-}" ] && timeout 20 "$WINESERVER" -k 2>/dev/null || true
  [ -n "${xvfb_pid:-}" ] && kill "$xvfb_pid" 2>/dev/null || true
}

# Fails unless no Wine process (wineserver, a Windows program) of the prefix $WINEPREFIX runs
# any more, waiting up to 10 s. (The test's own shell carries WINEPREFIX too: only processes
# whose executable is Wine's count.)
expect_wine_gone() {
  local i left p
  for i in $(seq 100); do
    left=""
    for p in /proc/[0-9]*; do
      case "$(readlink "$p/exe" 2>/dev/null)" in */wine/*|*/wine64*|*/wineserver*) ;; *) continue ;; esac
      { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -qx "WINEPREFIX=$WINEPREFIX" && left="$left ${p#/proc/}"
    done
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  fail "processes of the Wine prefix $WINEPREFIX are still running:$left"
}
