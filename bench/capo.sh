#!/usr/bin/env bash
# Where capo's default run spends its time, from the committed seed-1 warm start: one step's
# rollouts (BenchmarkRLSample), rollouts + reference scores + advantages (BenchmarkRLCollect), whole
# RL steps with their update (BenchmarkRLStep, ms/step) and one held-out evaluation (BenchmarkEval),
# on ONNX Runtime; a CPU profile of whole steps; then bench/parallel.sh (one process, two goroutines,
# two processes). Run it alone.
#   bench/capo.sh [count]      (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-3}"
out=bench/out
mkdir -p "$out"
go test -c -o "$out/capo.test" ./toolkit/exp/capo
(cd toolkit/exp/capo && GOMLX_BACKEND=onnx:cpu "../../../$out/capo.test" -test.run '^$' -test.bench 'RLSample|RLCollect|RLStep|Eval' \
  -test.benchtime 10x -test.count "$count") | grep -E '^(Benchmark|cpu:)' | tee "$out/capo_raw.txt"
awk '/^Benchmark/ { name=$1; sub(/-[0-9]+$/,"",name); v[name]=v[name]" "$3/1e6; if ($6=="ms/step") s[name]=s[name]" "$5 }
  function median(str,   a,n,i,j,x) { n=split(str,a," "); for(i=2;i<=n;i++){x=a[i];for(j=i-1;j>=1&&a[j]>x;j--)a[j+1]=a[j];a[j+1]=x}
                                       return (n%2)?a[(n+1)/2]:(a[n/2]+a[n/2+1])/2 }
  END { for (k in v) printf "%-22s %10.1f ms/op%s\n", k, median(v[k]), (k in s) ? sprintf("  (%.1f ms/step)", median(s[k])) : "" }' "$out/capo_raw.txt" | sort | tee "$out/capo_summary.txt"
# Where a whole step's CPU time goes (cumulative; cgocall is the engine).
(cd toolkit/exp/capo && GOMLX_BACKEND=onnx:cpu "../../../$out/capo.test" -test.run '^$' -test.bench 'RLStep' -test.benchtime 5x \
  -test.cpuprofile "../../../$out/capo_step.prof" >/dev/null)
echo "profile of BenchmarkRLStep (cumulative share of CPU time):"
go tool pprof -top -cum "$out/capo.test" "$out/capo_step.prof" 2>/dev/null |
  grep -E 'Duration|runtime\.cgocall|rl\.update|rl\.Collect|\(\*Model\)\.Sample$|\(\*Model\)\.Score$|rl\.Diagnose|\.Compile$|packRollout' | tee "$out/capo_profile.txt"
bash bench/parallel.sh
