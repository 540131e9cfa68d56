#!/usr/bin/env bash
# Typed text arrives whole (issue 36, item 7): 50 strings of mixed CJK and Latin (more distinct
# characters than the keymap has spare keycodes, so keycodes are remapped again and again) typed
# into GTK (zenity --entry) and xterm (cat into a file) on a virtual display, each compared
# with what the program received. Tk is not checked: it still loses or misreads characters
# (1 run in 10 of `input "张三"` then exit; 3-7 of these 50 strings), docs/not-there-yet.md.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
python3 - "$OUT/strings.txt" <<'PY'
import random, sys
rng = random.Random(36)
cjk = "张三李四王五你好世界中文输入测试日本語東京大阪カタカナひらがな한국어서울漢字繁體简体汉字上海北京广州深圳"
latin = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:!?@#$%&*()-_=+[]{}'\"/<>~ "
accents = "éèêëàâäôöûüçñÀÉÎÕÜß"
with open(sys.argv[1], "w", encoding="utf-8") as f:
    for _ in range(50):
        s = "".join(rng.choice(rng.choice([cjk, cjk, latin, accents])) for _ in range(rng.randint(4, 12)))
        f.write((s.strip() or "空") + "\n")
PY
[ "$(wc -l <"$OUT/strings.txt")" = 50 ] || fail "expected 50 strings"
t0=$(date +%s.%N)
"$EACU" run "$here/typed_text.lua" --display virtual --db "$OUT/runs.db" --max-actions 1000 -- \
  "$OUT/strings.txt" "$OUT/xterm.txt" >"$OUT/out" 2>"$OUT/err" || {
  cat "$OUT/err" >&2; fail "eacu run exited $?"; }
python3 - "$OUT/strings.txt" "$OUT/out" "$OUT/xterm.txt" <<'PY'
import sys
want = open(sys.argv[1], encoding="utf-8").read().splitlines()
out = open(sys.argv[2], encoding="utf-8").read().splitlines()
bad = []
gtk = next((l[4:] for l in out if l.startswith("gtk ")), None)
got = gtk.split("|") if gtk is not None else []
for i, w in enumerate(want, 1):
    g = got[i - 1] if i <= len(got) else None
    if g != w: bad.append(f"gtk #{i}: typed {w!r}, received {g!r}")
xt = open(sys.argv[3], encoding="utf-8").read().splitlines()
for i, w in enumerate(want, 1):
    g = xt[i - 1] if i <= len(xt) else None
    if g != w: bad.append(f"xterm #{i}: typed {w!r}, received {g!r}")
if bad:
    print("\n".join(bad[:20]), file=sys.stderr)
    sys.exit(f"FAIL: {len(bad)} of 100 strings arrived changed")
print("typed_text: 100 strings arrived whole (50 each in GTK and xterm)")
PY
echo "typed_text: 2 programs took $(echo "$(date +%s.%N) - $t0" | bc) s"

echo "typed_text: 1 passed, 0 failed"
