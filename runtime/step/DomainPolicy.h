// Which web sites a run may open (seed 001 §9: a domain allow list and block list for browser
// tasks): EACU_ALLOW_DOMAINS and EACU_BLOCK_DOMAINS, comma-separated, matched as host suffixes.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace eacu {

class Session;

/// The lists: `allow` (empty = every domain allowed) and `block` (wins over allow). Entries are
/// lower-case domains without a leading "." or "*." ("python.org").
struct DomainPolicy {
    std::vector<std::string> allow;
    std::vector<std::string> block;
};

/// The lists from $EACU_ALLOW_DOMAINS and $EACU_BLOCK_DOMAINS (comma-separated; spaces, a
/// leading "*." or "." and a trailing "." dropped; lower-cased; empty entries ignored).
/// `getenv` is injectable for tests.
DomainPolicy domainPolicyFromEnv(const std::function<const char*(const char*)>& getenv = nullptr);

/// The host a URL names, lower-cased, without user info, port, IPv6 brackets or trailing dot:
/// "https://u@Docs.Python.org:443/3/" → "docs.python.org". "" for a URL without one
/// ("file:///usr/share/doc/...", "about:blank", "data:..."). Text without a scheme is taken as
/// a browser takes it, as http ("python.org/3/" → "python.org"); a backslash ends the host as
/// a slash does ("https://evil.com\@good.com" names evil.com).
std::string urlHost(const std::string& url);

/// True when `host` is `domain` or a subdomain of it ("docs.python.org" and "python.org"; not
/// "evilpython.org"). An IP address matches only itself.
bool domainMatches(const std::string& host, const std::string& domain);

/// Why `url` may not be opened under `policy`, "" when it may: its host is on the block list,
/// or an allow list is set and the host is not on it. A URL without a host (file:, about:) is
/// allowed: it opens no web site; any other hostless URL (data:, javascript:) is refused when
/// an allow list is set. The reason names the domain, the variable and its list.
std::string urlRefusal(const std::string& url, const DomainPolicy& policy);

/// Checks a URL the run is about to open against domainPolicyFromEnv(). A refusal is recorded
/// as a failed "open_url" step (method "policy") and thrown as StepError code "refused":
/// "open_url \"URL\": refused: the domain evil.com is blocked by EACU_BLOCK_DOMAINS (evil.com)".
void checkUrlAllowed(Session& session, const std::string& url);

}  // namespace eacu
