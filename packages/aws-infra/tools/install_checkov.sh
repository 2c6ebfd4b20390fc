#!/usr/bin/env bash
# Create .venv-checkov (repo root) holding checkov, apart from .venv: checkov's
# own pins conflict with ours. Idempotent: returns at once when the pinned
# version is already installed.
set -euo pipefail
cd "$(dirname "$0")/../../.."

VERSION="3.3.30"
VENV=.venv-checkov
PY="${STEREO_SPOT_PYTHON:-$(command -v python3.11 || true)}"

if [[ -x "$VENV/bin/checkov" ]] && [[ "$(cat "$VENV/.checkov-version" 2>/dev/null)" == "$VERSION" ]]; then
  echo "install-checkov: checkov $VERSION up to date"
  exit 0
fi
if [[ -z "$PY" ]]; then
  echo "install-checkov: Python 3.11 is required (set STEREO_SPOT_PYTHON to its path)" >&2
  exit 1
fi
[[ -x "$VENV/bin/python" ]] || "$PY" -m venv "$VENV"
# Keep the whole folder out of git without touching the root .gitignore.
echo '*' > "$VENV/.gitignore"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet "checkov==$VERSION"
echo "$VERSION" > "$VENV/.checkov-version"
echo "install-checkov: installed checkov $VERSION into $VENV"
