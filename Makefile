# PaperLab. Two commands do everything on a fresh Debian machine that has Go:
#   make reproduce   install what is missing, run every experiment at default scale into figures/,
#                    then execute the notebooks with their outputs saved
#   make test        install what is missing, go vet, go test, execute every notebook at smoke scale, and
#                    count the figures headless Chromium renders in them (untrusted, as on a fresh clone)
#   make test-browser  the same browser check on the committed notebooks, and notebook 02's slider
#                    driven live in Chromium (scripts/widgets.sh)
SHELL := /bin/bash
GOBIN := $(shell go env GOPATH)/bin
export PATH := $(GOBIN):$(PATH)
# GoMLX's pure-Go engine reaches its AVX2/AVX-512 matmul kernels only under this experiment (measured:
# 2x faster training on it, see BENCHMARKS.md); it does not change the ONNX Runtime engine.
export GOEXPERIMENT ?= simd
# The engine agreement test must not skip in `make test`.
export PAPERLAB_REQUIRE_ONNX ?= 1

.PHONY: setup test test-browser test-slurm unit notebooks reproduce experiments redraw lab bench fuzz clean

setup:
	@bash scripts/setup.sh
	@if [ ! -s "$$HOME/.local/lib/onnxruntime/libonnxruntime.so.1" ] && [ -z "$$ONNXRUNTIME_SHARED_LIBRARY_PATH" ]; then \
	  echo "setup: no ONNX Runtime library; tests run on the pure-Go engine"; fi

test: setup
	@if { [ ! -s "$$HOME/.local/lib/onnxruntime/libonnxruntime.so.1" ] && [ -z "$$ONNXRUNTIME_SHARED_LIBRARY_PATH" ]; } \
	  || [ "$$(go env CGO_ENABLED)" != 1 ]; then export PAPERLAB_REQUIRE_ONNX=0; fi; \
	go vet ./... && go test ./... && bash scripts/notebooks.sh smoke

# Jupyter as `make lab` starts it, a fresh copy of the committed notebooks (untrusted), headless
# Chromium: every figure output must render (scripts/browser.sh; installs Debian chromium if missing).
test-browser: setup
	bash scripts/browser.sh notebooks
	bash scripts/widgets.sh

# A one-node Slurm cluster on localhost (Debian's slurm-wlm and munge, installed when missing): sweeps
# as job arrays, one task cancelled and resubmitted, merged results equal to the local runner's.
test-slurm:
	bash scripts/slurm.sh test

unit:
	go vet ./... && go test ./...

notebooks: setup
	bash scripts/notebooks.sh smoke

# -overwrite: the reproduction replaces figures/<name> even when the code's configuration changed.
experiments: setup
	go run ./toolkit/cmd/paperlab all -scale default -overwrite

# Figures again from the committed metrics.json files (no training), e.g. after a change to toolkit/plot.
redraw:
	go run ./toolkit/cmd/paperlab redraw all

reproduce: setup experiments
	PAPERLAB_SCALE=default bash scripts/notebooks.sh inplace

lab: setup
	jupyter notebook --notebook-dir=notebooks

bench: setup
	bash bench/run.sh
	bash bench/overcooked.sh
	bash bench/lbf.sh
	bash bench/capo.sh

fuzz:
	go test -fuzz FuzzDecodeJSONL -fuzztime 30s ./datasets/arith
	go test -fuzz FuzzParseLayout -fuzztime 30s ./toolkit/marl/env/overcooked

clean:
	rm -rf /tmp/paperlab-smoke
