#!/usr/bin/env bash
# Layers with arrows that only go down (docs/ARCHITECTURE.md): runtime/ is a stack of floors; a
# folder includes only itself and the folders on the floors below its own. Folders that share a
# floor are siblings: neither includes the other. bindings/ includes runtime/ and itself, never
# the executable's app/ code.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}  # the checkout to check (default: this one)
# One entry a floor, lowest first; folders on one floor are separated by spaces.
floors=(base geometry process device vision assets model runlog "step server" "planner recorder run" "heal studio")
bad=0
known=" ${floors[*]} "
below=" "
for floor in "${floors[@]}"; do
  for layer in $floor; do
    allowed="$below$layer "
    [ -d "$root/runtime/$layer" ] || { echo "runtime/$layer is missing (floors: ${floors[*]})"; bad=1; continue; }
    while IFS= read -r line; do
      file=${line%%:*}
      inc=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$line")
      top=${inc%%/*}
      [ "$top" = "$inc" ] && continue  # a header beside the file
      case "$allowed" in
        *" $top "*) ;;
        *) echo "up-arrow: ${file#$root/} includes \"$inc\" ($layer may use only:$allowed)"; bad=1 ;;
      esac
    done < <(grep -rH '#include "' "$root/runtime/$layer" || true)
  done
  below+="$floor "
done
for d in "$root"/runtime/*/; do
  name=$(basename "$d")
  case "$known" in *" $name "*) ;; *) echo "runtime/$name is not a known layer (${floors[*]})"; bad=1 ;; esac
done
if [ -d "$root/bindings" ] && grep -rn '#include "\(app\|cli\|repl\|bench\)/' "$root/bindings" >/dev/null; then
  grep -rn '#include "\(app\|cli\|repl\|bench\)/' "$root/bindings" | sed 's/^/bindings includes the executable: /'
  bad=1
fi
[ "$bad" = 0 ] || { echo "layers: failed"; exit 1; }
echo "layers: ${#floors[@]} floors ($(wc -w <<<"${floors[*]}") runtime folders), no include points up or sideways"
