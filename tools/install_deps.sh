#!/usr/bin/env bash
# Installs what building libjitfp8 needs beyond the CUDA toolkit, from Debian/Ubuntu packages:
# CMake, Ninja, fmt, nlohmann/json, Catch2 (v2) and xxHash; pkgconf (the install test reads
# jitfp8.pc); clang with its sanitizer and libFuzzer runtimes for tools/run_sanitizer_tests.sh.
# Does nothing when all are present.
set -euo pipefail
# The toolkit first, so that a machine without it installs nothing (CMake checks its version, 12.8+).
if ! command -v nvcc >/dev/null && [ ! -e /usr/local/cuda/include/nvrtc.h ]; then
  echo "the CUDA toolkit (NVRTC and cuda.h) is required: install it, e.g. under /usr/local/cuda" >&2
  exit 1
fi
packages=(cmake ninja-build g++ libfmt-dev nlohmann-json3-dev catch2 libxxhash-dev pkgconf clang
          libclang-rt-14-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
