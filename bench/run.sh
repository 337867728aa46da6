#!/usr/bin/env bash
# Tiny-LM benchmarks of configuration R, side by side in one command:
#   GoMLX on ONNX Runtime (onnx:cpu), GoMLX's pure-Go engine (go:parallelism=-1) built with and
#   without GOEXPERIMENT=simd, and the same model in PyTorch on the CPU as the measuring peer
#   (Debian python3-torch + libopenblas0-pthread, 1 thread).
# Rounds are interleaved (onnx, torch, go+simd, go) so that a noisy neighbour hits every engine alike;
# the table gives medians over all repetitions and the ratios to PyTorch's median (and to its best).
# Run it alone: a build or another benchmark running beside it measures nothing.
#   bench/run.sh [rounds]      (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
out=bench/out
mkdir -p "$out"

. bench/peers.sh
need_torch

go test -c -o "$out/lm.test" ./toolkit/lm
GOEXPERIMENT=simd go test -c -o "$out/lm_simd.test" ./toolkit/lm
run_go() { # binary engine label
  GOMLX_BACKEND="$2" "$1" -test.run '^$' -test.bench 'TrainStep$|Sample$|RLLoop$' -test.benchtime 2s \
    2>/dev/null | grep '^Benchmark' | sed "s/^/$3 /"
}
: > "$out/raw.txt"
for r in $(seq "$rounds"); do
  echo "round $r/$rounds" >&2
  {
    run_go "$out/lm.test" onnx:cpu onnx
    # glibc's default trim/mmap thresholds make PyTorch's step time swing between 22 and 110 ms here
    # (page faults on freed and re-mapped activations); fixed thresholds give its best, stable time.
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 MALLOC_TRIM_THRESHOLD_=1000000000 \
      MALLOC_MMAP_THRESHOLD_=1000000000 /usr/bin/python3 bench/torch_r.py 1 40
    run_go "$out/lm_simd.test" go go+simd
    run_go "$out/lm.test" go go
  } >> "$out/raw.txt"
done

awk '
  function median(s,   a,n,i,j,x) { n=split(s,a," "); for(i=2;i<=n;i++){x=a[i];for(j=i-1;j>=1&&a[j]>x;j--)a[j+1]=a[j];a[j+1]=x}
                                     return (n%2)?a[(n+1)/2]:(a[n/2]+a[n/2+1])/2 }
  $1=="torch" { t[$2]=t[$2]" "$3; if (!($2 in tmin) || $4+0 < tmin[$2]+0) tmin[$2]=$4; next }
  $2 ~ /^Benchmark/ { name=$2; sub(/^Benchmark/,"",name); sub(/-[0-9]+$/,"",name); v[$1" "name]=v[$1" "name]" "($4/1e6) }
  END {
    map["TrainStep"]="train_step"; map["Sample"]="sample"; map["RLLoop"]="rl_loop"
    printf "%-10s %9s %9s %9s %9s %9s | %10s %10s %10s %11s\n", "benchmark", "torch", "torch min", "onnx", "go+simd", "go", "onnx/torch", "simd/torch", "go/torch", "onnx/tmin"
    split("TrainStep Sample RLLoop", names, " ")
    for (k=1;k<=3;k++) { n=names[k]; tt=median(t[map[n]]); o=median(v["onnx "n]); s=median(v["go+simd "n]); g=median(v["go "n]);
      printf "%-10s %9.2f %9.2f %9.2f %9.2f %9.2f | %10.2f %10.2f %10.2f %11.2f\n", n, tt, tmin[map[n]], o, s, g, o/tt, s/tt, g/tt, o/tmin[map[n]] }
    print "(milliseconds; medians over all rounds; torch min = fastest single torch repetition)"
  }' "$out/raw.txt" | tee "$out/summary.txt"
