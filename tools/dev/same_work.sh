#!/usr/bin/env bash
# Builds tools/dev/same_work.cpp (the same GEMM work through the dense and the M-grouped kernels)
# against the library's objects in a build directory (libjitfp8_internal.a: it reaches internals,
# which libjitfp8.so does not export), with the bench's input generators.
# usage: tools/dev/same_work.sh [BUILD_DIR (default build)] [OUT (default /tmp/same_work)]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${1:-build}"
cuda=/usr/local/cuda/targets/x86_64-linux  # include/ and lib/ of the CUDA runtime and CUPTI
cd "$root"
g++ -std=c++20 -O2 -Isrc -Iinclude -Itools/bench -I"$cuda/include" -I.deps/usr/include tools/dev/same_work.cpp \
  tools/bench/bench_inputs.cpp tools/bench/bench_common.cpp tools/bench/activity_clock.cpp \
  "$build/libjitfp8_internal.a" -L/usr/local/cuda/lib64 -lnvrtc -L"$cuda/lib" -lcudart -lcupti \
  -L.deps/usr/lib/x86_64-linux-gnu -L.deps/usr/lib -lfmt -ldl -lpthread \
  -Wl,-rpath,"$cuda/lib" -o "${2:-/tmp/same_work}"
