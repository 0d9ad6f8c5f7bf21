#!/usr/bin/env bash
# Builds if needed and runs every test suite. GPU tests report "skipped" without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh"
ctest --test-dir "${BUILD_DIR:-$root/build}" --output-on-failure -j "$(nproc)" "$@"
