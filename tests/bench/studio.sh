#!/usr/bin/env bash
# eacu studio's numbers (issue 37) on xcalc at 1280x800 (X11, a private Xvfb), its page driven
# through headless Chromium (tests/e2e/studio_page.py --case xcalc): page click -> device input
# median (the page's input request, answered once the device took the input), pointer rest ->
# element info p90, the proof per action median (its own time) and the time from the input to
# the line proven (the pointer resting REST s on each key first, as a person's does: the point
# is proven ahead meanwhile), each also as a ratio to one full-frame locate of the same crops in
# the same run; then the live screen's frames/s while the screen changes, on X11 and on the
# chromium device. Not part of make test. Usage: tests/bench/studio.sh EACU [N] [OUT] [REST]
set -euo pipefail
EACU=$(realpath "$1"); N=${2:-7}; OUT=${3:-$(mktemp -d /tmp/eacu-bench-studio-XXXXXX)}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../e2e/lib.bash"
export EACU_HOME=${EACU_HOME:-$(cd "$here/../.." && pwd)}
start_test
"$EACU" studio --port 0 --display virtual:1280x800 --launch xcalc -o "$OUT/calc.lua" >"$OUT/studio.out" 2>"$OUT/studio.err" &
studio_pid=$!
trap 'kill "$studio_pid" 2>/dev/null || true' EXIT
url=$(await_printed "$OUT/studio.out" "$studio_pid" 's|^eacu studio: \(http://[^ ]*\)$|\1|p' "eacu studio" "$OUT/studio.err") || exit 1
disp=$(await_printed "$OUT/studio.out" "$studio_pid" 's/^eacu studio: x11 \(:[0-9]*\) .*/\1/p' "eacu studio" "$OUT/studio.err") || exit 1
# Where a person sees the keys AC 1 2 × 3 4 = (eacu's own text search on the display).
cat >"$OUT/eyes.lua" <<'LUA'
local out = {}
for _, t in ipairs({ "AC", "1", "2", "×", "3", "4", "=" }) do
  local v = wait(t, 20)
  out[#out + 1] = v.cx .. "," .. v.cy
end
print(table.concat(out, " "))
LUA
points=$("$EACU" run "$OUT/eyes.lua" --display "$disp" --db "$OUT/eyes.db" 2>"$OUT/eyes.err" | tail -1) || fail "the eyes: $(cat "$OUT/eyes.err")"
python3 "$here/../e2e/studio_page.py" "$url" --case xcalc --points "$points" --bench "$N" --rest "${4:-1.5}" --out "$OUT" |
  tee "$OUT/bench.out"
grep '^studio_bench' "$OUT/bench.out"
kill -INT "$studio_pid"; wait "$studio_pid" || true
# The live screen's frame rate while the screen changes 50 times a second: X11 (a Tk counter
# from the page's launch box) and the chromium device (a counting page from its URL box).
for dev in "--display virtual:1280x800" "--device chromium"; do
  # shellcheck disable=SC2086
  "$EACU" studio --port 0 $dev -o "$OUT/fps.lua" >"$OUT/fps.out" 2>"$OUT/fps.err" &
  studio_pid=$!
  url=$(await_printed "$OUT/fps.out" "$studio_pid" 's|^eacu studio: \(http://[^ ]*\)$|\1|p' "eacu studio" "$OUT/fps.err") || exit 1
  python3 "$here/../e2e/studio_page.py" "$url" --case fps --out "$OUT" | tee -a "$OUT/bench.out" | grep '^studio_bench'
  kill -INT "$studio_pid"; wait "$studio_pid" || true
done
echo "bench studio: output in $OUT"
