#!/usr/bin/env bash
# A/B speed check of the working tree against an earlier commit, side by side in one command: the
# Overcooked env benchmarks (toolkit/marl/env/overcooked, steps/s), the LBF replay of every recorded
# lb-foraging trajectory (bench/lbfspeed, µs/step), the tiny-LM benchmarks (toolkit/lm TrainStep,
# Sample, RLLoop; ns/op on the default engine, GOMLX_BACKEND to choose) and E3T's PPO iteration at the
# authors' settings (bench/ppobench -mode e3t: 12,000 environment steps, 8 × 6 PPO mini-batches and the
# partner model; env steps/s of whole iterations, rollout and update seconds; $AB_PPO_ITERS timed
# iterations per round, default 2, 0 to skip). Both sides are built first
# (the base in a temporary git worktree); each round runs base and new back to back, alternating
# which goes first, so a noisy neighbour hits both alike. Prints medians per side and new/base
# ratios (> 1 is faster for steps/s, slower for µs, ns and s).
# Run it alone.   bench/ab.sh BASE_COMMIT [rounds]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
base="${1:?usage: bench/ab.sh BASE_COMMIT [rounds]}"
rounds="${2:-5}"
ppo_iters="${AB_PPO_ITERS:-2}"
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$tmp/base" "$base" >/dev/null 2>&1
build() { # tree label
  (cd "$1" && go test -c -o "$tmp/$2.overcooked.test" ./toolkit/marl/env/overcooked &&
    go build -o "$tmp/$2.lbfspeed" ./bench/lbfspeed && go test -c -o "$tmp/$2.lm.test" ./toolkit/lm &&
    GOEXPERIMENT=simd go build -o "$tmp/$2.ppobench" ./bench/ppobench)
}
echo "ab: building $base and the working tree" >&2
build "$tmp/base" base
build . new
run() { # label tree
  "$tmp/$1.overcooked.test" -test.run '^$' -test.bench . -test.benchtime 1s 2>/dev/null | grep '^Benchmark' | sed "s/^/$1 /"
  (cd "$2" && "$tmp/$1.lbfspeed" 1) | sed "s/^paperlab round 1:/$1 LBFReplay/"
  "$tmp/$1.lm.test" -test.run '^$' -test.bench 'TrainStep$|Sample$|RLLoop$' -test.benchtime 2s 2>/dev/null | grep '^Benchmark' | sed "s/^/$1 /"
  if [ "$ppo_iters" -gt 0 ]; then # one line per timed iteration: go <engine> e3t <steps/s> <rollout s> <update s>
    "$tmp/$1.ppobench" -mode e3t -iters "$ppo_iters" 2>/dev/null | awk -v side="$1" '$1 == "go" {
      print side, "PPOIterationE3T", $4, "steps/s"; print side, "PPORolloutE3T", $5, "s"; print side, "PPOUpdateE3T", $6, "s" }'
  fi
}
raw="$tmp/raw.txt"
: > "$raw"
for r in $(seq "$rounds"); do
  echo "round $r/$rounds" >&2
  if [ $((r % 2)) = 1 ]; then run base "$tmp/base" >> "$raw"; run new . >> "$raw"
  else run new . >> "$raw"; run base "$tmp/base" >> "$raw"; fi
done
echo "# bench/ab.sh $base vs working tree ($(git rev-parse --short HEAD)$(git diff --quiet || echo '+changes')), $rounds rounds, $(nproc) cores, LM engine ${GOMLX_BACKEND:-toolkit/backend default}, $(date -u +%F)"
printf "%-34s %14s %14s %10s\n" benchmark "base median" "new median" new/base
awk '
  function median(s,   a,n,i,j,x) { n=split(s,a," "); for(i=2;i<=n;i++){x=a[i];for(j=i-1;j>=1&&a[j]>x;j--)a[j+1]=a[j];a[j+1]=x}
                                     return (n%2)?a[(n+1)/2]:(a[n/2]+a[n/2+1])/2 }
  { side=$1; name=$2; sub(/^Benchmark/,"",name); sub(/-[0-9]+$/,"",name)
    for (i=3;i<=NF;i++) {
      if ($(i+1)=="steps/s") { v[side,name" steps/s"]=v[side,name" steps/s"]" "$i; names[name" steps/s"]=1 }
      if ($(i+1)=="ns/op" && name ~ /TrainStep|Sample|RLLoop/) { v[side,name" ns/op"]=v[side,name" ns/op"]" "$i; names[name" ns/op"]=1 }
      if ($(i+1)=="us/step") { v[side,name" us/step"]=v[side,name" us/step"]" "$i; names[name" us/step"]=1 }
      if ($(i+1)=="s" && name ~ /^PPO/) { v[side,name" s"]=v[side,name" s"]" "$i; names[name" s"]=1 }
    } }
  END {
    for (n in names) { b=median(v["base",n]); w=median(v["new",n]); printf "%-34s %14.5g %14.5g %10.3f\n", n, b, w, w/b }
  }' "$raw" | sort
