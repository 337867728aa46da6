#!/usr/bin/env bash
# What is bit-identical and what is not: bench/repro (one seed of capo's SFT, cut to STEPS steps, and
# one E3T training, cut to ITERS iterations) run
#   - on ONNX Runtime, on the pure-Go engine with its AVX-512 kernels, with AVX-512 off (the AVX2
#     kernels an AVX2-only CPU gets), and with every SIMD kernel off (reference mode), twice each;
#   - in reference mode with GOMAXPROCS=1 (another core count);
#   - under qemu-x86_64 emulating CPUs without AVX-512 (Haswell) or without AVX (Nehalem), for the
#     engines whose kernels depend on the CPU (Debian's qemu-user; installed when missing).
# It prints one line per run (final value bit for bit, weight hash, seconds) and a table for
# BENCHMARKS.md. Run it alone.
#   bench/repro.sh [STEPS=100] [ITERS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-100} iters=${2:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if ! command -v qemu-x86_64 >/dev/null; then
  echo "repro: installing Debian qemu-user (CPU emulation)"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null
fi
GOEXPERIMENT=simd go build -o "$out/repro" ./bench/repro
lib="${ONNXRUNTIME_SHARED_LIBRARY_PATH:-$HOME/.local/lib/onnxruntime/libonnxruntime.so.1}"
run() { # label, then env assignments; QEMU=<cpu model> runs it under qemu-x86_64; SIZE = repro flags
  local label=$1; shift
  local r
  r=$(env "$@" ${QEMU:+qemu-x86_64 -cpu $QEMU} "$out/repro" $SIZE 2>&1 | grep -E '^(sft|e3t) ' || echo "failed")
  echo "$r" | sed "s/^/$label | /"
}
echo "# bench/repro.sh — $(date -u +%FT%TZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores"
ref=(GOMLX_BACKEND=go:parallelism=-1 GOMLX_SIMD_AVX512=0 GOMLX_SIMD_AVX2=0)
ort=(GOMLX_BACKEND=onnx:cpu ONNXRUNTIME_SHARED_LIBRARY_PATH="$lib")
echo "## A. this CPU: capo SFT seed 1, $steps steps; E3T seed 1, $iters iterations of 8 games"
SIZE="-steps $steps -iters $iters -envs 8"
for rep in 1 2; do
  run "onnx:cpu #$rep" "${ort[@]}"
  run "go, AVX-512 kernels #$rep" GOMLX_BACKEND=go:parallelism=-1
  run "go, AVX2 kernels (AVX-512 off) #$rep" GOMLX_BACKEND=go:parallelism=-1 GOMLX_SIMD_AVX512=0
  run "reference (no SIMD) #$rep" "${ref[@]}"
done
run "reference, GOMAXPROCS=1" "${ref[@]}" GOMAXPROCS=1
echo "## B. emulated CPUs (qemu-x86_64, ~50x slower, so smaller): capo SFT 10 steps; E3T 1 iteration of 2 games"
SIZE="-steps 10 -iters 1 -envs 2"
run "onnx:cpu, this CPU (AVX-512)" "${ort[@]}"
QEMU=Haswell-v4 run "onnx:cpu, qemu Haswell (AVX2)" "${ort[@]}"
run "go default, this CPU with AVX-512 off" GOMLX_BACKEND=go:parallelism=-1 GOMLX_SIMD_AVX512=0
QEMU=Haswell-v4 run "go default, qemu Haswell (AVX2)" GOMLX_BACKEND=go:parallelism=-1
run "reference, this CPU" "${ref[@]}"
QEMU=Haswell-v4 run "reference, qemu Haswell (AVX2)" "${ref[@]}"
QEMU=Nehalem run "reference, qemu Nehalem (no AVX)" "${ref[@]}"
