#!/usr/bin/env bash
# Runs each cargo-fuzz target (fuzz/) for FUZZ_SECONDS seconds (60 unless set), as CI does.
# The seed corpus is the sample trees and the test fixtures; what the fuzzer finds is kept
# in fuzz/corpus/TARGET, a crash in fuzz/artifacts/TARGET (and the script fails).
# cargo-fuzz needs a nightly toolchain: without one, the run is skipped with a line saying so.
#   scripts/fuzz.sh                       every target, 60 s each
#   FUZZ_SECONDS=3600 scripts/fuzz.sh tree_bytes
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${FUZZ_SECONDS:-60}
targets=("$@")
if ((${#targets[@]} == 0)); then
  targets=(tree_bytes scenario_bytes structured_tree library_bytes trace_bytes binary_trace_bytes xml_bytes)
fi

if ! rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  echo "fuzz: SKIPPED: no nightly Rust toolchain on this machine (cargo-fuzz needs one: rustup toolchain install nightly)"
  exit 0
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz"
  if ! cargo +nightly install cargo-fuzz --locked --quiet; then
    echo "fuzz: SKIPPED: cargo-fuzz could not be installed"
    exit 0
  fi
fi

seeds=(sample_trees sample_trees/subtrees tests/fixtures/invalid tests/fixtures/warnings tests/fixtures/unreadable tests/fixtures/runtime)
# A node library's seeds: the example game's and the fixtures' libraries.
library_seeds=(examples/my_game/ai tests/fixtures/library)
for target in "${targets[@]}"; do
  corpus="fuzz/corpus/$target"
  mkdir -p "$corpus"
  extra=()
  if [[ $target == library_bytes ]]; then
    extra+=("${library_seeds[@]}")
  elif [[ $target == xml_bytes ]]; then
    # BehaviorTree.CPP files: the real ones of the fixtures.
    extra+=(tests/fixtures/btcpp)
  elif [[ $target == trace_bytes || $target == binary_trace_bytes ]]; then
    # Traces: the sample runs' golden traces, in both encodings.
    extra+=(tests/golden)
  elif [[ $target != structured_tree ]]; then
    for s in "${seeds[@]}"; do
      [[ -d $s ]] && extra+=("$s")
    done
  fi
  echo "fuzz: $target for $seconds s"
  log=$(mktemp)
  status=0
  cargo +nightly fuzz run --fuzz-dir fuzz "$target" "$corpus" "${extra[@]}" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 >"$log" 2>&1 || status=$?
  grep -E "^(#[0-9]+ +DONE|stat::number_of_executed_units|SUMMARY|thread '|Test unit written|INFO: seed corpus)" "$log" || true
  if ((status != 0)); then
    tail -40 "$log"
    rm -f "$log"
    echo "fuzz: $target FOUND A CRASH (exit $status); the input is in fuzz/artifacts/$target (docs/FUZZING.md says how to make it a test)"
    exit 1
  fi
  rm -f "$log"
done
echo "fuzz: no crash"
