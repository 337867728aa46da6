#!/usr/bin/env bash
# Does this machine gain from running RL seeds in parallel? BenchmarkRLLoop (8 sampling calls and one
# train step of the tiny LM on ONNX Runtime) three ways, side by side in one command:
#   alone        one process, one loop;
#   goroutines   one process, two independent loops in two goroutines (BenchmarkRLLoopTwoGoroutines);
#   processes    two processes at once, one loop each (what `paperlab <exp> -jobs 2` does with seeds).
# Rounds are interleaved; the table gives medians and the throughput (loops per second) against alone.
# Run it alone: a build or another benchmark beside it measures nothing.
#   bench/parallel.sh [rounds]      (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
out=bench/out
mkdir -p "$out"
go test -c -o "$out/lm.test" ./toolkit/lm
bench() { # name
  GOMLX_BACKEND=onnx:cpu "$out/lm.test" -test.run '^$' -test.bench "^Benchmark$1\$" -test.benchtime 20x 2>/dev/null |
    awk '/^Benchmark/ { print $3/1e6 }'
}
: > "$out/parallel_raw.txt"
for r in $(seq "$rounds"); do
  echo "round $r/$rounds" >&2
  echo "alone $(bench RLLoop)" >> "$out/parallel_raw.txt"
  echo "goroutines $(bench RLLoopTwoGoroutines)" >> "$out/parallel_raw.txt"
  a=$(mktemp) b=$(mktemp)
  bench RLLoop > "$a" & bench RLLoop > "$b"; wait
  echo "processes $(cat "$a") $(cat "$b")" >> "$out/parallel_raw.txt"
  rm -f "$a" "$b"
done
awk '
  function median(s,   a,n,i,j,x) { n=split(s,a," "); for(i=2;i<=n;i++){x=a[i];for(j=i-1;j>=1&&a[j]>x;j--)a[j+1]=a[j];a[j+1]=x}
                                     return (n%2)?a[(n+1)/2]:(a[n/2]+a[n/2+1])/2 }
  { for (i=2;i<=NF;i++) v[$1]=v[$1]" "$i }
  END {
    al=median(v["alone"]); go=median(v["goroutines"]); pr=median(v["processes"])
    printf "%-34s %10s %16s\n", "way", "ms per op", "loops/s vs alone"
    printf "%-34s %10.1f %16.2f\n", "alone (1 process, 1 loop)", al, 1.00
    printf "%-34s %10.1f %16.2f\n", "goroutines (1 process, 2 loops/op)", go, 2*al/go
    printf "%-34s %10.1f %16.2f\n", "processes (2 at once, 1 loop each)", pr, 2*al/pr
    print "(medians over all rounds; BenchmarkRLLoop at batch " (ENVIRON["PAPERLAB_BENCH_BATCH"] ? ENVIRON["PAPERLAB_BENCH_BATCH"] : 64) ", 20 ops per measurement)"
  }' "$out/parallel_raw.txt" | tee "$out/parallel_summary.txt"
