// How `eacu serve` runs tasks: what the command line gave it.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace eacu::server {

/// The service's settings (eacu serve's options).
/// - `eacu`: the path of the eacu executable that runs each task as a worker process.
/// - `db`: the run log (sessions, tasks, events, and every task's run).
/// - `display`: "virtual" (a private Xvfb of `screen_w` x `screen_h` per task) or ":N" (every
///   task on that display; then one worker).
/// - `wm`: the window manager started on each private display ("openbox"; "" or "none": none).
/// - `launch`: shell commands started on each task's display before the task begins (the
///   desktop the task works on); stopped when it ends.
/// - `max_actions`, `max_seconds`: each task's limits (seed 001 §9: 80 actions, 8 minutes).
/// - `allow_scripts`: Lua source is accepted as a task (only with a token).
/// - `worker_env`: environment variables set for each worker process.
/// - `queue`: "" (the queue in this process) or a redis:// URL (docs/many-machines.md): tasks
///   go to workers on any machine (`eacu worker`); then `workers` is 0.
/// - `reaper_seconds`: how often the server looks for committed tasks whose worker's lease is
///   gone (they end `lost`). `events_ttl`: how long a task's Redis keys stay after it ended.
/// - `device`: "" (tasks run on `display`) or the device spec every task's run is given
///   (`eacu run --device SPEC`: "cdp:http://127.0.0.1:PORT#WxH@S" for the worker's own
///   Chromium, "adb:SERIAL", "agent:HOST:PORT"; see WorkerDevice); then no Xvfb, no window
///   manager and no `launch` programs are started, and the run sends its own live frames.
/// - `lease_seconds`, `heartbeat_seconds`: a worker's lease on its tasks and how often it
///   renews it (`eacu worker`).
struct ServeConfig {
    std::string eacu;
    std::string db;
    std::string display = "virtual";
    std::string device;
    int screen_w = 1280, screen_h = 800;
    std::string wm;
    std::vector<std::string> launch;
    int workers = 2;
    int max_actions = 80;
    double max_seconds = 480;
    bool allow_scripts = false;
    std::map<std::string, std::string> worker_env;
    std::string queue;
    double reaper_seconds = 2;
    double events_ttl = 3600;
    double lease_seconds = 15;
    double heartbeat_seconds = 3;
};

}  // namespace eacu::server
