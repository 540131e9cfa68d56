#include "model/Prompts.h"

namespace eacu::model {

const std::string& somSystemPrompt() {
    static const std::string p = R"(你是一个桌面自动化 Agent，正在操控一台 Linux (X11) 桌面。

## 工作方式
我已经为你标注了屏幕上的 UI 元素，每个元素有唯一的 Element ID（截图上的编号框）。
**请不要猜测像素坐标。** 请告诉我你想操作的 Element ID 和动作类型，我会帮你完成精确操作。

## 输出格式
你必须只输出一个 JSON 对象，格式如下：
{"thought": "需要点击搜索按钮", "element_id": 5, "action": "click"}
{"thought": "需要双击打开文件", "element_id": 12, "action": "double_click"}
{"thought": "需要右键打开菜单", "element_id": 8, "action": "right_click"}
{"thought": "在搜索框输入关键词", "element_id": 3, "action": "type", "text": "你好世界"}
{"thought": "保存文件", "action": "hotkey", "keys": ["ctrl", "s"]}
{"thought": "按回车确认", "action": "press", "key": "enter"}
{"thought": "向下滚动查看更多内容", "action": "scroll", "direction": "down", "amount": 3}
{"thought": "等待页面加载完成", "action": "wait"}
{"thought": "任务已完成", "action": "done"}
{"thought": "找不到目标按钮，无法完成", "action": "fail"}
{"thought": "需要用户登录", "action": "needs_user", "text": "请先登录"}

## 规则
1. 每次只输出一个动作，不要输出 JSON 以外的任何文字
2. 优先选择 element_id 操作，只有快捷键/按键/滚动/等待/完成/失败/求助不需要 element_id
3. 输入文字时，直接写原始文本（中文、日文等直接写，不要转拼音）
4. 如果屏幕上没有你需要的元素，考虑滚动或切换窗口
5. 如果连续 3 次操作没有效果，尝试换一种方式
6. 任务完成后必须输出 {"action": "done"}，失败则输出 {"action": "fail"}；需要人工（登录、验证码、权限）时输出 {"action": "needs_user"}
7. thought 字段用中文简要说明你的推理过程)";
    return p;
}

std::string somUserPrompt(const std::string& task, int step, const std::string& som_text,
                          const std::vector<std::string>& history) {
    std::string h;
    for (const auto& line : history) h += (h.empty() ? "" : "\n") + line;
    if (h.empty()) h = "(无)";
    return "# 任务：" + task + "\n\n# 当前屏幕 UI 元素（Step " + std::to_string(step) + "）：\n" + som_text +
           "\n\n# 历史操作：\n" + h + "\n\n请根据截图和上述元素列表，输出下一步动作的 JSON。";
}

std::string historyLine(int step, const std::string& did, bool changed, bool retried) {
    return "Step " + std::to_string(step) + ": " + did + " → " + (changed ? "界面变化 ✓" : "界面未变化 ✗") +
           (retried ? "（已重试）" : "");
}

Part imagePart(const ModelImage& img, int64_t frame_id, const std::string& format, int quality) {
    std::string media = format == "png" ? "image/png" : "image/jpeg";
    return Part::image(encodeImage(img.image, format, quality), media, frame_id);
}

int keepRecentImages(std::vector<Message>& messages, int n) {
    int seen = 0, dropped = 0;
    for (auto m = messages.rbegin(); m != messages.rend(); ++m) {
        bool has = false;
        for (const auto& p : m->parts) has |= p.kind == Part::Kind::Image || !p.data.empty();
        if (!has) continue;
        if (seen++ < n) continue;
        for (auto& p : m->parts) {
            std::string note = "[earlier screenshot omitted: frame " + std::to_string(p.frame_id) + "]";
            if (p.kind == Part::Kind::Image) {
                bool cache = p.cache;
                p = Part::textPart(note);
                p.cache = cache;
                ++dropped;
            } else if (p.kind == Part::Kind::ToolResult && !p.data.empty()) {
                p.data.clear();
                p.text += (p.text.empty() ? "" : " ") + note;
                ++dropped;
            }
        }
    }
    return dropped;
}

}  // namespace eacu::model
