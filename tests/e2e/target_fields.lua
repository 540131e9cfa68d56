-- Target tables mean what they say, on a real GTK dialog (zenity) read by OCR: the timeout
-- given inside a target table is honoured (the failed tap is timed by target_fields.sh from the
-- run log), and a positional "text:..." is a text target as the string form is.
local q = launch { "zenity", "--question", "--title=eacu target fields", "--text=Continue with the update?",
  "--ok-label=Proceed", "--cancel-label=Postpone" }
wait { text = "Continue with the update?", timeout = 30 }
local ok, err = pcall(tap, { text = "NoSuchLabel", timeout = 1 })
assert(not ok, "tapping an absent label should fail")
print("absent label: " .. tostring(err))
assert(tostring(err):find("within 1", 1, true), "the failure should say the 1 s timeout: " .. tostring(err))
local m = tap { "text:Postpone", timeout = 10 }
print(string.format("tapped Postpone at %d,%d (%s, score %.2f)", m.cx, m.cy, m.method, m.score))
local code = q:wait(10)
assert(code == 1, "zenity should exit 1 after Postpone, got " .. tostring(code))
print("target fields: timeout in the table honoured, { \"text:Postpone\" } tapped")
