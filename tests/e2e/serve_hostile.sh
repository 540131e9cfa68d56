#!/usr/bin/env bash
# eacu serve against hostile input (serve_hostile.py): path traversal, markup and script in a
# task's text on the chat page (headless Chromium), and the token and model API key kept out of
# the run log, the report, the console and error messages. A real eacu serve (--token, one
# worker, xcalc) and the suite's local model server with a key of its own.
set -euo pipefail
EACU=$1; OUT=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.bash"
start_test
MODEL_KEY="sk-hostile-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
use_model_server --key "$MODEL_KEY"
token="tok-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
db=$OUT/serve.db
start_serve --workers 1 --token "$token" --launch xcalc --db "$db"
python3 "$here/serve_hostile.py" "$EACU" "$OUT" "$url" "$token"
kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
# The console: what eacu serve printed from start to stop.
for f in "$OUT/serve.out" "$OUT/serve.err"; do
  grep -qF "$MODEL_KEY" "$f" && fail "the model API key is in $(basename "$f")"
  grep -qF "$token" "$f" && fail "the serve token is in $(basename "$f"): $(grep -F "$token" "$f" | head -2)"
done
# The model server saw the key (so it was in use).
grep -q '"auth_ok": true' "$OUT/server.jsonl" || fail "no model call was authorised with the key"
# A wrong API key that the provider echoes in its 401 answer (as OpenAI's API does): the
# failed run's error on the console, in the run log and in its report does not hold it.
wrong="sk-wrong-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
cat > "$OUT/ask.lua" <<'LUA'
launch { "xmessage", "-center", "what does this say?" }
wait({ text = "what does this say?" }, 30)
print(ask "what does the window say?")
LUA
rc=0
EACU_MODEL_API_KEY=$wrong "$EACU" run "$OUT/ask.lua" --display virtual --db "$OUT/ask.db" --verbose >"$OUT/ask.out" 2>"$OUT/ask.err" || rc=$?
[ "$rc" != 0 ] || fail "a run with a wrong API key passed"
expect_contains "$(cat "$OUT/ask.err")" "HTTP 401" "the failed model call on the console"
"$EACU" report --db "$OUT/ask.db" -o "$OUT/ask.html" >/dev/null
for f in "$OUT/ask.out" "$OUT/ask.err" "$OUT/ask.html"; do
  grep -qF "${wrong:0:12}" "$f" && fail "the wrong API key is in $(basename "$f"): $(grep -oF "${wrong:0:12}" "$f" | head -1)"
done
dump=$(sqlite3 "$OUT/ask.db" .dump)
! grep -qF "${wrong:0:12}" <<<"$dump" || fail "the wrong API key is in the run log"
echo "serve_hostile: passed"
