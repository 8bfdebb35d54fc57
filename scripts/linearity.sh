#!/usr/bin/env bash
# The linearity guard: each workload of tests/common/workloads.rs (a node library on one
# line, a trace header of many agents, …) runs under valgrind at 0, N and 10 N, and the
# instructions it takes beyond the empty run must grow at most LIMIT times from N to 10 N
# (10 for linear work, 100 for quadratic). Instruction counts are exact and do not
# depend on the machine or its load.
#   scripts/linearity.sh            every workload
#   scripts/linearity.sh NAME…      those named
set -euo pipefail
cd "$(dirname "$0")/.."

limit=${LINEARITY_LIMIT:-13}
command -v valgrind >/dev/null || {
  echo "linearity: valgrind is missing (scripts/setup.sh installs it)" >&2
  exit 1
}
# The dev build the tests already made: instruction counts need no optimiser, and a
# release build of the editor's crates would double the time CI takes.
cargo build --quiet --example linearity
target=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
bin="$target/debug/examples/linearity"

# The instructions one run of workload $1 at size $2 takes.
instructions() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1 >/dev/null |
    awk '/I +refs:/ { gsub(",", "", $NF); print $NF }'
}

# One workload: its line, and "FAILED" as its last word when it grows too fast.
measure() {
  local name=$1 n=$2 empty small large verdict ratio ok
  empty=$(instructions "$name" 0)
  small=$(instructions "$name" "$n")
  large=$(instructions "$name" $((n * 10)))
  if [[ -z $empty || -z $small || -z $large ]]; then
    echo "$name did not run (valgrind gave no count) FAILED"
    return
  fi
  verdict=$(awk -v e="$empty" -v s="$small" -v l="$large" -v limit="$limit" 'BEGIN {
    r = (l - e) / (s - e > 0 ? s - e : 1)
    printf "%.2f %s", r, (r <= limit ? "ok" : "FAILED")
  }')
  read -r ratio ok <<<"$verdict"
  printf '%-24s N %-8s %15s instr.  10 N %16s instr.  %6s x  %s\n' \
    "$name" "$n" "$((small - empty))" "$((large - empty))" "$ratio" "$ok"
}

# The workloads run side by side, one a core; their lines are printed in list order.
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
names=()
while read -r name n; do
  if (($# > 0)) && [[ " $* " != *" $name "* ]]; then
    continue
  fi
  while (($(jobs -rp | wc -l) >= $(nproc))); do
    wait -n
  done
  measure "$name" "$n" >"$out/$name" &
  names+=("$name")
done < <("$bin" list)
wait
if ((${#names[@]} == 0)); then
  echo "linearity: no workload named $*" >&2
  exit 1
fi

failed=()
for name in "${names[@]}"; do
  cat "$out/$name"
  if [[ $(awk '{ print $NF }' "$out/$name") != ok ]]; then
    failed+=("$name")
  fi
done

if ((${#failed[@]})); then
  echo "linearity: grows faster than linear (over ${limit} x from N to 10 N): ${failed[*]}" >&2
  exit 1
fi
echo "linearity: every workload within ${limit} x from N to 10 N"
