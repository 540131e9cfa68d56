// Prompt text for Set-of-Marks autopilot steps (seed 000 §3.1-§3.2) and image parts from frames.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "geometry/ModelImage.h"
#include "model/ModelTypes.h"

namespace eacu::model {

/// The system prompt of seed 000 §3.1 (Chinese, as the seed), adapted to eacu: a Linux/X11
/// desktop, element IDs only, one JSON action per answer, plus needs_user for a human's help.
const std::string& somSystemPrompt();

/// The per-step user prompt of seed 000 §3.2:
/// "# 任务：{task}\n\n# 当前屏幕 UI 元素（Step {step}）：\n{som_text}\n\n# 历史操作：\n{history}\n\n
///  请根据截图和上述元素列表，输出下一步动作的 JSON。" (history "(无)" when empty).
std::string somUserPrompt(const std::string& task, int step, const std::string& som_text,
                          const std::vector<std::string>& history);

/// One history line in seed 000 §3.2's form, e.g.
/// `Step 3: 点击了 [2] button "发送" → 界面未变化 ✗（已重试）`.
/// `did`: what was done ("点击了 [2] button \"发送\"", "输入了 \"你好\""); `changed`: the screen
/// changed after it; `retried`: the action was retried.
std::string historyLine(int step, const std::string& did, bool changed, bool retried = false);

/// An image part for a request from a model image: encoded as `format` ("png" | "jpeg"),
/// tagged with the run-log frame it shows.
Part imagePart(const ModelImage& img, int64_t frame_id, const std::string& format = "png", int quality = 80);

/// Keeps the images of the `n` most recent messages that carry one and replaces older image
/// parts (also inside tool results) by the text "[earlier screenshot omitted: frame N]", as the
/// computer-use demo's only_n_most_recent_images (issue 5: the last 3 screenshots). Returns how
/// many images were dropped.
int keepRecentImages(std::vector<Message>& messages, int n = 3);

}  // namespace eacu::model
