#!/usr/bin/env bash
# Installed size of the AWS video-worker, without and with the engine (its
# optional extra `local`: stereo-inference, torch, PyAV, ...): the packages the
# image installs (packages/aws-infra/docker/video-worker.Dockerfile), non-editable,
# into fresh venvs, pinned by constraints.txt; then `du` of site-packages.
# Usage: bash bench/video_worker_install_size.sh   (results: docs/BENCHMARKS.md)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${STEREO_SPOT_PYTHON:-$(command -v python3.11)}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
image=(packages/shared-types packages/models packages/local-adapters packages/aws-adapters
       packages/video-worker)

measure() {  # name, then pip arguments
  local name=$1; shift
  "$PY" -m venv "$work/$name"
  "$work/$name/bin/python" -m pip install --quiet -c constraints.txt "$@" >/dev/null
  local site
  site=$("$work/$name/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  local bytes
  bytes=$(du -sb "$site" | cut -f1)
  local torch=no
  "$work/$name/bin/python" -c "import importlib.util as u, sys; sys.exit(u.find_spec('torch') is None)" && torch=yes
  printf '%-28s %8.1f MiB  torch: %s\n' "$name" "$(echo "$bytes / 1048576" | bc -l)" "$torch"
}

measure aws "${image[@]}"
measure local torch "${image[@]}" packages/media packages/stereo-inference
