#include "Modules.h"

#include "wrap_A11y.h"
#include "wrap_Agent.h"
#include "wrap_Highlight.h"
#include "wrap_Model.h"
#include "wrap_Session.h"
#include "wrap_Steps.h"
#include "wrap_Windows.h"

namespace eacu {

std::span<const NativeModule> nativeModules() {
    static const NativeModule modules[] = {
        {"eacu._native", luaopen_eacu_native},        // wrap_Session: the verbs, locate, ocr, processes
        {"eacu._model", luaopen_eacu_model},          // wrap_Model: ask, grounding, plan, autopilot, som
        {"eacu._highlight", luaopen_eacu_highlight},  // wrap_Highlight: boxes drawn on the screen
        {"eacu._steps", luaopen_eacu_steps},          // wrap_Steps: step{}, blockers, waits, limits, apps
        {"eacu._windows", luaopen_eacu_windows},      // wrap_Windows: the device's windows
        {"eacu._a11y", luaopen_eacu_a11y},            // wrap_A11y: the accessibility tree, set_text
        {"eacu._agent", luaopen_eacu_agent},          // wrap_Agent: a device agent's clipboard, programs
    };
    return modules;
}

}  // namespace eacu
