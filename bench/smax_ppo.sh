#!/usr/bin/env bash
# One MAPPO iteration on SMAX 3m (64 games × 64 steps: rollout, advantages, 4 × 4 mini-batch update),
# PaperLab's marl/ppo (bench/smaxprobe -timing, ONNX Runtime) against a JAX MAPPO on JaxMARL's SMAX
# (bench/smax_mappo_peer.py, jitted whole), on one core and on two, interleaved rounds in one command:
#   bash bench/smax_ppo.sh [ROUNDS] > bench/results/smax_ppo_<date>.txt
# Run it with nothing else on the machine. It makes bench/.venv-jax (bench/requirements-jax.txt)
# the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
source bench/venv-jax.sh
go build -o /tmp/smaxprobe ./bench/smaxprobe
echo "# bash bench/smax_ppo.sh $rounds, $(date -u +%FT%TZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs, commit $(git rev-parse --short HEAD)"
echo "# PaperLab: marl/ppo MAPPO (the smax gate's settings), median of 10 iterations after 2; JAX: bench/smax_mappo_peer.py, the same settings."
echo "# One core: taskset -c 0 (XLA single-threaded Eigen); two cores: no pinning."
for r in $(seq "$rounds"); do
  taskset -c 0 /tmp/smaxprobe -iters 12 -timing 1core
  /tmp/smaxprobe -iters 12 -timing 2cores
  XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" taskset -c 0 \
    bench/.venv-jax/bin/python bench/smax_mappo_peer.py --label 1core 2>/dev/null | grep '^jax-mappo'
  bench/.venv-jax/bin/python bench/smax_mappo_peer.py --label 2cores 2>/dev/null | grep '^jax-mappo'
done
