#!/usr/bin/env bash
# The PPO loop on Overcooked at the E3T authors' settings, side by side in one command:
# PaperLab's loop (bench/ppobench: marl/e3t.Train, 30 cramped_room games × 400 steps per iteration,
# 8 epochs × 6 mini-batches of the 96→64→64→6 actor and the critic) on ONNX Runtime and on the pure-Go
# engine, and the same loop in PyTorch on overcooked_ai's own rules and featurize_state as the
# measuring peer (bench/ppo_peer.py, 1 thread, as ONNX Runtime runs one graph at a time per process),
# twice: the current torch pinned in bench/requirements-torch2.txt (bench/.venv, bench/peers.sh
# need_torch2) and Debian's python3-torch 1.13, the peer of the earlier results. Mode sp is compared;
# e3t (the partner model, 8 passes) is PaperLab's alone.
# Rounds are interleaved so that a noisy neighbour hits every side alike; the table gives medians
# of environment steps per second of the whole iteration and of the rollout's and the update's seconds.
# The peer needs an overcooked_ai checkout: OVERCOOKED_AI_SRC=/path/to/overcooked_ai/src (default
# ../overcooked_ai/src). Run it alone.   bench/ppo_overcooked.sh [rounds]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
out=bench/out
mkdir -p "$out"
. bench/peers.sh
overcooked_src
if [ "$peer" = 1 ]; then need_torch; need_torch2; fi
GOEXPERIMENT=simd go build -o "$out/ppobench" ./bench/ppobench
: > "$out/ppo_raw.txt"
for r in $(seq "$rounds"); do
  echo "round $r/$rounds" >&2
  {
    GOMLX_BACKEND=onnx:cpu "$out/ppobench" -mode sp -iters 3 2>/dev/null | grep '^go'
    if [ "$peer" = 1 ]; then MALLOC_MMAP_THRESHOLD_=1000000000 "$torch2" bench/ppo_peer.py "$src" 1 1 1; fi
    GOMLX_BACKEND=go "$out/ppobench" -mode sp -iters 2 2>/dev/null | grep '^go'
    if [ "$peer" = 1 ]; then MALLOC_MMAP_THRESHOLD_=1000000000 /usr/bin/python3 bench/ppo_peer.py "$src" 1 1 1; fi
    GOMLX_BACKEND=onnx:cpu "$out/ppobench" -mode e3t -iters 3 2>/dev/null | grep '^go'
  } >> "$out/ppo_raw.txt"
done
awk '
  function median(s,   a,n,i,j,x) { n=split(s,a," "); for(i=2;i<=n;i++){x=a[i];for(j=i-1;j>=1&&a[j]>x;j--)a[j+1]=a[j];a[j+1]=x}
                                     return (n%2)?a[(n+1)/2]:(a[n/2]+a[n/2+1])/2 }
  { key = ($1=="go") ? $2" "$3 : $1" "$2; sps[key]=sps[key]" "$(NF-2); ro[key]=ro[key]" "$(NF-1); up[key]=up[key]" "$NF; n[key]++ }
  END {
    printf "%-22s %5s %12s %10s %10s\n", "loop", "n", "env steps/s", "rollout s", "update s"
    for (k in n) printf "%-22s %5d %12.0f %10.3f %10.3f\n", k, n[k], median(sps[k]), median(ro[k]), median(up[k])
    for (t in n) if (t ~ /^torch/) for (k in n) if (k ~ / sp$/ && k !~ /^torch/) {
      printf "ratio %-16s / %s: whole iteration %.1fx faster, update alone %.2fx faster\n", k, t, median(sps[k])/median(sps[t]), median(up[t])/median(up[k])
    }
    print "(medians over all timed iterations; one process, one iteration = 12,000 env steps + 96 mini-batch updates)"
  }' "$out/ppo_raw.txt" | tee "$out/ppo_summary.txt"
