// eacu workers (issue 26): the workers registered on a Redis queue, as GET /api/workers lists them.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "Cli.h"
#include "base/Clock.h"
#include "commands/Commands.h"
#include "server/RedisClient.h"
#include "server/RedisLayout.h"

namespace eacu {

/// `eacu workers --queue URL [--json]`.
int cmdWorkers(int argc, char** argv) {
    server::RedisUrl url;
    bool as_json = false;
    try {
        CliOptions o = parseCli(argc, argv, 2, {"--queue"}, {"--json"});
        auto q = o.flag("--queue");
        if (!q) throw UsageError("expected --queue redis://[USER:PASSWORD@]HOST:PORT[/DB]");
        url = server::RedisUrl::parse(*q);
        as_json = o.flag("--json").has_value();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu workers: %s\n", e.what());
        return 2;
    }
    try {
        server::RedisClient c(url);
        c.checkServer();
        nlohmann::json list = nlohmann::json::array();
        for (const auto& name : c.command({"SMEMBERS", server::redis::kWorkers}).elements) {
            auto h = c.command({"HGETALL", server::redis::workerKey(name.text())});
            if (h.elements.empty()) continue;  // its lease expired
            nlohmann::json w{{"name", name.text()}};
            for (size_t i = 0; i + 1 < h.elements.size(); i += 2) w[h.elements[i].text()] = h.elements[i + 1].text();
            list.push_back(w);
        }
        if (as_json) {
            std::printf("%s\n", nlohmann::json{{"workers", list}}.dump().c_str());
            return 0;
        }
        std::printf("%-20s %-16s %5s %4s %-8s %-8s %8s %s\n", "NAME", "HOST", "SLOTS", "BUSY", "DEVICE", "VERSION",
                    "PROTOCOL", "HEARTBEAT");
        for (const auto& w : list) {
            double age = wallSeconds() - std::atof(w.value("heartbeat", "0").c_str());
            std::printf("%-20s %-16s %5s %4s %-8s %-8s %8s %.1f s ago\n", w.value("name", "").c_str(),
                        w.value("host", "").c_str(), w.value("slots", "").c_str(), w.value("busy", "").c_str(),
                        w.value("device", "").c_str(), w.value("version", "").c_str(), w.value("protocol", "").c_str(), age);
        }
        if (list.empty()) std::printf("(no worker holds a lease on %s)\n", c.where().c_str());
        return 0;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu workers: %s\n", e.what());
        return 1;
    }
}

}  // namespace eacu
