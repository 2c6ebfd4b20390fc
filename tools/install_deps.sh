#!/usr/bin/env bash
# Create .venv (Python 3.11) and install every package under packages/ editable
# with its dev extras, pinned by constraints.txt. Idempotent: a stamp holding the
# hash of the inputs (pyproject files, constraints, this script) makes a re-run
# with nothing changed return in well under a second. Every run byte-compiles
# the packages' sources (only files changed since the last run): editable
# installs are not compiled by pip, and where PYTHONDONTWRITEBYTECODE is set
# every process would otherwise compile what it imports at each start.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${STEREO_SPOT_PYTHON:-$(command -v python3.11 || true)}"
if [[ -z "$PY" ]]; then
  echo "install-deps: Python 3.11 is required (set STEREO_SPOT_PYTHON to its path)" >&2
  exit 1
fi

stamp=.venv/.install-deps.stamp
# C sources too: an editable install compiles the engine's extension in place
hash=$(cat constraints.txt tools/install_deps.sh packages/*/pyproject.toml packages/*/setup.py \
  packages/*/csrc/* | sha256sum | cut -d' ' -f1)
compile_sources() { .venv/bin/python -m compileall -q packages/*/src >/dev/null; }
if [[ -f "$stamp" && "$(cat "$stamp")" == "$hash" && -x .venv/bin/python ]]; then
  compile_sources
  echo "install-deps: up to date"
  exit 0
fi

[[ -x .venv/bin/python ]] || "$PY" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip wheel setuptools
# torch first, on its own: the CPU wheel on local disk, never a CUDA build.
.venv/bin/python -m pip install --quiet -c constraints.txt torch
args=()
for p in packages/*/pyproject.toml; do
  args+=(-e "$(dirname "$p")[dev]")
done
.venv/bin/python -m pip install --quiet -c constraints.txt "${args[@]}"
compile_sources
echo "$hash" > "$stamp"
echo "install-deps: installed $(( ${#args[@]} / 2 )) packages into .venv"
