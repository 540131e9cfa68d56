#!/usr/bin/env bash
# `eacu bench adb` on the phone-cost stand-in (tests/adb_device/standin.py --costs phone) at
# 1080x2400, once over a USB 2 link (35 MB/s) and once over Wi-Fi adb (5 MB/s), each before and
# after the video stream (EACU_ADB_STREAM=0: raw screencaps; then frames from screenrecord's H.264
# stream): raw and PNG captures, taps, whole steps on 张三 by the tree, by its text and by its
# image, and N send-message tasks, each as a ratio to one raw screencap of the same run (issue
# 38's goals); then input -> changed frame on the page on a still screen (N taps on 张三 and N
# BACK keys as the take-over performs the person's input, each until the run's live screen
# publishes a changed frame: --input-to-frame), without and with the stream, and with the stream
# through eacu serve's page (adb_page_input.py: the take-over's HTTP input, the frame's arrival
# on the SSE stream); then live frames/s for 5 s while the stand-in animates (its `animate`
# fault, 30 frames/s), without and with the stream. Touches go through sendevent on the
# stand-in's touchscreen (getevent -pl); the stream's steps are also timed with
# EACU_ADB_TOUCH=input (a new `input` process per touch, as before sendevent). Each `eacu bench
# adb` prints where its steps' time goes (locate, input, effect and settle, the rest). A command
# that fails is reported and the next one runs.
# Not part of make test (minutes by design).
# Usage: tests/bench/adb_phone.sh EACU [N] [OUT] [LINKS] (LINKS: "usb wifi", the default, or one of them)
set -euo pipefail
EACU=$(realpath "$1"); N=${2:-5}; OUT=${3:-$(mktemp -d /tmp/eacu-bench-adb-XXXXXX)}; LINKS=${4:-usb wifi}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.bash"
. "$here/../adb_device/standin.bash"
export EACU_HOME=${EACU_HOME:-$(cd "$here/../.." && pwd)}
unset EACU_TEST_ADB_SERIAL
start_test
start_android --costs phone --link 35
usb=$serial
start_more_android wifi --costs phone --link 5
wifi=$more_serial
# bench WHAT ENV... -- ARGS...: one `eacu bench adb`, announced; a failure is said and the script goes on.
bench() {
  local what=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  echo "== $what: ${envs[*]} eacu bench adb $*"
  env "${envs[@]}" "$EACU" bench adb "$@" || echo "== FAILED (status $?): $what"
}
for link in "usb USB 2 (35 MB/s) $usb $control" "wifi Wi-Fi (5 MB/s) $wifi $more_control"; do
  ctl=${link##* }; link=${link% *}; s=${link##* }; what=${link% *}; key=${what%% *}; what=${what#* }
  case " $LINKS " in *" $key "*) ;; *) continue ;; esac
  bench "$what, raw screencaps" EACU_ADB_STREAM=0 -- --device "adb:$s" --n "$N" --tap 张三 --send 你好
  bench "$what, the video stream, touches by input" EACU_ADB_TOUCH=input -- --device "adb:$s" --n "$N" --tap 张三 --send 你好
  bench "$what, the video stream" EACU_ADB_TOUCH=sendevent -- --device "adb:$s" --n "$N" --tap 张三 --send 你好
  bench "$what, still" EACU_ADB_STREAM=0 -- --device "adb:$s" --n "$N" --tap 张三 --input-to-frame
  bench "$what, still" EACU_ADB_STREAM=1 -- --device "adb:$s" --n "$N" --tap 张三 --input-to-frame
  echo "== $what, still, through eacu serve's page (HTTP input, SSE live frames): adb_page_input.py"
  EACU_ADB_STREAM=1 ADB_CLIENT_HOME=$OUT/home python3 "$here/adb_page_input.py" "$EACU" "$s" "$N" "$OUT/page_$key" 张三 ||
    echo "== FAILED (status $?): $what, through the page"
  echo 30 >"$ctl/animate"
  bench "$what, animating" EACU_ADB_STREAM=0 -- --device "adb:$s" --n 3 --live 5
  bench "$what, animating" EACU_ADB_STREAM=1 -- --device "adb:$s" --n 3 --live 5
  rm -f "$ctl/animate"
done
