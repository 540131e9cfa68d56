#include "wrap_Model.h"

#include <cstdlib>

#include "luax.h"
#include "planner/Autopilot.h"
#include "planner/ComputerUse.h"
#include "base/Cancel.h"
#include "planner/Grounding.h"
#include "planner/Planner.h"
#include "step/Session.h"
#include "wrap_Session.h"
#include "wrap_Target.h"

namespace eacu {
namespace {

using json = nlohmann::json;

const char* kModelKey = "eacu.model";
const char* kModelMeta = "eacu.ModelContext";

int gcModel(lua_State* L) {
    auto* p = static_cast<ModelContext**>(luaL_checkudata(L, 1, kModelMeta));
    delete *p;
    *p = nullptr;
    return 0;
}

void storeModel(lua_State* L, ModelContext* ctx) {
    auto** p = static_cast<ModelContext**>(lua_newuserdata(L, sizeof(ModelContext*)));
    *p = ctx;
    if (luaL_newmetatable(L, kModelMeta)) {
        lua_pushcfunction(L, gcModel);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, kModelKey);
}

// The state's model context; built from the environment on first use.
ModelContext& model(lua_State* L) {
    lua_getfield(L, LUA_REGISTRYINDEX, kModelKey);
    ModelContext* ctx = nullptr;
    if (lua_isuserdata(L, -1)) ctx = *static_cast<ModelContext**>(lua_touserdata(L, -1));
    lua_pop(L, 1);
    if (ctx) return *ctx;
    Session& s = luax_checksession(L);
    std::string err;
    try {
        ctx = new ModelContext(s, ModelContext::clientFromEnv(nullptr, s.options().cancel), ModelContext::cacheModeFromEnv());
    } catch (const std::exception& e) {
        err = e.what();
    }
    if (!err.empty()) luaL_error(L, "model configuration: %s", err.c_str());
    storeModel(L, ctx);
    return *ctx;
}

void pushJson(lua_State* L, const json& j) {
    switch (j.type()) {
    case json::value_t::null: lua_pushnil(L); break;
    case json::value_t::boolean: lua_pushboolean(L, j.get<bool>()); break;
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: lua_pushnumber(L, j.get<double>()); break;
    case json::value_t::string: {
        const auto& s = j.get_ref<const std::string&>();
        lua_pushlstring(L, s.data(), s.size());
        break;
    }
    case json::value_t::array: {
        lua_createtable(L, int(j.size()), 0);
        int i = 0;
        for (const auto& v : j) {
            pushJson(L, v);
            lua_rawseti(L, -2, ++i);
        }
        break;
    }
    case json::value_t::object: {
        lua_createtable(L, 0, int(j.size()));
        for (auto it = j.begin(); it != j.end(); ++it) {
            pushJson(L, it.value());
            lua_setfield(L, -2, it.key().c_str());
        }
        break;
    }
    default: lua_pushnil(L);
    }
}

void pushStrings(lua_State* L, const std::vector<std::string>& v) {
    lua_createtable(L, int(v.size()), 0);
    for (size_t i = 0; i < v.size(); ++i) {
        lua_pushlstring(L, v[i].data(), v[i].size());
        lua_rawseti(L, -2, int(i + 1));
    }
}

void setString(lua_State* L, const char* k, const std::string& v) {
    lua_pushlstring(L, v.data(), v.size());
    lua_setfield(L, -2, k);
}

std::string optString(lua_State* L, int idx, const char* k) {
    if (!lua_istable(L, idx)) return "";
    return luax_optstringfield(L, idx, k).value_or("");
}

// ask(question, json, provider) -> text, value
int w_ask(lua_State* L) {
    std::string q = luaL_checkstring(L, 1);
    bool want_json = lua_toboolean(L, 2);
    std::string provider = luaL_optstring(L, 3, "");
    ModelContext& ctx = model(L);
    return luax_catchexcept(L, [&] {
        AskResult r = ask(ctx, q, want_json, provider);
        lua_pushlstring(L, r.text.data(), r.text.size());
        if (r.json) pushJson(L, *r.json);
        else lua_pushnil(L);
        lua_pushboolean(L, r.from_cache);
        return 3;
    });
}

// ground(description, {timeout=, provider=, action="locate"|"tap"|"double_tap"|"right_tap"|"long_press"})
// -> match table (found may be false, with reason)
int w_ground(lua_State* L) {
    std::string desc = luaL_checkstring(L, 1);
    double timeout = 0;
    std::string provider, action = "locate";
    bool assertion = false;
    if (lua_istable(L, 2)) {
        timeout = luax_optnumberfield(L, 2, "timeout").value_or(0);
        provider = optString(L, 2, "provider");
        action = luax_optstringfield(L, 2, "action").value_or("locate");
        assertion = luax_optboolfield(L, 2, "assertion").value_or(false);
    }
    ModelContext& ctx = model(L);
    return luax_catchexcept(L, [&] {
        double t0 = monotonicSeconds();
        Grounding g = groundAndAct(ctx, desc, action, timeout, provider, assertion);
        double ms = (monotonicSeconds() - t0) * 1000;
        Match m;
        m.found = g.found;
        m.box = g.box;
        m.target = g.point;
        m.method = g.found ? g.method : "model";
        m.ms = ms;
        luax_pushmatch(L, m);
        if (g.element_id) {
            lua_pushinteger(L, *g.element_id);
            lua_setfield(L, -2, "element_id");
        }
        setString(L, "reason", g.reason);
        lua_pushboolean(L, g.from_cache);
        lua_setfield(L, -2, "from_cache");
        return 1;
    });
}

// autopilot(task, {max_steps=, keep_images=, max_invalid=, provider=, protocol=, tool=, click_check=}) -> result table
int w_autopilot(lua_State* L) {
    std::string task = luaL_checkstring(L, 1);
    AutopilotOptions o;
    ComputerUseOptions co;
    std::string protocol = "som";
    if (lua_istable(L, 2)) {
        o.max_steps = int(luax_optnumberfield(L, 2, "max_steps").value_or(o.max_steps));
        o.keep_images = int(luax_optnumberfield(L, 2, "keep_images").value_or(o.keep_images));
        o.max_invalid = int(luax_optnumberfield(L, 2, "max_invalid").value_or(o.max_invalid));
        o.provider = optString(L, 2, "provider");
        protocol = optString(L, 2, "protocol");
        if (protocol.empty()) protocol = "som";
        co.max_steps = int(luax_optnumberfield(L, 2, "max_steps").value_or(co.max_steps));
        co.keep_images = o.keep_images;
        co.provider = o.provider;
        std::string tool = optString(L, 2, "tool");
        if (!tool.empty()) co.version = tool;
        if (auto v = luax_optboolfield(L, 2, "click_check")) o.click_check = co.click_check = *v;
    }
    if (protocol != "som" && protocol != "computer")
        return luaL_error(L, "autopilot: protocol must be \"som\" or \"computer\", got \"%s\"", protocol.c_str());
    ModelContext& ctx = model(L);
    return luax_catchexcept(L, [&] {
        AutopilotResult r = protocol == "computer" ? runComputerUse(ctx, task, co) : runAutopilot(ctx, task, o);
        lua_createtable(L, 0, 8);
        setString(L, "status", r.status);
        setString(L, "message", r.message);
        lua_pushinteger(L, r.steps);
        lua_setfield(L, -2, "steps");
        lua_pushinteger(L, r.cached);
        lua_setfield(L, -2, "cached");
        pushStrings(L, r.history);
        lua_setfield(L, -2, "history");
        pushJson(L, json(r.actions));
        lua_setfield(L, -2, "actions");
        lua_pushnumber(L, double(r.step_id));
        lua_setfield(L, -2, "step_id");
        return 1;
    });
}

// plan(task, {max_replans=, max_steps=, provider=}) -> result table
int w_plan(lua_State* L) {
    std::string task = luaL_checkstring(L, 1);
    PlanOptions o;
    if (lua_istable(L, 2)) {
        o.max_replans = int(luax_optnumberfield(L, 2, "max_replans").value_or(o.max_replans));
        o.max_steps = int(luax_optnumberfield(L, 2, "max_steps").value_or(o.max_steps));
        o.provider = optString(L, 2, "provider");
    }
    ModelContext& ctx = model(L);
    return luax_catchexcept(L, [&] {
        PlanResult r = runPlan(ctx, task, o);
        lua_createtable(L, 0, 7);
        lua_pushboolean(L, r.ok);
        lua_setfield(L, -2, "ok");
        lua_pushinteger(L, r.steps_done);
        lua_setfield(L, -2, "steps");
        lua_pushinteger(L, r.replans);
        lua_setfield(L, -2, "replans");
        setString(L, "error", r.error);
        pushStrings(L, r.executed);
        lua_setfield(L, -2, "executed");
        pushJson(L, json(r.plans));
        lua_setfield(L, -2, "plans");
        return 1;
    });
}

// som() -> {elements = {{id, type, kind, x, y, w, h, interactivity, content, source}...}, text, frame_id, ms}
int w_som(lua_State* L) {
    ModelContext& ctx = model(L);
    return luax_catchexcept(L, [&] {
        Observation o = ctx.observe(true);
        lua_createtable(L, 0, 4);
        lua_createtable(L, int(o.som.elements.size()), 0);
        int i = 0;
        for (const auto& e : o.som.elements) {
            lua_createtable(L, 0, 10);
            lua_pushinteger(L, e.id);
            lua_setfield(L, -2, "id");
            setString(L, "type", e.type);
            setString(L, "kind", e.kind);
            setString(L, "content", e.content);
            setString(L, "source", e.source);
            lua_pushboolean(L, e.interactivity);
            lua_setfield(L, -2, "interactivity");
            for (auto [k, v] : {std::pair{"x", e.box.x}, {"y", e.box.y}, {"w", e.box.w}, {"h", e.box.h}}) {
                lua_pushinteger(L, v);
                lua_setfield(L, -2, k);
            }
            lua_rawseti(L, -2, ++i);
        }
        lua_setfield(L, -2, "elements");
        setString(L, "text", o.som_text);
        lua_pushnumber(L, double(o.frame_id));
        lua_setfield(L, -2, "frame_id");
        lua_pushnumber(L, o.ms);
        lua_setfield(L, -2, "ms");
        return 1;
    });
}

// config{provider=, model=, base_url=, api_key= | api_key_env=, timeout=, max_retries=}: sets the client.
// config(false): no model. Returns the description ("openai qwen, cache record").
int w_config(lua_State* L) {
    ModelContext& ctx = model(L);
    if (lua_isboolean(L, 1) && !lua_toboolean(L, 1)) {
        ctx.setClient(nullptr);
        lua_pushstring(L, ctx.describe().c_str());
        return 1;
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    model::ProviderConfig c;
    c.provider = optString(L, 1, "provider");
    c.model = optString(L, 1, "model");
    c.base_url = optString(L, 1, "base_url");
    c.api_key = optString(L, 1, "api_key");
    std::string key_env = optString(L, 1, "api_key_env");
    if (!key_env.empty()) {
        const char* k = std::getenv(key_env.c_str());
        if (!k || !*k) luaL_error(L, "model config: api_key_env names $%s, which is not set", key_env.c_str());
        c.api_key = k;
    }
    if (auto t = luax_optnumberfield(L, 1, "timeout")) c.http.timeout_s = *t;
    if (auto r = luax_optnumberfield(L, 1, "max_retries")) c.http.max_retries = int(*r);
    std::shared_ptr<const CancelToken> token = ctx.session().options().cancel;
    c.http.cancel = [token] { return token->cancelled(); };
    return luax_catchexcept(L, [&] {
        ctx.setClient(model::makeClient(c));
        lua_pushstring(L, ctx.describe().c_str());
        return 1;
    });
}

// info() -> {provider, model, cache, calls}
int w_info(lua_State* L) {
    ModelContext& ctx = model(L);
    lua_createtable(L, 0, 4);
    if (ctx.client()) {
        setString(L, "provider", ctx.client()->provider());
        setString(L, "model", ctx.client()->model());
    }
    setString(L, "cache", model::cacheModeName(ctx.mode()));
    lua_pushinteger(L, ctx.caller().seq());
    lua_setfield(L, -2, "calls");
    setString(L, "description", ctx.describe());
    return 1;
}

const luaL_Reg model_functions[] = {{"ask", w_ask},       {"ground", w_ground}, {"autopilot", w_autopilot},
                                    {"plan", w_plan},     {"som", w_som},       {"config", w_config},
                                    {"info", w_info},     {nullptr, nullptr}};

}  // namespace

void luax_setmodel(lua_State* L, std::unique_ptr<ModelContext> ctx) { storeModel(L, ctx.release()); }

int luaopen_eacu_model(lua_State* L) {
    lua_newtable(L);
    luaL_register(L, nullptr, model_functions);
    return 1;
}

}  // namespace eacu
