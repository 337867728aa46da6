# Shared by the bench scripts (sourced, not run): the measuring peers' set-up.

# The peers import bench/overcooked_ai_import.py; leave no bench/__pycache__ in the checkout.
export PYTHONDONTWRITEBYTECODE=1

# need_torch installs Debian's python3-torch and libopenblas0-pthread when /usr/bin/python3 lacks torch.
need_torch() {
  if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    echo "bench: installing Debian python3-torch and libopenblas0-pthread (the measuring peer)" >&2
    local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch libopenblas0-pthread >/dev/null
  fi
}

# need_torch2 makes bench/.venv (Debian's /usr/bin/python3, the same interpreter as the 1.13 peer)
# with the current PyTorch peer, pinned in bench/requirements-torch2.txt (torch 2.15.0 from PyPI, and
# NumPy and SciPy at Debian's versions), when it is missing or was made from another version of that
# file (a copy is kept in bench/.venv). The folder ignores itself (a .gitignore of "*" inside, as
# Python 3.13's venv writes). Sets torch2 to its python. Only bench scripts call it (never make test).
need_torch2() {
  torch2="$PWD/bench/.venv/bin/python"
  if [ -x "$torch2" ] && cmp -s bench/requirements-torch2.txt bench/.venv/requirements-torch2.txt; then
    return
  fi
  echo "bench: installing bench/requirements-torch2.txt (torch 2.x from PyPI: the current PyTorch peer; its CUDA wheel brings NVIDIA libraries: about 5 GB installed) into bench/.venv" >&2
  if ! /usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null; then
    local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  fi
  /usr/bin/python3 -m venv bench/.venv
  echo '*' > bench/.venv/.gitignore
  bench/.venv/bin/pip install -q --disable-pip-version-check -r bench/requirements-torch2.txt
  cp bench/requirements-torch2.txt bench/.venv/requirements-torch2.txt
}

# overcooked_src sets src to the overcooked_ai checkout's src/ ($OVERCOOKED_AI_SRC, default
# ../overcooked_ai/src) and peer to 1 when it holds overcooked_ai's rules, else 0 (saying so). With a
# checkout it installs Debian's python3-numpy and python3-scipy when /usr/bin/python3 lacks them
# (overcooked_ai's planners import scipy.sparse).
overcooked_src() {
  src="${OVERCOOKED_AI_SRC:-../overcooked_ai/src}"
  peer=1
  if [ ! -f "$src/overcooked_ai_py/mdp/overcooked_mdp.py" ]; then
    echo "bench: no overcooked_ai source at $src (set OVERCOOKED_AI_SRC); the Python peer is skipped" >&2; peer=0
  elif ! /usr/bin/python3 -c 'import numpy, scipy.sparse' 2>/dev/null; then
    echo "bench: installing Debian python3-numpy and python3-scipy (overcooked_ai's imports)" >&2
    local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-numpy python3-scipy >/dev/null
  fi
}
