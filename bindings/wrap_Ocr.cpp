#include "wrap_Ocr.h"

namespace eacu {
namespace {

void setBox(lua_State* L, const Rect& b) {
    lua_pushinteger(L, b.x);
    lua_setfield(L, -2, "x");
    lua_pushinteger(L, b.y);
    lua_setfield(L, -2, "y");
    lua_pushinteger(L, b.w);
    lua_setfield(L, -2, "w");
    lua_pushinteger(L, b.h);
    lua_setfield(L, -2, "h");
}

void setText(lua_State* L, const std::string& text, float confidence) {
    lua_pushlstring(L, text.data(), text.size());
    lua_setfield(L, -2, "text");
    lua_pushnumber(L, confidence);
    lua_setfield(L, -2, "confidence");
}

}  // namespace

void luax_pushocr(lua_State* L, const OcrResult& r) {
    lua_createtable(L, 0, 4);
    std::string all;
    lua_createtable(L, int(r.lines.size()), 0);
    for (size_t i = 0; i < r.lines.size(); ++i) {
        const OcrLine& line = r.lines[i];
        all += (i ? "\n" : "") + line.text;
        lua_createtable(L, 0, 7);
        setText(L, line.text, line.confidence);
        setBox(L, line.box);
        lua_createtable(L, int(line.words.size()), 0);
        for (size_t j = 0; j < line.words.size(); ++j) {
            lua_createtable(L, 0, 6);
            setText(L, line.words[j].text, line.words[j].confidence);
            setBox(L, line.words[j].box);
            lua_rawseti(L, -2, int(j + 1));
        }
        lua_setfield(L, -2, "words");
        lua_rawseti(L, -2, int(i + 1));
    }
    lua_setfield(L, -2, "lines");
    lua_pushlstring(L, all.data(), all.size());
    lua_setfield(L, -2, "text");
    lua_pushnumber(L, r.ms);
    lua_setfield(L, -2, "ms");
    lua_pushstring(L, r.langs.c_str());
    lua_setfield(L, -2, "langs");
}

}  // namespace eacu
