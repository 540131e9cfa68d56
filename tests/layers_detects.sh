#!/usr/bin/env bash
# tests/layers.sh must fail on what it exists to catch: a copy of runtime/ and bindings/ with an
# include planted that points up (step/ → planner/) and one that points sideways (planner/ →
# recorder/, siblings on one floor); the unchanged copy passes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cp -r "$here/../runtime" "$here/../bindings" "$tmp/"
bash "$here/layers.sh" "$tmp" >/dev/null || { echo "layers_detects: the unchanged copy fails"; exit 1; }
echo '#include "planner/Planner.h"' >>"$tmp/runtime/step/Limits.h"
echo '#include "recorder/Replay.h"' >>"$tmp/runtime/planner/Grounding.h"
if out=$(bash "$here/layers.sh" "$tmp"); then echo "layers_detects: planted includes passed"; exit 1; fi
grep -q 'runtime/step/Limits.h includes "planner/Planner.h"' <<<"$out" || { echo "layers_detects: the up-arrow was not named: $out"; exit 1; }
grep -q 'runtime/planner/Grounding.h includes "recorder/Replay.h"' <<<"$out" || { echo "layers_detects: the sideways include was not named: $out"; exit 1; }
echo "layers_detects: an upward and a sideways include are caught"
