#!/usr/bin/env bash
# The live-attach soak (runs only when asked; not part of scripts/test.sh):
#   scripts/soak.sh [MINUTES] [AGENTS] [RATE]     (default: 60 minutes, 200 agents, 60 steps/s)
# Builds the release editor and the example game, runs the editor under Xvfb showing the
# game live (`arbor edit --game my_game`) while the game streams every one of its agents,
# and samples both processes' resident memory once a minute. Prints a table; fails when the
# editor outgrows ARBOR_SOAK_LIMIT_MB (default 800) or either process dies.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-60}
agents=${2:-200}
rate=${3:-60}
limit=${ARBOR_SOAK_LIMIT_MB:-800}
bash scripts/setup.sh >/dev/null
cargo build --quiet --release --bin arbor --example my_game
target=${CARGO_TARGET_DIR:-target}
work=$(mktemp -d)
number="$work/display"
Xvfb -displayfd 3 -screen 0 1440x900x24 -nolisten tcp 3>"$number" &
xvfb=$!
editor=
game=
trap 'kill $game $editor $xvfb 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  [[ -s "$number" ]] && break
  sleep 0.1
done
[[ -s "$number" ]] || { echo "soak: Xvfb did not start" >&2; exit 1; }
display=:$(head -n1 "$number")
# The editor and the game find each other through a live folder of their own, and the
# editor keeps its settings and recovery files there too: nothing of the user's is touched.
export ARBOR_LIVE_DIR="$work/live" ARBOR_SETTINGS="$work/settings.json" ARBOR_RECOVERY_DIR="$work/recovery"
DISPLAY=$display WAYLAND_DISPLAY= "$target/release/arbor" edit examples/my_game/guard.json \
  --game my_game --listen 0 >"$work/editor.log" 2>&1 &
editor=$!
sleep 3
"$target/release/examples/my_game" --live --agents "$agents" --rate "$rate" >"$work/game.log" 2>&1 &
game=$!
rss() { awk '/^VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }
echo "soak: $agents agents at $rate steps a second for $minutes min; memory (MB) each minute"
printf '%6s %10s %8s\n' minute editor game
peak=0
for m in $(seq 0 "$minutes"); do
  (( m > 0 )) && sleep 60
  for p in $editor $game; do
    kill -0 "$p" 2>/dev/null || { echo "soak: a process ended early" >&2; cat "$work"/*.log >&2; exit 1; }
  done
  e=$(rss "$editor")
  g=$(rss "$game")
  (( e > peak )) && peak=$e
  printf '%6d %10d %8d\n' "$m" "$e" "$g"
done
echo "soak: the editor's peak: $peak MB (limit $limit MB)"
grep -h "my_game:" "$work/game.log" | sort | uniq -c | sed 's/^/soak: game said: /'
(( peak <= limit )) || { echo "soak: over the limit" >&2; exit 1; }
