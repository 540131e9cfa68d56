#!/usr/bin/env python3
"""deploy/ (issue 35) checked as far as it can be without a cluster or a container runtime:
every Kubernetes manifest parses (PyYAML) into the objects docs/deploy.md describes; KEDA's
triggers name the stream and the consumer group the queue uses (runtime/server/RedisLayout.h);
the workers' grace period and systemd's stop timeout are above their --drain, and --drain is above
serve's default task deadline; the Containerfile starts from Debian bookworm and has the
package-test block that tests/package/package_test.sh runs. Usage: deploy_files.py SOURCE_DIR"""
import os
import re
import sys

import yaml

SRC = sys.argv[1]
errors = []


def check(cond, what):
    if not cond:
        errors.append(what)
    else:
        print("ok:", what)


def drain_of(args):
    return float(args[args.index("--drain") + 1])


layout = open(os.path.join(SRC, "runtime/server/RedisLayout.h")).read()
stream = re.search(r'kTasks = "([^"]+)"', layout).group(1)
group = re.search(r'kGroup = "([^"]+)"', layout).group(1)
max_time = float(re.search(r"--max-time S\s+each task's deadline in seconds \(default (\d+)",
                           open(os.path.join(SRC, "app/CommandTable.cpp")).read()).group(1))

docs = {}
k8s = os.path.join(SRC, "deploy/k8s")
for name in sorted(os.listdir(k8s)):
    if name.endswith(".yaml"):
        with open(os.path.join(k8s, name)) as f:
            for d in yaml.safe_load_all(f):
                check(isinstance(d, dict) and "kind" in d and "apiVersion" in d and d.get("metadata", {}).get("name"),
                      f"{name}: a document with kind, apiVersion and a name")
                docs[(d["kind"], d["metadata"]["name"])] = d
for key in [("Deployment", "eacu-serve"), ("Service", "eacu-serve"), ("Deployment", "eacu-worker"),
            ("ScaledObject", "eacu-worker"), ("TriggerAuthentication", "eacu-redis"), ("Secret", "eacu")]:
    check(key in docs, f"the manifests define {key[0]} {key[1]}")

worker = docs[("Deployment", "eacu-worker")]["spec"]["template"]["spec"]
args = worker["containers"][0]["args"]
check(args[0] == "worker" and "--drain" in args, "the workers run eacu worker --drain")
check(worker["terminationGracePeriodSeconds"] > drain_of(args),
      f"grace period {worker['terminationGracePeriodSeconds']} s above --drain {drain_of(args)} s")
check(drain_of(args) >= max_time, f"--drain {drain_of(args)} s at least serve's default --max-time {max_time} s")
serve = docs[("Deployment", "eacu-serve")]["spec"]["template"]["spec"]["containers"][0]
check(serve["args"][0] == "serve" and "--queue" in serve["args"], "the server runs eacu serve --queue")
svc = docs[("Service", "eacu-serve")]
check(svc["spec"]["selector"] == docs[("Deployment", "eacu-serve")]["spec"]["selector"]["matchLabels"],
      "the Service selects the server's pods")
so = docs[("ScaledObject", "eacu-worker")]["spec"]
check(so["scaleTargetRef"]["name"] == "eacu-worker", "KEDA scales the worker Deployment")
kinds = set()
for t in so["triggers"]:
    m = t["metadata"]
    check(t["type"] == "redis-streams" and m["stream"] == stream and m["consumerGroup"] == group,
          f"a KEDA trigger on stream {stream}, group {group}")
    kinds |= {k for k in ("lagCount", "pendingEntriesCount") if k in m}
check(kinds == {"lagCount", "pendingEntriesCount"}, "KEDA triggers on the group's lag and its pending entries")

unit = open(os.path.join(SRC, "deploy/systemd/eacu-worker@.service.in")).read()
unit_drain = float(re.search(r"--drain (\d+)", unit).group(1))
stop = float(re.search(r"^TimeoutStopSec=(\d+)", unit, re.M).group(1))
check(stop > unit_drain and re.search(r"^KillMode=mixed", unit, re.M),
      f"the worker unit: TimeoutStopSec {stop} s above --drain {unit_drain} s, SIGTERM to the worker alone")

cf = open(os.path.join(SRC, "deploy/Containerfile")).read()
check(re.search(r"^FROM debian:bookworm$", cf, re.M), "the Containerfile starts FROM debian:bookworm")
block = re.search(r"# package-test: begin[^\n]*\n(.*?)# package-test: end", cf, re.S)
check(block and "apt-get install -y /tmp/eacu/eacu_*_amd64.deb" in block.group(1),
      "the Containerfile's package-test block installs the .deb with apt-get")

if errors:
    for e in errors:
        print("FAIL:", e, file=sys.stderr)
    sys.exit(1)
print("deploy_files: ok")
