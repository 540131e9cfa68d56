// The line a progress item shows for a step a task's worker committed.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace eacu::server {

/// A short Chinese line for the step object of the worker protocol (docs/serve-protocol.md §1: action,
/// target, status, error, params): the model's thought when the step has one, else the verb and
/// its target ("点击 \"7\""), with "（失败：<error>）" appended to a failed step. Never throws
/// for missing fields.
std::string progressText(const nlohmann::json& step);

/// True for steps that only looked (locate, ocr, screenshot, waits): they do not become
/// progress items of their own.
bool isLookOnlyStep(const std::string& action);

}  // namespace eacu::server
