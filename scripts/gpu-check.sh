#!/usr/bin/env bash
# The GPU path in one script, for a machine with an NVIDIA GPU and no network, where Go may be absent.
#
#   scripts/gpu-check.sh pack [DIR]     here, with Go: build into DIR (default .gpu/, ignored by git) the
#                                       paperlab binary and the test binary of toolkit/lm (cgo, XLA
#                                       compiled in; stripped, ~45 MB together), and a copy of this script
#   DIR/gpu-check.sh run [PLUGIN]       on the GPU machine: find a PJRT CUDA plugin (PLUGIN, $PJRT_PLUGIN,
#                                       or a search for the plugin of an installed jax-cuda pjrt wheel),
#                                       then run, each step's output in DIR/out/:
#     1. nvidia-smi's name, memory and driver of GPU 0;
#     2. the engine-agreement test on the GPU against the CPU: configuration R trained 30 SFT steps from
#        the same weights on xla:PLUGIN and on the pure-Go engine, losses compared step by step
#        (TestEnginesAgreeOnLM with PAPERLAB_AGREE_ENGINE);
#     3. the configuration-R benchmarks (train step, sampling 8 tokens, the RL loop) at batch 64 and at
#        a GPU-sized batch ($GPU_BATCH, default 1024), on the GPU and on the CPU's pure-Go engine;
#     4. one experiment at smoke scale on the GPU (capo, seed 1) with its wall time, and the same on the CPU;
#   and print a Markdown table for BENCHMARKS.md (also in DIR/out/table.md).
# A failing step is recorded in the table and the script goes on; it exits non-zero if any step failed.
# The binaries are dynamically linked against this machine's glibc (Debian 12: 2.36): the GPU machine
# needs that glibc or newer. XLA_FLAGS is passed through (e.g. --xla_gpu_cuda_data_dir=/usr/local/cuda
# when the CUDA libraries are not found).
set -uo pipefail

pack() {
  local dir="${1:-.gpu}"
  cd "$(dirname "$0")/.." || exit 1
  [ "$(go env CGO_ENABLED)" = 1 ] || { echo "gpu-check: cgo is off; the XLA engine needs it" >&2; exit 1; }
  mkdir -p "$dir"
  set -e
  # stripped (-s -w): the three binaries fit the 64 MiB a device session may carry
  go build -trimpath -ldflags="-s -w" -o "$dir/paperlab" ./toolkit/cmd/paperlab
  go test -c -trimpath -ldflags="-s -w" -o "$dir/lm.test" ./toolkit/lm
  cp scripts/gpu-check.sh "$dir/gpu-check.sh"
  echo "gpu-check: packed $(du -sh "$dir" | cut -f1) into $dir; on the GPU machine run: $dir/gpu-check.sh run [/path/to/xla_cuda_plugin.so]"
}

find_plugin() {
  if [ -n "${1:-}" ]; then echo "$1"; return; fi
  if [ -n "${PJRT_PLUGIN:-}" ]; then echo "$PJRT_PLUGIN"; return; fi
  local p
  for root in "$HOME/.local" /usr/local/lib /usr/lib /opt /usr/local /root; do
    [ -d "$root" ] || continue
    p=$(timeout 60 find "$root" -xdev \( -name 'xla_cuda_plugin.so' -o -name 'pjrt_c_api_gpu_plugin.so' \
      -o -name 'pjrt_plugin_xla_cuda*.so' -o -name 'pjrt_c_api_cuda_plugin.so' \) 2>/dev/null | head -1)
    if [ -n "$p" ]; then echo "$p"; return; fi
  done
}

# bench BINARY ENGINE LABEL BATCH: the three benchmarks' ns/op as "label batch bench ms" lines.
bench() {
  GOMLX_BACKEND="$2" PAPERLAB_BENCH_BATCH="$4" "$1" -test.run '^$' -test.bench 'TrainStep$|Sample$|RLLoop$' \
    -test.benchtime 3s 2>&1 | tee -a "$out/bench.log" | awk -v l="$3" -v b="$4" '/^Benchmark/ {sub(/-[0-9]+$/, "", $1); printf "%s %s %s %.2f\n", l, b, $1, $3/1e6}'
}

run_check() {
  local here plugin gpu cpu fails=0
  here=$(cd "$(dirname "$0")" && pwd)
  out="$here/out"
  mkdir -p "$out"
  : > "$out/bench.log"
  plugin=$(find_plugin "${1:-}")
  gpu="${GPU_ENGINE:-}" # GPU_ENGINE overrides the engine (e.g. onnx:cpu to try this script without a GPU)
  if [ -z "$gpu" ]; then
    if [ -z "$plugin" ]; then
      echo "gpu-check: no PJRT CUDA plugin found; give its path: gpu-check.sh run /path/to/xla_cuda_plugin.so" >&2
      echo "  (inside a jax-cuda12-pjrt wheel: unzip it, jax_plugins/xla_cuda12/xla_cuda_plugin.so)" >&2
      exit 1
    fi
    if [ ! -f "$plugin" ]; then
      echo "gpu-check: $plugin: no such file" >&2
      exit 1
    fi
    gpu="xla:$plugin"
  fi
  cpu="${CPU_ENGINE:-go:parallelism=-1}"
  local card
  card=$(nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null | head -1)
  echo "gpu-check: GPU ${card:-unknown (no nvidia-smi)}; engine $gpu; CPU reference $cpu; $(nproc) cores"
  local rows=()
  # 2. agreement
  if PAPERLAB_AGREE_ENGINE="$gpu" "$here/lm.test" -test.run '^TestEnginesAgreeOnLM$' -test.v > "$out/agree.log" 2>&1; then
    rows+=("| engine agreement (30 SFT steps of R, $gpu vs the pure-Go engine on the CPU) | pass: $(grep -o 'largest go/[a-z]* difference [^ ]*' "$out/agree.log" | head -1) |")
  else
    fails=$((fails + 1))
    rows+=("| engine agreement (30 SFT steps of R, $gpu vs the pure-Go engine on the CPU) | **FAIL**: $( (grep -m1 -E '_test\.go:[0-9]+:' "$out/agree.log" || grep -v '^\s*$' "$out/agree.log" | tail -1) | sed 's/^ *//' | tr '|' '/' | cut -c1-200) (out/agree.log) |")
  fi
  # 3. benchmarks
  : > "$out/bench.txt"
  for b in 64 "${GPU_BATCH:-1024}"; do
    bench "$here/lm.test" "$gpu" gpu "$b" >> "$out/bench.txt" || true
    bench "$here/lm.test" "$cpu" cpu "$b" >> "$out/bench.txt" || true
  done
  for b in 64 "${GPU_BATCH:-1024}"; do
    for name in BenchmarkTrainStep BenchmarkSample BenchmarkRLLoop; do
      local g c
      g=$(awk -v b="$b" -v n="$name" '$1=="gpu" && $2==b && $3==n {print $4}' "$out/bench.txt")
      c=$(awk -v b="$b" -v n="$name" '$1=="cpu" && $2==b && $3==n {print $4}' "$out/bench.txt")
      if [ -z "$g" ]; then
        fails=$((fails + 1))
        rows+=("| $name, batch $b | GPU **failed** (out/bench.log) · CPU ${c:-?} ms/op |")
      else
        rows+=("| $name, batch $b | GPU $g ms/op · CPU ${c:-?} ms/op$( [ -n "$c" ] && echo " · CPU/GPU $(awk -v c="$c" -v g="$g" 'BEGIN {printf "%.1f", c/g}')×") |")
      fi
    done
  done
  # 4. one experiment at smoke scale
  for side in gpu cpu; do
    local eng=$gpu t0 t1
    [ "$side" = cpu ] && eng=$cpu
    t0=$(date +%s.%N)
    if GOMLX_BACKEND="$eng" "$here/paperlab" capo -scale smoke -seeds 1-1 -save none -out "$out/capo-$side" > "$out/capo-$side.log" 2>&1; then
      t1=$(date +%s.%N)
      rows+=("| capo at smoke scale, seed 1, on the $side ($eng) | $(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.1f", b-a}') s wall; $(grep -m1 -E '^\s+capo ' "$out/capo-$side.log" | sed 's/^ *//' | cut -c1-90) |")
    else
      fails=$((fails + 1))
      rows+=("| capo at smoke scale, seed 1, on the $side ($eng) | **FAIL**: $(tail -1 "$out/capo-$side.log" | tr '|' '/' | cut -c1-160) (out/capo-$side.log) |")
    fi
  done
  {
    echo "GPU check $(date -u +%F): ${card:-GPU unknown}; engine \`$gpu\`; CPU reference \`$cpu\` on $(nproc) cores"
    echo
    echo "| check | result |"
    echo "|---|---|"
    printf '%s\n' "${rows[@]}"
  } | tee "$out/table.md"
  [ "$fails" = 0 ]
}

case "${1:-}" in
  pack) pack "${2:-.gpu}" ;;
  run) run_check "${2:-}" ;;
  *) echo "usage: scripts/gpu-check.sh pack [DIR]   |   DIR/gpu-check.sh run [PLUGIN]" >&2; exit 2 ;;
esac
