-- Types Chinese, punctuation and ASCII into a real GTK text field (zenity --entry) and checks
-- that exactly that text arrived: zenity prints what its entry holds when it is confirmed.
local text = arg[1] or "你好, eacu 123"
local dialog = launch { "zenity", "--entry", "--title", "eacu input test", "--text", "Type here:" }
wait("images/zenity_prompt.png", 20)
-- The entry lies under the prompt; tapping it focuses it.
tap { image = "images/zenity_prompt.png", offset = { 51, 30 } }
input(text)
key "Return"
local got = dialog:read(10)
print("zenity received: " .. got)
assert(dialog:wait(10) == 0, "zenity did not exit with 0")
if got ~= text .. "\n" then
  error(string.format("typed %q but the field received %q", text, got), 0)
end
