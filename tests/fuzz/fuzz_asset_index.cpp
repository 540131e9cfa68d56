// Asset indexes (index.json in seed 002's format) as users write them: any bytes as the shared
// index, loaded, then every name listed looked up and resolved. Invariants: every listed name
// is found; lookups of names, aliases and nonsense throw only TargetNotFound; loading throws
// only std::runtime_error naming the file.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "FuzzCommon.h"
#include "assets/AssetLibrary.h"

using namespace eacu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string path = fuzz::writeInput("index.json", data, size);
    AssetLibrary lib;
    try {
        lib.loadIndex(path, "");
        lib.loadIndex(path, "app");  // the same entries again, as an app's: no clash across scopes
    } catch (const std::runtime_error& e) {
        if (std::string(e.what()).find(path) == std::string::npos) fuzz::broken("an index error does not name the file");
        return 0;
    }
    for (const std::string& name : lib.names()) {
        try {
            if (!lib.find(name)) fuzz::broken("a listed asset name is not found");
        } catch (const TargetNotFound&) {
            fuzz::broken("a qualified asset name is ambiguous");
        }
        try {
            (void)lib.resolve(name, fuzz::scratch().string());
        } catch (const TargetNotFound&) {
        } catch (const std::runtime_error&) {  // the file exists but is not an image
        }
    }
    try {
        (void)lib.find(std::string(reinterpret_cast<const char*>(data), size < 32 ? size : 32));
    } catch (const TargetNotFound&) {
    }
    return 0;
}
