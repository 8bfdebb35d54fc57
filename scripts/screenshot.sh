#!/usr/bin/env bash
# Runs the editor under Xvfb (its simulation running) and saves a PNG of the window:
# scripts/screenshot.sh [OUT.png] [TREE.json]
# Uses target/release/arbor if built, else builds the debug binary.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/screenshot.png}
tree=${2:-}
bash scripts/setup.sh >/dev/null
target=${CARGO_TARGET_DIR:-target}
bin="$target/release/arbor"
if [[ ! -x "$bin" ]]; then
  cargo build --quiet
  bin="$target/debug/arbor"
fi
display=:$((90 + RANDOM % 9))
Xvfb "$display" -screen 0 1440x900x24 -nolisten tcp &
xvfb=$!
trap 'kill $app $xvfb 2>/dev/null || true' EXIT
sleep 1
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
