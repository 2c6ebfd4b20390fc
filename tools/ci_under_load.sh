#!/usr/bin/env bash
# The suite's robustness check: N fresh-clone CI runs in a row, each while two
# busy-loop processes load the machine; stops at the first failure.
#   tools/ci_under_load.sh [REPO] [N]    (defaults: this checkout, 3)
# Each run: clone REPO's HEAD into $WORK/runI, start two `while :; do :; done`
# loops, `bash .ci/run`, stop the loops. Summary: $WORK/summary.log
# ($WORK defaults to /tmp/ci-under-load), each run's output: $WORK/runI.log.
set -u
repo=$(cd "${1:-$(dirname "$0")/..}" && pwd)
runs=${2:-3}
work=${WORK:-/tmp/ci-under-load}
mkdir -p "$work"
sha=$(git -C "$repo" rev-parse --short HEAD)
for i in $(seq 1 "$runs"); do
  dir=$work/run$i
  rm -rf "$dir"
  git clone -q "$repo" "$dir"
  timeout 3000 sh -c 'while :; do :; done' & loop1=$!
  timeout 3000 sh -c 'while :; do :; done' & loop2=$!
  start=$(date +%s)
  echo "run $i sha $sha start $(date -u +%H:%M:%S)" >> "$work/summary.log"
  (cd "$dir" && bash .ci/run) > "$work/run$i.log" 2>&1
  rc=$?
  kill "$loop1" "$loop2" 2>/dev/null
  wait "$loop1" "$loop2" 2>/dev/null
  echo "run $i sha $sha rc $rc seconds $(( $(date +%s) - start ))" >> "$work/summary.log"
  [ "$rc" -ne 0 ] && exit "$rc"
  rm -rf "$dir/node_modules" "$dir/.venv"
done
