#!/usr/bin/env bash
# The whole test suite, as CI runs it: tests (with and without the GUI), lints, formatting,
# and the sample trees through the real binary.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

echo "== cargo test (core and editor)"
cargo test --all-targets
echo "== the C ABI (ffi/): the header is current, the boundary's codes, the C example against arbor run and under AddressSanitizer"
cargo build -p arbor-ffi
cargo test -p arbor-ffi --all-targets
echo "== without the GUI: the core's unit and doc tests (the crate docs' embedding example)"
# Every target is built without the GUI by the second clippy run below; the integration
# tests ran above, on the same core code.
cargo test --no-default-features --lib
cargo test --no-default-features --doc
echo "== cargo clippy"
cargo clippy --all-targets -- -D warnings
cargo clippy -p arbor-ffi --all-targets -- -D warnings
cargo clippy --no-default-features --all-targets -- -D warnings
echo "== cargo fmt --check"
cargo fmt --all --check
echo "== sample trees, and the example game's tree, project and node library"
examples=(examples/my_game/*.json examples/my_game/ai/*.json)
cargo run --quiet -- validate --deny-warnings sample_trees/*.json sample_trees/*/*.json "${examples[@]}"
cargo run --quiet -- fmt --check sample_trees/*.json sample_trees/*/*.json "${examples[@]}"
echo "== behaviour tests of the sample trees (and their JUnit report)"
junit=$(mktemp --suffix=.xml)
cargo run --quiet -- test sample_trees --junit "$junit"
xmllint --noout --schema tests/fixtures/junit.xsd "$junit"
rm -f "$junit"
echo "== linearity guard (instructions at N and 10 N of each input shape, under valgrind)"
bash scripts/linearity.sh
echo "== editor smoke test (the real window under Xvfb)"
shot=$(mktemp --suffix=.png)
bash scripts/screenshot.sh "$shot"
test -s "$shot"
rm -f "$shot"
echo "== the archive for designers (scripts/package.sh, packed from the debug build), unpacked and run"
pkg=$(mktemp -d)
ARBOR_PACKAGE_PROFILE=dev bash scripts/package.sh "$pkg"
tar -C "$pkg" -xzf "$pkg"/arbor-*.tar.gz
unpacked=$(find "$pkg" -mindepth 1 -maxdepth 1 -type d -name 'arbor-*')
(cd "$unpacked" && ./arbor validate --deny-warnings sample_trees/*.json examples/my_game/*.json examples/my_game/ai/*.json)
(cd "$unpacked" && ./arbor test sample_trees)
shot=$(mktemp --suffix=.png)
ARBOR_BIN="$unpacked/arbor" bash scripts/screenshot.sh "$shot" "$unpacked/sample_trees/door_room.json"
test -s "$shot"
rm -rf "$shot" "$pkg"
echo "== fuzzing (each target 10 s; skipped with a line without a nightly toolchain)"
# A short run of each of the seven targets keeps CI within its budget; longer runs:
# docs/FUZZING.md.
FUZZ_SECONDS=${FUZZ_SECONDS:-10} bash scripts/fuzz.sh
