#!/usr/bin/env bash
# Records the SMAX reference trajectories the Go replay test reads
# (toolkit/marl/env/smax/testdata/smax_jaxmarl.jsonl.gz) from JaxMARL's SMAX, the oracle:
#   bash bench/smax_record.sh [OUT]
# It makes bench/.venv-jax from bench/requirements-jax.txt (PyPI; about 1 GB) the first time. Never
# needed by `make test`: the recording is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-toolkit/marl/env/smax/testdata/smax_jaxmarl.jsonl.gz}"
source bench/venv-jax.sh
tmp="$(mktemp "${out}.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
bench/.venv-jax/bin/python bench/smax_record.py --scenarios 3m,2s3z,3s_vs_5z,5m_vs_6m --episodes 20 --full 3 --out "$tmp"
mv "$tmp" "$out"
trap - EXIT
echo "wrote $out"
