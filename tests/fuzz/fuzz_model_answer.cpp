// Model answers, as a model (or anything in between) may send them: the action parser in every
// coordinate space, the grounding, plan and click-check answers, Retry-After values, the
// providers' response bodies, and the Set-of-Marks text built from hostile element contents.
// Invariants: a parsed action's point lies inside the screen, its element is one of the
// elements offered; parsers throw only their documented errors.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "FuzzCommon.h"
#include "model/Action.h"
#include "model/AnthropicClient.h"
#include "model/ClickCheck.h"
#include "model/Http.h"
#include "model/ModelClient.h"
#include "model/OpenAIClient.h"
#include "planner/Grounding.h"
#include "planner/Planner.h"
#include "vision/som/Som.h"

using namespace eacu;
using namespace eacu::model;

namespace {

void checkAction(const Action& a, const ActionContext& ctx) {
    if (a.point && (a.point->x < 0 || a.point->y < 0 || a.point->x >= ctx.screen.w || a.point->y >= ctx.screen.h))
        fuzz::broken("parseAction returned a point outside the screen");
    if (a.element_id && !ctx.elements.count(*a.element_id)) fuzz::broken("parseAction returned an element not offered");
    (void)a.toJson().dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string raw(reinterpret_cast<const char*>(data), size);
    ActionContext ctx;
    ctx.elements = {{0, {10, 10, 40, 20}}, {1, {100, 50, 30, 30}}, {7, {1200, 760, 80, 40}}};
    ctx.screen = {1280, 800};
    for (CoordSpace cs : {CoordSpace::None, CoordSpace::Physical, CoordSpace::Fraction, CoordSpace::PerMille,
                          CoordSpace::ModelImage}) {
        ctx.coords = cs;
        ctx.transform.reset();
        if (cs == CoordSpace::ModelImage) {
            ModelImageTransform t;
            t.physical = {1280, 800};
            t.image = {1024, 640};
            ctx.transform = t;
        }
        try {
            checkAction(parseAction(raw, ctx), ctx);
        } catch (const ActionParseError&) {
        }
        try {
            Grounding g = parseGrounding(raw, ctx);
            if (g.found && (g.point.x < 0 || g.point.y < 0 || g.point.x >= ctx.screen.w || g.point.y >= ctx.screen.h))
                fuzz::broken("parseGrounding returned a point outside the screen");
        } catch (const ActionParseError&) {
        }
    }
    try {
        Plan p = parsePlan(raw);
        if (p.steps.empty()) fuzz::broken("parsePlan returned no steps");
    } catch (const ActionParseError&) {
    }
    try {
        (void)parseClickCheck(raw);
    } catch (const std::runtime_error&) {
    }
    double ra = parseRetryAfter(raw);
    if (!(ra >= 0) && ra != -1) fuzz::broken("parseRetryAfter returned a negative delay");
    (void)errorMessageFromBody(raw);
    nlohmann::json body = nlohmann::json::parse(raw, nullptr, false);
    if (!body.is_discarded()) {
        try {
            (void)OpenAIClient::parseBody(body);
        } catch (const ModelError&) {
        }
        try {
            (void)AnthropicClient::parseBody(body);
        } catch (const ModelError&) {
        }
    }
    // Set-of-Marks text with element contents cut from the input (any bytes, invalid UTF-8,
    // newlines, quotes, "[3]"-like text).
    SomResult som;
    som.size = {1280, 800};
    size_t at = 0;
    for (int id = 0; at < raw.size() && id < 40; ++id) {
        size_t n = std::min<size_t>(raw.size() - at, 1 + (uint8_t(raw[at]) % 48));
        SomElement e;
        e.id = id;
        e.type = id % 2 ? "icon" : "text";
        e.kind = id % 3 ? "button" : "label";
        e.interactivity = id % 2;
        e.box = {int(uint8_t(raw[at])) * 5 % 1280, id * 20 % 800, 1 + int(n), 10};
        e.content = raw.substr(at, n);
        som.elements.push_back(e);
        at += n;
    }
    std::string text = somText(som);
    if (!som.elements.empty() && text.empty()) fuzz::broken("somText of elements is empty");
    return 0;
}
