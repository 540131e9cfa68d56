#include "step/DomainPolicy.h"

#include <cstdlib>

#include "base/Ascii.h"
#include "step/Session.h"
#include "step/StepError.h"

namespace eacu {

namespace {

std::vector<std::string> domainList(const char* text) {
    std::vector<std::string> out;
    if (!text) return out;
    std::string s = text;
    size_t start = 0;
    while (start <= s.size()) {
        size_t comma = s.find(',', start);
        if (comma == std::string::npos) comma = s.size();
        std::string d = s.substr(start, comma - start);
        size_t a = d.find_first_not_of(" \t"), b = d.find_last_not_of(" \t");
        d = a == std::string::npos ? "" : asciiLower(d.substr(a, b - a + 1));
        if (d.rfind("*.", 0) == 0) d.erase(0, 2);
        while (!d.empty() && d.front() == '.') d.erase(0, 1);
        while (!d.empty() && d.back() == '.') d.pop_back();
        if (!d.empty()) out.push_back(d);
        start = comma + 1;
    }
    return out;
}

bool isIpLiteral(const std::string& host) {
    if (host.find(':') != std::string::npos) return true;  // IPv6
    return !host.empty() && host.find_first_not_of("0123456789.") == std::string::npos;
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
}

}  // namespace

DomainPolicy domainPolicyFromEnv(const std::function<const char*(const char*)>& getenv_) {
    auto get = [&](const char* name) { return getenv_ ? getenv_(name) : std::getenv(name); };
    return {domainList(get("EACU_ALLOW_DOMAINS")), domainList(get("EACU_BLOCK_DOMAINS"))};
}

std::string urlHost(const std::string& raw) {
    // As a browser reads it: surrounding spaces dropped, "\\" ends the host like "/".
    size_t a = raw.find_first_not_of(" \t\r\n"), b = raw.find_last_not_of(" \t\r\n");
    const std::string url = a == std::string::npos ? "" : raw.substr(a, b - a + 1);
    std::string rest = url;
    size_t sep = url.find("://");
    if (sep != std::string::npos && url.find_first_of("/\\?#") > sep) {
        rest = url.substr(sep + 3);
    } else {
        // A scheme without an authority names no host; anything else is taken as http.
        std::string scheme = asciiLower(url.substr(0, url.find(':')));
        for (const char* s : {"about", "data", "javascript", "mailto", "blob", "file", "chrome", "view-source"})
            if (url.find(':') != std::string::npos && scheme == s) return "";
    }
    size_t end = rest.find_first_of("/\\?#");
    std::string authority = rest.substr(0, end);
    size_t at = authority.rfind('@');
    if (at != std::string::npos) authority.erase(0, at + 1);
    std::string host;
    if (!authority.empty() && authority.front() == '[') {
        size_t close = authority.find(']');
        host = authority.substr(1, close == std::string::npos ? std::string::npos : close - 1);
    } else {
        host = authority.substr(0, authority.find(':'));
    }
    host = asciiLower(host);
    while (!host.empty() && host.back() == '.') host.pop_back();
    return host;
}

bool domainMatches(const std::string& host, const std::string& domain) {
    if (host.empty() || domain.empty()) return false;
    if (host == domain) return true;
    if (isIpLiteral(host)) return false;
    return host.size() > domain.size() && host.compare(host.size() - domain.size(), domain.size(), domain) == 0 &&
           host[host.size() - domain.size() - 1] == '.';
}

std::string urlRefusal(const std::string& url, const DomainPolicy& p) {
    const std::string host = urlHost(url);
    if (host.empty()) {
        std::string scheme = asciiLower(url.substr(0, url.find(':')));
        if (p.allow.empty() || scheme == "file" || scheme == "about") return "";
        return "the URL names no domain and EACU_ALLOW_DOMAINS allows only " + joined(p.allow);
    }
    for (const auto& d : p.block)
        if (domainMatches(host, d))
            return "the domain " + host + " is blocked by EACU_BLOCK_DOMAINS (" + joined(p.block) + ")";
    if (p.allow.empty()) return "";
    for (const auto& d : p.allow)
        if (domainMatches(host, d)) return "";
    return "the domain " + host + " is not in EACU_ALLOW_DOMAINS (" + joined(p.allow) + ")";
}

void checkUrlAllowed(Session& s, const std::string& url) {
    const std::string why = urlRefusal(url, domainPolicyFromEnv());
    if (why.empty()) return;
    StepRecord st = s.beginStep("open_url", url);
    st.method = "policy";
    st.status = "failed";
    st.error = "open_url \"" + url + "\": refused: " + why;
    int64_t id = s.commitStep(st);
    throw StepError(failure::kRefused, st.error, id, 0, url);
}

}  // namespace eacu
