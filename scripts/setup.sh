#!/usr/bin/env bash
# PaperLab setup: installs whatever is missing, and is quiet when everything is present.
#   - ONNX Runtime's CPU library (from the npm package onnxruntime-node, never running its scripts)
#   - Debian's Jupyter: jupyter-nbconvert, python3-nbclient, jupyter-notebook
#   - Go tools pinned in go.mod (gonb, goimports) and gopls, then the gonb kernel
# Safe to run again: each step checks first.
set -euo pipefail
cd "$(dirname "$0")/.."

ORT_VERSION=1.30.0
ORT_DIR="${HOME}/.local/lib/onnxruntime"
ORT_LIB="${ORT_DIR}/libonnxruntime.so.1"
GOPLS_VERSION=v0.23.0
GOBIN_DIR="$(go env GOPATH)/bin"
export PATH="${GOBIN_DIR}:${PATH}"

say() { echo "setup: $*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }

# --- Go ---------------------------------------------------------------------------------------
need_go=$(sed -n 's/^go //p' go.mod)
have_go=$(go env GOVERSION | sed 's/^go//')
if [ "$(printf '%s\n%s\n' "$need_go" "$have_go" | sort -V | head -1)" != "$need_go" ]; then
  say "go.mod needs Go $need_go but this machine has $have_go"; exit 1
fi
go mod download

# --- ONNX Runtime (CPU) -------------------------------------------------------------------------
if [ ! -s "$ORT_LIB" ]; then
  if command -v npm >/dev/null; then
    say "installing ONNX Runtime ${ORT_VERSION} (npm package onnxruntime-node) into ${ORT_DIR}"
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "onnxruntime-node@${ORT_VERSION}" >/dev/null \
      && tar -xzf "onnxruntime-node-${ORT_VERSION}.tgz" package/bin/napi-v6/linux/x64/libonnxruntime.so.1)
    mkdir -p "$ORT_DIR"
    cp "$tmp/package/bin/napi-v6/linux/x64/libonnxruntime.so.1" "$ORT_LIB.tmp" && mv "$ORT_LIB.tmp" "$ORT_LIB"
    rm -rf "$tmp"
  else
    say "npm not found: ONNX Runtime not installed; GoMLX's pure-Go engine will serve (about 8x slower here)"
  fi
fi

# --- C compiler: the ONNX Runtime engine is a cgo package; without gcc Go builds with CGO_ENABLED=0
# and only the pure-Go engine exists ------------------------------------------------------------
if [ -s "$ORT_LIB" ] && ! command -v gcc >/dev/null && ! command -v cc >/dev/null; then
  say "installing Debian gcc (cgo, for the ONNX Runtime engine)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc libc6-dev >/dev/null
fi

# --- Jupyter (Debian packages; PyPI is not reachable) ------------------------------------------
if ! command -v jupyter-nbconvert >/dev/null || ! /usr/bin/python3 -c 'import nbclient, notebook' 2>/dev/null; then
  say "installing Debian jupyter-nbconvert python3-nbclient jupyter-notebook"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jupyter-nbconvert python3-nbclient jupyter-notebook python3-ipykernel >/dev/null
fi

# --- Go tools: gonb and goimports (tool lines in go.mod), gopls (gonb needs it) -----------------
tool_version() { go version -m "$1" 2>/dev/null | awk '$1=="mod"{print $3; exit}'; }
want_gonb=$(go list -m -f '{{.Version}}' github.com/janpfeifer/gonb)
want_tools=$(go list -m -f '{{.Version}}' golang.org/x/tools)
if [ "$(tool_version "$GOBIN_DIR/gonb")" != "$want_gonb" ] || [ "$(tool_version "$GOBIN_DIR/goimports")" != "$want_tools" ]; then
  say "installing gonb ${want_gonb} and goimports ${want_tools} (go install tool)"
  go install tool
fi
if [ "$(tool_version "$GOBIN_DIR/gopls")" != "$GOPLS_VERSION" ]; then
  say "installing gopls ${GOPLS_VERSION}"
  go install "golang.org/x/tools/gopls@${GOPLS_VERSION}"
fi
kernel="${HOME}/.local/share/jupyter/kernels/gonb/kernel.json"
if [ ! -s "$kernel" ] || ! grep -q "\"${GOBIN_DIR}/gonb\"" "$kernel"; then
  say "registering the gonb Jupyter kernel"
  gonb --install >/dev/null 2>&1 || { gonb --install; exit 1; }
fi
