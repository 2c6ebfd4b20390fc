#!/usr/bin/env bash
# Issue 17's GPU figures in one device call, after `bench/gpu_prepare.sh` here:
#   device run, carry [".whl", ".gpu"], command `bash bench/gpu_run.sh [ARGS]`
# installs the carried wheels, then runs bench/gpu_stages.py on the 1080p clip
# against a plain x264 transcode (each stage's busy and idle seconds, a trace
# of the conversion's start, pairs of runs), writing its JSON, log and the
# start's profile under $OUT.
# ARGS replace the default gpu_stages.py options.
set -uo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl || exit
export PYTHONPATH=/tmp/site:$PWD/packages/shared-types/src:$PWD/packages/media/src:$PWD/packages/models/src:$PWD/packages/stereo-inference/src
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [ $# -eq 0 ]; then
    set -- --repeat 3 --batches 8 --skip depth,render,model,decode --startup --pairs 5 \
        --encode-frames 300
fi
python3 bench/gpu_stages.py --clip "$PWD/.gpu/clip1080.mp4" --out "$OUT/gpu_stages.json" "$@" 2>&1 \
    | grep -v "Loading weights\|Writing model" | tee "$OUT/gpu_stages.log" \
    | grep -v '^ \|^{\|^}'
