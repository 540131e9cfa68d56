# The healing test's set-up, shared by tests/e2e/heal.sh and tests/bench/heal.sh: the v1 script
# of tests/e2e/heal_app.py as the recorder writes it. Needs $EACU, $OUT, $db and lib.bash.
heal_app="python3 $(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/heal_app.py"

# Writes $OUT/v1.lua: a run tapping the places v1 tells (the fruit Banana, the icon, Save, 确定)
# written by `eacu script` (every target proven on its frame, alternatives and proof frames
# kept in $OUT/v1_assets); its launch line reads "VERSION LOGFILE" for script_for.
heal_record_v1() {
  cat >"$OUT/drive.lua" <<LUA
launch "$heal_app v1 $OUT/drive.log $OUT/places"
local deadline = os.time() + 30
local places
while os.time() < deadline do
  local f = io.open("$OUT/places")
  if f then places = f:read("*a"); f:close(); break end
  sleep(0.1)
end
assert(places, "the app did not say where its widgets are within 30 s")
wait_stable(10)
for _, w in ipairs({ "row", "icon", "save", "ok" }) do
  local x, y = places:match(w .. " (%d+) (%d+)")
  tap { x = tonumber(x), y = tonumber(y) }
end
LUA
  local out
  out=$("$EACU" run "$OUT/drive.lua" --display virtual --db "$db" 2>&1) || fail "the v1 driver run failed: $out"
  local drive; drive=$(sqlite3 "$db" "SELECT MAX(id) FROM runs")
  expect_eq "$(grep -c '^click\|^select' "$OUT/drive.log")" "4" "the driver's four clicks on v1"
  out=$("$EACU" script "$drive" -o "$OUT/v1.lua" --assets "$OUT/v1_assets" --db "$db" 2>&1) || fail "eacu script failed: $out"
  sed -i "s|$heal_app v1 $OUT/drive.log $OUT/places|$heal_app VERSION LOGFILE|" "$OUT/v1.lua"
}

# script_for VERSION LOG NAME: $OUT/NAME, the v1 script launching VERSION logging to LOG.
script_for() { sed "s|VERSION LOGFILE|$1 $2|" "$OUT/v1.lua" >"$OUT/$3"; }

# The app's events in LOG that are not mouse presses, on one line.
app_events() { grep -v '^press' "$1" | tr '\n' ' '; }
