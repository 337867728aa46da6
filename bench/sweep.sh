#!/usr/bin/env bash
# Seeds serial against parallel shards on this machine: `paperlab EXP -seeds 1-N` (one process) and
# `paperlab EXP -seeds 1-N -jobs J` (one-seed shards as J child processes, merged), alternated REPS
# times; prints each wall time, the medians, their ratio, and whether the merged result equals the
# serial one run by run (bench/same_result.py).
#   bench/sweep.sh EXP SCALE N [JOBS=2] [REPS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
exp=$1 scale=$2 n=$3 jobs=${4:-2} reps=${5:-3}
bin=$(mktemp -d)/paperlab
go build -o "$bin" ./toolkit/cmd/paperlab
out=$(mktemp -d)
echo "# serial vs -jobs $jobs, experiment $exp at $scale scale ($n seeds), $(date -u +%FT%TZ), $(nproc) cores, engine: $("$bin" engine 2>&1 | head -1)"
ser=() par=()
for r in $(seq "$reps"); do
  for mode in serial parallel; do
    rm -rf "$out/$mode"
    extra=(-jobs 1); [ "$mode" = parallel ] && extra=(-jobs "$jobs")  # -jobs 1: an experiment's own default (capo: 2) must not make the serial leg parallel
    t0=$(date +%s.%N)
    "$bin" "$exp" -scale "$scale" -seeds "1-$n" -out "$out/$mode" -save none "${extra[@]}" > "$out/$mode.log" 2>&1
    t=$(echo "$(date +%s.%N) - $t0" | bc)
    echo "rep $r $mode: $t s"
    if [ "$mode" = serial ]; then ser+=("$t"); else par+=("$t"); fi
  done
  echo "rep $r same result: $(python3 bench/same_result.py "$out/serial" "$out/parallel")"
done
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
ms=$(med "${ser[@]}") mp=$(med "${par[@]}")
echo "median serial $ms s, median -jobs $jobs $mp s, ratio parallel/serial $(echo "scale=3; $mp / $ms" | bc)"
rm -rf "$out"
