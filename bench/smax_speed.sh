#!/usr/bin/env bash
# SMAX environment speed, PaperLab's Go rules against JaxMARL's SMAX (jitted, vmapped), random
# available actions, on one core and on two, interleaved rounds in one command:
#   bash bench/smax_speed.sh [ROUNDS] > bench/results/smax_speed_<date>.txt
# Run it with nothing else on the machine. It makes bench/.venv-jax (bench/requirements-jax.txt)
# the first time.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
source bench/venv-jax.sh
go build -o /tmp/smaxspeed ./bench/smaxspeed
echo "# bash bench/smax_speed.sh $rounds, $(date -u +%FT%TZ), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs, commit $(git rev-parse --short HEAD)"
echo "# Go: toolkit/marl/env/smax, copies split over GOMAXPROCS goroutines; JAX: jaxmarl 0.2.0 SMAX, jit(vmap(scan(step)))."
echo "# One core: taskset -c 0 (Go GOMAXPROCS=1; XLA single-threaded Eigen). Steps/s: copies × steps / median time."
for r in $(seq "$rounds"); do
  for sc in 3m 2s3z; do
    GOMAXPROCS=1 taskset -c 0 /tmp/smaxspeed -scenario "$sc" -envs 256 -label 1core
    GOMAXPROCS=2 /tmp/smaxspeed -scenario "$sc" -envs 256 -label 2cores
    XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" taskset -c 0 \
      bench/.venv-jax/bin/python bench/smax_peer.py --scenario "$sc" --envs 1,256,4096 --label 1core 2>/dev/null | grep '^jax smax'
    bench/.venv-jax/bin/python bench/smax_peer.py --scenario "$sc" --envs 1,256,4096 --label 2cores 2>/dev/null | grep '^jax smax'
  done
done
