#!/usr/bin/env bash
# Builds everything with clang, AddressSanitizer and UndefinedBehaviorSanitizer (UB is fatal)
# and the libFuzzer targets, into build-asan/ (BUILD_DIR overrides), then runs the CPU, stress
# and fuzz suites there. GPU tests are left out (they belong under compute-sanitizer on a GPU
# machine), and so is the install test (its consumer is built without sanitizers).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$root/build-asan}
export CMAKE_ARGS="-DCMAKE_CXX_COMPILER=clang++ -DJITFP8_SANITIZE=ON -DJITFP8_BUILD_FUZZERS=ON \
  -DJITFP8_BUILD_BENCH=OFF ${CMAKE_ARGS:-}"
"$root/tools/build.sh"
ctest --test-dir "$BUILD_DIR" --output-on-failure --no-tests=error -j "$(nproc)" -LE gpu -E '^install$' "$@"
