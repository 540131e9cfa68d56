-- Taps buttons of a real GTK dialog (zenity) by their text, read by OCR: English, then Chinese.
-- zenity's exit status says which button was pressed (0: OK label, 1: cancel label).
local q = launch { "zenity", "--question", "--title=eacu text test", "--text=Continue with the update?",
  "--ok-label=Proceed", "--cancel-label=Postpone" }
wait({ text = "Continue with the update?" }, 30)
local m = tap { text = "Postpone" }
print(string.format("tapped Postpone at %d,%d (%s, score %.2f)", m.cx, m.cy, m.method, m.score))
local code = q:wait(10)
assert(code == 1, "zenity should exit 1 after Postpone, got " .. tostring(code))

-- Chinese: pick a row of a list by its text, confirm with Return; zenity prints the row.
local zh = launch { "zenity", "--list", "--title=城市", "--text=选择一个城市", "--column=城市",
  "--width=400", "--height=300", "北京", "上海", "广州" }
wait({ text = "选择一个城市" }, 30)
tap "text:上海"
key "Return"
local picked = zh:read(10)
assert(zh:wait(10) == 0, "zenity --list should exit 0")
assert(picked == "上海\n", "zenity printed " .. string.format("%q", picked) .. ", expected 上海")
print("text taps: Postpone -> 1, 上海 picked")
