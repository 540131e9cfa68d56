// The element tree of an agent's screen (docs/agent-protocol.md "tree", "element").
#pragma once
#include "device/Accessibility.h"

namespace eacu {

class AgentConnection;

/// The agent's tree in AT-SPI's role names ("push button", "text", "check box", "label",
/// "frame"), so the same targets work ({role = "push button", name = "确定"}). Elements have
/// path [pid, handle]: the application's pid, then the element's own window handle; an
/// element's UIA value or MSAA value (a text field's text) is its `value`. Windows without UI
/// Automation (Wine 8) give every control's own MSAA object and a role from its class.
class AgentAccessibility final : public Accessibility {
public:
    explicit AgentAccessibility(AgentConnection& conn) : conn_(conn) {}
    A11yElement snapshot(const A11yScope& scope = {}) override;
    void doAction(const A11yElement& element, const std::string& action) override;
    void setText(const A11yElement& element, const std::string& utf8) override;

private:
    AgentConnection& conn_;
};

}  // namespace eacu
