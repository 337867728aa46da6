#!/usr/bin/env bash
# Tiny-LM benchmarks of configuration R, side by side in one command:
#   GoMLX on ONNX Runtime (onnx:cpu), GoMLX's pure-Go engine (go:parallelism=-1) built with and
#   without GOEXPERIMENT=simd, and the same model in PyTorch on the CPU as the measuring peer
#   (bench/torch_r.py, 1 thread), twice: the current torch pinned in bench/requirements-torch2.txt
#   (PyPI wheel, bench/.venv, installed by bench/peers.sh need_torch2) and Debian's python3-torch 1.13
#   (+ libopenblas0-pthread), the peer of the earlier results. Each peer samples with a KV cache (as
#   PaperLab does) and, as a second row, by full recompute of the prefix.
# Rounds are interleaved (onnx, torch 2.x, go+simd, torch 1.13, go) so that a noisy neighbour hits every
# engine alike; the tables give medians over all repetitions and the ratios to each peer's median (and
# to its best).
# Run it alone: a build or another benchmark running beside it measures nothing.
#   bench/run.sh [rounds]      (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
out=bench/out
mkdir -p "$out"

. bench/peers.sh
need_torch
need_torch2

go test -c -o "$out/lm.test" ./toolkit/lm
GOEXPERIMENT=simd go test -c -o "$out/lm_simd.test" ./toolkit/lm
run_go() { # binary engine label
  GOMLX_BACKEND="$2" "$1" -test.run '^$' -test.bench 'TrainStep$|Sample$|RLLoop$' -test.benchtime 2s \
    2>/dev/null | grep '^Benchmark' | sed "s/^/$3 /"
}
# glibc's default trim/mmap thresholds make PyTorch's step time swing between 22 and 110 ms here (page
# faults on freed and re-mapped activations); fixed thresholds give its best, stable time.
run_torch() { # python
  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 MALLOC_TRIM_THRESHOLD_=1000000000 \
    MALLOC_MMAP_THRESHOLD_=1000000000 "$1" bench/torch_r.py 1 40
}
: > "$out/raw.txt"
for r in $(seq "$rounds"); do
  echo "round $r/$rounds" >&2
  {
    run_go "$out/lm.test" onnx:cpu onnx
    run_torch "$torch2"
    run_go "$out/lm_simd.test" go go+simd
    run_torch /usr/bin/python3
    run_go "$out/lm.test" go go
  } >> "$out/raw.txt"
done

awk '
  function median(s,   a,n,i,j,x) { n=split(s,a," "); for(i=2;i<=n;i++){x=a[i];for(j=i-1;j>=1&&a[j]>x;j--)a[j+1]=a[j];a[j+1]=x}
                                     return (n%2)?a[(n+1)/2]:(a[n/2]+a[n/2+1])/2 }
  $1 ~ /^torch/ { k=$1" "$2; t[k]=t[k]" "$3; if (!(k in tmin) || $4+0 < tmin[k]+0) tmin[k]=$4; if (!($1 in seen)) { seen[$1]=1; peers[++np]=$1 }; next }
  $2 ~ /^Benchmark/ { name=$2; sub(/^Benchmark/,"",name); sub(/-[0-9]+$/,"",name); v[$1" "name]=v[$1" "name]" "($4/1e6) }
  END {
    split("TrainStep Sample RLLoop", names, " ")
    printf "%-10s %9s %9s %9s\n", "benchmark", "onnx", "go+simd", "go"
    for (k=1;k<=3;k++) { n=names[k]; on[n]=median(v["onnx "n]); si[n]=median(v["go+simd "n]); gg[n]=median(v["go "n])
      printf "%-10s %9.2f %9.2f %9.2f\n", n, on[n], si[n], gg[n] }
    print ""
    split("train_step:TrainStep sample:Sample sample_recompute:Sample rl_loop:RLLoop rl_loop_recompute:RLLoop", rows, " ")
    printf "%-10s %-18s %9s %9s | %10s %10s %10s %10s\n", "peer", "benchmark", "median", "min", "onnx/peer", "simd/peer", "go/peer", "onnx/min"
    for (p=1;p<=np;p++) for (r=1;r<=5;r++) { split(rows[r], f, ":"); key=peers[p]" "f[1]; n=f[2]; if (!(key in t)) continue; tt=median(t[key])
      printf "%-10s %-18s %9.2f %9.2f | %10.2f %10.2f %10.2f %10.2f\n", peers[p], f[1], tt, tmin[key], on[n]/tt, si[n]/tt, gg[n]/tt, on[n]/tmin[key] }
    print "(milliseconds; medians over all rounds; min = fastest single repetition of the peer; PaperLab samples with a KV cache:"
    print " sample and rl_loop are the peers with one too, *_recompute the peers by full recompute)"
  }' "$out/raw.txt" | tee "$out/summary.txt"
