#!/usr/bin/env bash
# Configures and builds libjitfp8, its CLI and tests into build/ (BUILD_DIR overrides).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
export PATH="$PATH:/usr/local/cuda/bin"
"$root/tools/install_deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} >/dev/null
cmake --build "$build"
