-- The Win32 test form as an app module for `eacu run --task` on the agent device: its one
-- template fills the name and confirms. The form's command line comes from $EACU_TEST_FORM_CMD.
local M = { name = "winform", keywords = { "表单", "form" } }

M.templates = {
  fill = {
    patterns = { "fill the form as {name}", "填表单，姓名{name}" },
    params = { "name" },
    run = function(p)
      local f = remote_launch(assert(os.getenv("EACU_TEST_FORM_CMD"), "EACU_TEST_FORM_CMD is not set"))
      assert(window({ title = "eacu 测试表单" }, 30))
      tap { role = "text", name = "姓名", timeout = 20 }
      input(p.name)
      tap { role = "push button", name = "确定" }
      local code = f:wait(10)
      assert(code == 10, "the form exits with 10 (OK, not agreed), got " .. tostring(code))
      return "form filled as " .. p.name
    end,
  },
}

return M
