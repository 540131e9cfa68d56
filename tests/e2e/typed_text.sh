#!/usr/bin/env bash
# Typed text arrives whole (issue 36, item 7): 50 strings of mixed CJK and Latin (more distinct
# characters than the keymap has spare keycodes, so keycodes are remapped again and again) typed
# ten per `input` into Tk, GTK (zenity --entry) and xterm (cat into a file) on a virtual display,
# each compared with what the program received. Then the case that lost characters: `eacu run`
# typing 张三 into a Tk entry on the test's own Xvfb and exiting at once (the mapping is restored
# as eacu closes), ten times: every line must read 张三.
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
  "$OUT/strings.txt" "$here/typed_text_tk.py" "$OUT/xterm.txt" >"$OUT/out" 2>"$OUT/err" || { rc=$?;
  cat "$OUT/err" >&2; fail "eacu run exited $rc"; }
python3 - "$OUT/strings.txt" "$OUT/out" "$OUT/xterm.txt" <<'PY'
import sys
want = open(sys.argv[1], encoding="utf-8").read().splitlines()
out = open(sys.argv[2], encoding="utf-8").read().splitlines()
bad = []
tk = {}
for line in out:
    if line.startswith("tk "):
        _, i, got = line.split(" ", 2)
        tk[int(i)] = got
for i, w in enumerate(want, 1):
    if tk.get(i) != w: bad.append(f"tk #{i}: typed {w!r}, received {tk.get(i)!r}")
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
    sys.exit(f"FAIL: {len(bad)} of 150 strings arrived changed")
print("typed_text: 150 strings arrived whole (50 each in Tk, GTK, xterm)")
PY
echo "typed_text: 3 programs took $(echo "$(date +%s.%N) - $t0" | bc) s"

# The run that exits right after typing: eacu restores the keymap as it closes.
Xvfb -displayfd 3 -screen 0 800x600x24 -nolisten tcp 3>"$OUT/displayfd" 2>/dev/null &
xvfb=$!
trap 'kill $xvfb $tkpid 2>/dev/null || true' EXIT
tkpid=
for _ in $(seq 100); do [ -s "$OUT/displayfd" ] && break; sleep 0.05; done
disp=:$(cat "$OUT/displayfd")
DISPLAY=$disp python3 "$here/typed_text_tk.py" >"$OUT/tk_exit.txt" 2>"$OUT/tk_exit.err" &
tkpid=$!
cat >"$OUT/once.lua" <<'LUA'
window({ title = "eacu typed text tk" }, 20):focus()
input "张三"
key "Return"
LUA
for i in $(seq 10); do
  "$EACU" run "$OUT/once.lua" --display "$disp" --db "$OUT/runs.db" >/dev/null 2>"$OUT/once.err" || { rc=$?;
    cat "$OUT/once.err" >&2; fail "eacu run #$i exited $rc"; }
done
for _ in $(seq 200); do [ "$(wc -l <"$OUT/tk_exit.txt")" -ge 10 ] && break; sleep 0.05; done
expect_eq "$(sort "$OUT/tk_exit.txt" | uniq -c | sed 's/^ *//')" "10 张三" "Tk's lines after 10 runs that exit right after typing"
echo "typed_text: 2 passed, 0 failed"
