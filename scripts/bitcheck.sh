#!/usr/bin/env bash
# Same seed, same engine ⇒ the same bits, across a refactor: run every experiment at smoke scale and
# one default-scale seed of m3apg and tape on the pure-Go engine into DIR, from a checkout; then
# compare two such folders run by run (wall time aside) with bench/same_result.py. cos and
# cos-vision run on ONNX Runtime (as repeatable on one machine): their PRM graph compares booleans,
# which GoMLX v0.28.2's pure-Go engine does not execute ("Equal: unsupported data type Bool").
#   scripts/bitcheck.sh run DIR [EXPERIMENT…]     (from the checkout to measure; ~20 min on 2 cores)
#   scripts/bitcheck.sh compare BEFORE AFTER
set -euo pipefail
cd "$(dirname "$0")/.."
export GOMLX_BACKEND=go:parallelism=-1 GOEXPERIMENT=${GOEXPERIMENT:-simd}
case "${1:-}" in
run)
  dir=$2; shift 2
  exps=("$@")
  [ ${#exps[@]} -gt 0 ] || exps=(tour lm capo cos cos-vision spo tape e3t m3apg agents default:m3apg default:tape)
  mkdir -p "$dir"
  go build -o "$dir/paperlab" ./toolkit/cmd/paperlab
  for x in "${exps[@]}"; do
    if [[ $x == default:* ]]; then name=${x#default:}; args=(-scale default -seeds 1-1 -save none); leaf=$name-default-seed1
    else name=$x; args=(-scale smoke -save none); leaf=$name-smoke; fi
    engine=$GOMLX_BACKEND
    case $name in cos|cos-vision) engine=onnx:cpu ;; esac
    start=$(date +%s)
    GOMLX_BACKEND=$engine "$dir/paperlab" "$name" "${args[@]}" -out "$dir/$leaf" >"$dir/$leaf.log" 2>&1 || { echo "$leaf: FAILED (log $dir/$leaf.log)"; exit 1; }
    echo "$leaf: $engine, $(( $(date +%s) - start )) s"
  done
  git rev-parse HEAD >"$dir/commit"; git status --porcelain | wc -l >>"$dir/commit"
  ;;
compare)
  a=$2 b=$3 status=0
  echo "# bitcheck: $(head -1 "$a/commit") (before) against $(head -1 "$b/commit") (after); engine $GOMLX_BACKEND (cos, cos-vision: onnx:cpu); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  for d in "$a"/*/; do
    leaf=$(basename "$d")
    [ -f "$d/metrics.json" ] || continue
    r=$(python3 bench/same_result.py "$d" "$b/$leaf" 2>&1 || echo "missing")
    echo "$leaf: $r"
    case "$r" in *"runs identical; summary max"*|*"runs; identical"*) ;; *) status=1 ;; esac
  done
  exit $status
  ;;
*) echo "usage: scripts/bitcheck.sh run DIR [EXPERIMENT…] | compare BEFORE AFTER" >&2; exit 2 ;;
esac
