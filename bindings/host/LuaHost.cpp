#include "host/LuaHost.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <luajit.h>
}

#include "Modules.h"
#include "host/EmbeddedStdlib.h"
#include "step/Session.h"
#include "wrap_Session.h"

namespace eacu {
namespace {

// package.preload loader for an embedded (or on-disk, with EACU_STDLIB_DIR) stdlib module.
int loadStdlibModule(lua_State* L) {
    const auto* m = static_cast<const EmbeddedModule*>(lua_touserdata(L, lua_upvalueindex(1)));
    std::string source = m->source;
    std::string chunk = m->chunkname;
    if (const char* dir = std::getenv("EACU_STDLIB_DIR"); dir && *dir) {
        std::filesystem::path p = std::filesystem::path(dir) / (std::string(chunk).substr(8));
        std::ifstream in(p);
        if (in) {
            std::stringstream ss;
            ss << in.rdbuf();
            source = ss.str();
            chunk = "@" + p.string();
        }
    }
    if (luaL_loadbuffer(L, source.data(), source.size(), chunk.c_str()) != 0) return lua_error(L);
    lua_pushstring(L, m->name);
    lua_call(L, 1, 1);
    return 1;
}

const char kHostKey = 0;  // registry key of the LuaHost's Session*

// The interrupt hook: raises the run's cancel reason inside the script.
void stopHook(lua_State* L, lua_Debug*) {
    lua_pushlightuserdata(L, const_cast<char*>(&kHostKey));
    lua_rawget(L, LUA_REGISTRYINDEX);
    auto* s = static_cast<Session*>(lua_touserdata(L, -1));
    lua_pop(L, 1);
    std::string why = s ? s->cancel().reason() : "";
    bool timeout = s && s->cancel().timedOut();
    luaL_error(L, "%s", timeout ? why.c_str() : "cancelled");
}

// The error's text (a failure value prints as its message: eacu.failure), then the traceback.
int traceback(lua_State* L) {
    const char* msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_isstring(L, -1)) msg = lua_tostring(L, -1);
        else msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    lua_getglobal(L, "debug");
    lua_getfield(L, -1, "traceback");
    lua_pushstring(L, msg);
    lua_pushinteger(L, 2);
    lua_call(L, 2, 1);
    return 1;
}

}  // namespace

LuaHost::LuaHost(Session* session) : L_(luaL_newstate()), session_(session) {
    if (!L_) throw std::runtime_error("cannot create a Lua state (out of memory)");
    luaL_openlibs(L_);
    luaJIT_setmode(L_, 0, LUAJIT_MODE_ENGINE | LUAJIT_MODE_OFF);
    lua_pushlightuserdata(L_, const_cast<char*>(&kHostKey));
    lua_pushlightuserdata(L_, session);
    lua_rawset(L_, LUA_REGISTRYINDEX);
    luax_setsession(L_, session);
    lua_getglobal(L_, "package");
    lua_getfield(L_, -1, "preload");
    for (const NativeModule& m : nativeModules()) {
        lua_pushcfunction(L_, m.open);
        lua_setfield(L_, -2, m.name);
    }
    for (const EmbeddedModule& m : embeddedStdlib()) {
        lua_pushlightuserdata(L_, const_cast<EmbeddedModule*>(&m));
        lua_pushcclosure(L_, loadStdlibModule, 1);
        lua_setfield(L_, -2, m.name);
    }
    lua_pop(L_, 2);
    std::string err = runString("require('eacu').install(_G)", "=eacu-init");
    if (!err.empty()) {
        lua_close(L_);
        throw std::runtime_error("cannot load the eacu stdlib: " + err);
    }
}

LuaHost::~LuaHost() { lua_close(L_); }

void LuaHost::interrupt() { lua_sethook(L_, stopHook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1); }

void LuaHost::clearInterrupt() { lua_sethook(L_, nullptr, 0, 0); }

std::string LuaHost::callTop(int nargs, int nresults) {
    int base = lua_gettop(L_) - nargs;
    lua_pushcfunction(L_, traceback);
    lua_insert(L_, base);
    int rc = lua_pcall(L_, nargs, nresults, base);
    clearInterrupt();
    lua_remove(L_, base);
    if (rc == 0) return "";
    std::string msg = lua_tostring(L_, -1) ? lua_tostring(L_, -1) : "(error without message)";
    lua_pop(L_, 1);
    return msg;
}

void LuaHost::addPackagePath(const std::string& dir) {
    lua_getglobal(L_, "package");
    lua_getfield(L_, -1, "path");
    std::string path = dir + "/?.lua;" + dir + "/?/init.lua;" + (lua_tostring(L_, -1) ? lua_tostring(L_, -1) : "");
    lua_pop(L_, 1);
    lua_pushstring(L_, path.c_str());
    lua_setfield(L_, -2, "path");
    lua_pop(L_, 1);
}

std::string LuaHost::callForResult(int nargs, std::optional<std::string>* result) {
    if (!result) return callTop(nargs, 0);
    std::string err = callTop(nargs, 1);
    if (!err.empty()) return err;
    int t = lua_type(L_, -1);
    if (t == LUA_TSTRING || t == LUA_TNUMBER) {
        size_t n = 0;
        const char* s = lua_tolstring(L_, -1, &n);
        *result = std::string(s, n);
    }
    lua_pop(L_, 1);
    return "";
}

std::string LuaHost::runFile(const std::string& path, const std::vector<std::string>& args,
                             std::optional<std::string>* result) {
    lua_createtable(L_, int(args.size()), 1);
    lua_pushstring(L_, path.c_str());
    lua_rawseti(L_, -2, 0);
    for (size_t i = 0; i < args.size(); ++i) {
        lua_pushstring(L_, args[i].c_str());
        lua_rawseti(L_, -2, int(i + 1));
    }
    lua_setglobal(L_, "arg");
    if (luaL_loadfile(L_, path.c_str()) != 0) {
        std::string msg = lua_tostring(L_, -1);
        lua_pop(L_, 1);
        return msg;
    }
    for (const auto& a : args) lua_pushstring(L_, a.c_str());
    return callForResult(int(args.size()), result);
}

std::string LuaHost::runString(const std::string& code, const std::string& chunkname,
                               std::optional<std::string>* result) {
    if (luaL_loadbuffer(L_, code.data(), code.size(), chunkname.c_str()) != 0) {
        std::string msg = lua_tostring(L_, -1);
        lua_pop(L_, 1);
        return msg;
    }
    return callForResult(0, result);
}

}  // namespace eacu
