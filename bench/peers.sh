# Shared by the bench scripts (sourced, not run): the measuring peers' set-up.

# need_torch installs Debian's python3-torch and libopenblas0-pthread when /usr/bin/python3 lacks torch.
need_torch() {
  if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
    echo "bench: installing Debian python3-torch and libopenblas0-pthread (the measuring peer)" >&2
    local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch libopenblas0-pthread >/dev/null
  fi
}

# overcooked_src sets src to the overcooked_ai checkout's src/ ($OVERCOOKED_AI_SRC, default
# ../overcooked_ai/src) and peer to 1 when it holds overcooked_ai's rules, else 0 (saying so).
overcooked_src() {
  src="${OVERCOOKED_AI_SRC:-../overcooked_ai/src}"
  peer=1
  if [ ! -f "$src/overcooked_ai_py/mdp/overcooked_mdp.py" ]; then
    echo "bench: no overcooked_ai source at $src (set OVERCOOKED_AI_SRC); the Python peer is skipped" >&2; peer=0
  fi
}
