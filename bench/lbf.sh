#!/usr/bin/env bash
# Level-Based Foraging: PaperLab's env.LBF.Step against semitable/lb-foraging's ForagingEnv.step on
# the same tasks, initial states and joint actions (every trajectory recorded in
# toolkit/marl/env/testdata/lbf, 1,699 steps, observations included), rounds interleaved; prints each
# round's µs per step, the medians and their ratio. The peer needs an lb-foraging checkout in
# LB_FORAGING_SRC (e.g. the commit 79f383b the trajectories come from) and Debian's python3-numpy
# (installed when missing); without a checkout only PaperLab's side runs.
#   bench/lbf.sh [ROUNDS=5]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-5}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/lbfspeed" ./bench/lbfspeed
peer=""
if [ -n "${LB_FORAGING_SRC:-}" ]; then
  if ! /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-numpy >/dev/null
  fi
  peer=1
else
  echo "lbf bench: LB_FORAGING_SRC not set: PaperLab's side only"
fi
: > "$out/raw.txt"
for r in $(seq "$rounds"); do
  "$out/lbfspeed" 1 | sed "s/round 1/round $r/" | tee -a "$out/raw.txt"
  if [ -n "$peer" ]; then
    /usr/bin/python3 bench/lbf_peer.py "$LB_FORAGING_SRC" 1 | sed "s/round 1/round $r/" | tee -a "$out/raw.txt"
  fi
done
med() { grep "^$1 " "$out/raw.txt" | awk '{print $(NF-1)}' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
go_us=$(med paperlab)
echo "median PaperLab ${go_us} us/step"
if [ -n "$peer" ]; then
  py_us=$(med lb-foraging)
  echo "median lb-foraging ${py_us} us/step; ratio lb-foraging/PaperLab $(echo "scale=1; $py_us / $go_us" | bc)"
fi
