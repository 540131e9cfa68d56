-- Markup and script in what a run records: typed into a real GTK entry (zenity), as a text
-- target that is never found. tests/e2e/report_injection.sh opens the report in Chromium.
local typed = [[</script><script>document.body.dataset.pwned='typed'</script><!--]]
local sought = [[<img src=x onerror="document.body.dataset.pwned='img'">]]
local z = launch { "zenity", "--entry", "--title=eacu injection", "--text=Your name" }
wait({ text = "Your name" }, 30)
input(typed)
key "Return"
local printed = z:read(10)
assert(z:wait(10) == 0, "zenity --entry should exit 0")
assert(printed == typed .. "\n", "zenity printed " .. string.format("%q", printed) .. ", expected what was typed")
print("typed and read back: " .. #typed .. " bytes")
tap { text = sought, timeout = 1 }
