# Sourced by the SMAX bench scripts (from the repository root): makes bench/.venv-jax from the pinned
# bench/requirements-jax.txt (PyPI; about 1 GB) the first time.
if [ ! -x bench/.venv-jax/bin/python ]; then
  python3 -m venv bench/.venv-jax
  bench/.venv-jax/bin/pip install -q -r bench/requirements-jax.txt
fi
