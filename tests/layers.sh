#!/usr/bin/env bash
# Layers with arrows that only go down (DESIGN.md): a runtime/ folder includes only itself and the
# folders below it; bindings/ includes runtime/ and itself, never the executable's app/ code.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
order=(base geometry process device vision assets model record task server)
bad=0
for i in "${!order[@]}"; do
  layer=${order[$i]}
  allowed=" ${order[*]:0:$((i + 1))} "
  [ -d "$root/runtime/$layer" ] || continue
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
for d in "$root"/runtime/*/; do
  name=$(basename "$d")
  case " ${order[*]} " in *" $name "*) ;; *) echo "runtime/$name is not a known layer (${order[*]})"; bad=1 ;; esac
done
if [ -d "$root/bindings" ] && grep -rn '#include "\(app\|cli\|repl\|bench\)/' "$root/bindings" >/dev/null; then
  grep -rn '#include "\(app\|cli\|repl\|bench\)/' "$root/bindings" | sed 's/^/bindings includes the executable: /'
  bad=1
fi
[ "$bad" = 0 ] || { echo "layers: failed"; exit 1; }
echo "layers: ${#order[@]} runtime layers, no include points up"
