#include "server/ProgressText.h"

#include <map>

namespace eacu::server {
namespace {

std::string str(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

bool isLookOnlyStep(const std::string& action) {
    static const char* kLook[] = {"locate", "find_all", "ocr", "screenshot", "wait", "wait_change",
                                  "wait_stable", "wait_vanish", "exists", "blocker"};
    for (const char* a : kLook)
        if (action == a) return true;
    return false;
}

std::string progressText(const nlohmann::json& step) {
    static const std::map<std::string, std::string> kVerbs = {
        {"tap", "点击"},        {"double_tap", "双击"}, {"right_tap", "右键点击"}, {"long_press", "长按"},
        {"input", "输入"},      {"key", "按键"},        {"scroll", "滚动"},         {"drag", "拖动"},
        {"swipe", "滑动"},      {"move", "移动鼠标到"}, {"launch", "启动"},         {"ask_user", "询问用户"},
        {"autopilot", "自动操作"}, {"agent", "自动操作"},    {"plan", "计划"},       {"step", "步骤"},           {"ask", "询问模型"},
        {"mouse_down", "按下鼠标"}, {"mouse_up", "松开鼠标"}, {"hold_key", "按住"}};
    std::string text;
    if (auto p = step.find("params"); p != step.end() && p->is_object()) text = str(*p, "thought");
    if (text.empty()) {
        std::string action = str(step, "action");
        auto v = kVerbs.find(action);
        text = v != kVerbs.end() ? v->second : action;
        std::string target = str(step, "target");
        if (!target.empty()) text += " " + target;
    }
    if (str(step, "status") == "failed") {
        std::string err = str(step, "error");
        if (auto nl = err.find('\n'); nl != std::string::npos) err.resize(nl);
        text += "（失败" + (err.empty() ? std::string() : "：" + err) + "）";
    }
    return text;
}

}  // namespace eacu::server
