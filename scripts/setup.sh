#!/usr/bin/env bash
# Installs what a fresh machine lacks to build, test and run Arbor; skips what is there.
#   scripts/setup.sh    build + tests + the editor's runtime libraries (X11/Wayland, GL),
#                       Xvfb and ImageMagick for scripts/screenshot.sh, valgrind for
#                       scripts/linearity.sh, and BehaviorTree.CPP (the behaviortreepy
#                       package from PyPI, in target/btcpp-venv) for the tests that check
#                       Arbor's XML against the real library
set -euo pipefail

packages=(
  # The editor opens a window through winit + glutin, which load these at run time.
  libx11-6 libx11-xcb1 libxcursor1 libxrandr2 libxi6 libxkbcommon0 libxkbcommon-x11-0
  libwayland-client0 libwayland-egl1 libgl1 libegl1 libgl1-mesa-dri
  # The binary links the C++ runtime (packaging/README.md names these for designers).
  libstdc++6
  # Headless runs of the real window: its screenshot (the smoke test in CI), and the test
  # that kills the real editor process (it drives the window with xdotool).
  xvfb xauth imagemagick
  xdotool
  # The linearity guard (scripts/linearity.sh) counts instructions under valgrind.
  valgrind
  # xmllint: the test that checks `arbor test --junit` against a JUnit schema.
  libxml2-utils
  # The C ABI's tests build examples/c with the system's C compiler (and AddressSanitizer).
  gcc libc6-dev
  # The virtual environment that holds BehaviorTree.CPP's Python bindings (below).
  python3 python3-venv
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "setup: system packages present"
fi

command -v cargo >/dev/null || { echo "setup: cargo is missing; install Rust (rustup) first" >&2; exit 1; }
for component in clippy rustfmt; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    rustup component add "$component"
  fi
done
echo "setup: $(cargo --version)"

# BehaviorTree.CPP 4, the reference for its XML (docs/BTCPP.md): the behaviortreepy
# package, pinned, in a virtual environment under target/ (kept between builds, never
# committed). tests/btcpp.rs finds it there, or where ARBOR_BTCPP_PYTHON points.
venv=target/btcpp-venv
if ! "$venv/bin/python" -c "import behaviortreepy" >/dev/null 2>&1; then
  echo "setup: installing behaviortreepy into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check behaviortreepy==0.1.4
fi
echo "setup: BehaviorTree.CPP bindings $("$venv/bin/python" -c 'import behaviortreepy as b; print(b.__version__)')"
