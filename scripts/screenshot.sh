#!/usr/bin/env bash
# Runs the editor under Xvfb (its simulation running) and saves a PNG of the window:
# scripts/screenshot.sh [OUT.png] [TREE.json]
# Uses ARBOR_BIN if set (the binary of an unpacked archive), else target/release/arbor if
# built, else builds the debug binary.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/screenshot.png}
tree=${2:-}
bash scripts/setup.sh >/dev/null
target=${CARGO_TARGET_DIR:-target}
bin=${ARBOR_BIN:-$target/release/arbor}
if [[ -z ${ARBOR_BIN:-} && ! -x "$bin" ]]; then
  cargo build --quiet
  bin="$target/debug/arbor"
fi
# Xvfb picks a free display itself and writes its number (a fixed one may be taken, or
# look taken through a lock file a killed server left); stopped with SIGTERM on exit, it
# removes its own lock file.
number=$(mktemp)
Xvfb -displayfd 3 -screen 0 1440x900x24 -nolisten tcp 3>"$number" &
xvfb=$!
app=
trap 'kill $app $xvfb 2>/dev/null || true; rm -f "$number"' EXIT
for _ in $(seq 100); do
  [[ -s "$number" ]] && break
  sleep 0.1
done
if [[ ! -s "$number" ]]; then
  echo "screenshot: Xvfb did not start" >&2
  exit 1
fi
display=:$(head -n1 "$number")
if [[ -n "$tree" ]]; then
  DISPLAY=$display WAYLAND_DISPLAY= "$bin" edit --run "$tree" &
else
  DISPLAY=$display WAYLAND_DISPLAY= "$bin" edit --run &
fi
app=$!
sleep "${SCREENSHOT_WAIT:-6}"
if ! kill -0 "$app" 2>/dev/null; then
  echo "screenshot: the editor exited early" >&2
  exit 1
fi
DISPLAY=$display import -window root "$out"
echo "screenshot: $out"
