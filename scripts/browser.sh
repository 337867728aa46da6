#!/usr/bin/env bash
# Opens notebooks as a new user sees them and counts the figures a browser actually renders.
#   scripts/browser.sh [DIR]    the .ipynb files in DIR (default: notebooks/, the committed ones)
# It starts the same Jupyter as `make lab` (Debian's classic Notebook, gonb kernel) on a fresh copy
# of the notebooks with an empty trust database (so every notebook is untrusted, as on a fresh
# clone), loads each one in headless Chromium (Debian's `chromium`, installed when missing), dumps
# the page's DOM and fails when a figure output of the .ipynb is missing from the rendered page.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:${PATH}"
src="${1:-notebooks}"
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }
if ! command -v chromium >/dev/null; then
  echo "browser: installing Debian chromium"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
work=$(mktemp -d)
jpid=""
cleanup() { [ -n "$jpid" ] && kill "$jpid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/nbs" "$work/data" "$work/chrome"
cp "$src"/*.ipynb "$work/nbs/"
go build -o "$work/nbcheck" ./toolkit/cmd/nbcheck
# A free port on the loopback interface.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
# JUPYTER_DATA_DIR holds the trust database (nbsignatures.db): a fresh one trusts nothing.
# JUPYTER_PATH keeps the gonb kernel spec that `make setup` registered.
JUPYTER_DATA_DIR="$work/data" JUPYTER_PATH="${HOME}/.local/share/jupyter" \
  jupyter notebook --no-browser --ip=127.0.0.1 --port="$port" --allow-root \
  --NotebookApp.token='' --NotebookApp.password='' --notebook-dir="$work/nbs" >"$work/jupyter.log" 2>&1 &
jpid=$!
for _ in $(seq 1 60); do
  curl -sf "http://127.0.0.1:$port/api/status" >/dev/null 2>&1 && break
  sleep 0.5
done
if ! curl -sf "http://127.0.0.1:$port/api/status" >/dev/null 2>&1; then
  echo "browser: Jupyter did not start"; cat "$work/jupyter.log"; exit 1
fi
status=0
for nb in "$work"/nbs/*.ipynb; do
  name=$(basename "$nb")
  dom="$work/${name%.ipynb}.html"
  # The notebook page renders every output from the .ipynb on load; the virtual-time budget lets
  # its scripts finish without waiting on the kernel.
  timeout 180 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/chrome" \
    --virtual-time-budget=20000 --dump-dom "http://127.0.0.1:$port/notebooks/$name" >"$dom" 2>"$work/chromium.log" || true
  if ! "$work/nbcheck" -dom "$dom" "$src/$name"; then status=1; fi
done
exit $status
