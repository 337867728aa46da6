#!/usr/bin/env bash
# Executes every notebook under notebooks/ headlessly with the gonb kernel and fails on any error cell.
#   scripts/notebooks.sh smoke      run at smoke scale into a temporary folder (make test), then open
#                                   the executed copies in headless Chromium (scripts/browser.sh)
#   scripts/notebooks.sh inplace    run at $PAPERLAB_SCALE (default: default) and save outputs in place (make reproduce)
#   scripts/notebooks.sh MODE NOTEBOOK…   only the notebooks named (e.g. after a change to one experiment)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:${PATH}"
# Headless: the probe notebook's threshold slider shows its default value at once instead of waiting
# 8 s for a browser that will not answer (and no widget script is saved in the outputs).
export PAPERLAB_HEADLESS=1
mode="${1:-smoke}"
shift || true
notebooks=("$@")
[ ${#notebooks[@]} -gt 0 ] || notebooks=(notebooks/*.ipynb)
# A cell's time limit: an hour at default scale; at smoke scale every cell takes seconds, so a stuck
# cell fails after 10 minutes instead of eating CI's budget.
if [ "$mode" = inplace ]; then timeout="${NOTEBOOK_TIMEOUT:-3600}"; else timeout="${NOTEBOOK_TIMEOUT:-600}"; fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/nbcheck" ./toolkit/cmd/nbcheck
status=0
for nb in "${notebooks[@]}"; do
  name=$(basename "$nb" .ipynb)
  start=$(date +%s)
  if [ "$mode" = inplace ]; then
    args=(--inplace)
    result="$nb"
  else
    export PAPERLAB_SCALE=smoke PAPERLAB_RERUN=1  # never reuse a stale smoke result
    args=(--output-dir "$out")
    result="$out/$name.ipynb"
  fi
  echo "notebook $nb (scale ${PAPERLAB_SCALE:-default})"
  if ! jupyter nbconvert --to notebook --execute --ExecutePreprocessor.timeout="$timeout" \
        --ExecutePreprocessor.kernel_name=gonb "${args[@]}" "$nb" >"$out/$name.log" 2>&1; then
    echo "FAILED: $nb — the failing cell:"; grep -v '^[IWE][0-9]\{4\} ' "$out/$name.log" | tail -40
    status=1
    continue
  fi
  if ! "$out/nbcheck" "$result"; then status=1; continue; fi
  echo "  ok in $(( $(date +%s) - start ))s"
done
if [ "$mode" != inplace ] && [ $status = 0 ]; then
  echo "browser check of the executed notebooks"
  bash scripts/browser.sh "$out" || status=1
fi
exit $status
