#!/usr/bin/env bash
# Builds the archive a designer downloads, who has no Rust toolchain:
#   scripts/package.sh [OUT_DIR]    writes OUT_DIR/arbor-VERSION-linux-ARCH.tar.gz
#                                   (OUT_DIR: target/package)
# It holds the arbor binary (release build), the sample trees, the example game's tree,
# project and node library, the docs, and packaging/README.md as its README. It runs on a
# machine with only the libraries that README names (those scripts/setup.sh installs for
# the editor's window). ARBOR_PACKAGE_PROFILE=dev packs the debug build instead: CI
# checks the archive that way, without a second build of the crate.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/package}
profile=${ARBOR_PACKAGE_PROFILE:-release}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
name=arbor-$version-linux-$(uname -m)
target=${CARGO_TARGET_DIR:-target}
case $profile in
  release) cargo build --release --quiet --bin arbor; bin=$target/release/arbor ;;
  dev) cargo build --quiet --bin arbor; bin=$target/debug/arbor ;;
  *) echo "package: ARBOR_PACKAGE_PROFILE is release or dev, not '$profile'" >&2; exit 2 ;;
esac
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root=$stage/$name
mkdir -p "$root/examples/my_game/ai"
cp "$bin" "$root/arbor"
cp -r sample_trees docs "$root/"
cp examples/my_game/guard.json examples/my_game/arbor.project.json "$root/examples/my_game/"
cp examples/my_game/ai/my_game.nodes.json "$root/examples/my_game/ai/"
cp packaging/README.md "$root/README.md"
mkdir -p "$out"
tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
echo "package: $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1))"
