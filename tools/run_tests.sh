#!/usr/bin/env bash
# Builds if needed and runs every test suite. GPU tests report "skipped" without a GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh"
# --no-tests=error: a filter or build that leaves no test fails instead of passing.
ctest --test-dir "${BUILD_DIR:-$root/build}" --output-on-failure --no-tests=error -j "$(nproc)" "$@"
