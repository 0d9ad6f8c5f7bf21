#!/usr/bin/env bash
# The main job on a fresh machine: install dependencies, build, and prewarm the shipped
# DeepSeek-V3 manifest for sm_90a into jitfp8-cache/ at the repository root, or the first folder of
# $JITFP8_CACHE_DIR (no GPU needed), twice: the second run finds every kernel cached. Programs use
# these kernels where their JITFP8_CACHE_DIR names that folder (the last line says so).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh"
cli=${BUILD_DIR:-$root/build}/tools/jitfp8
# JITFP8_CACHE_DIR is a ':'-separated list; prewarm writes into one folder, the one the library
# writes into (the first that is not empty).
cache=""
IFS=: read -r -a listed <<< "${JITFP8_CACHE_DIR:-}"
for folder in "${listed[@]}"; do [ -n "$folder" ] && { cache=$folder; break; }; done
cache=${cache:-$root/jitfp8-cache}
"$cli" info
"$cli" prewarm --arch sm_90a --cache-dir "$cache" "$root/kernels_cache/deepseek-v3.json"
"$cli" prewarm --quiet --arch sm_90a --cache-dir "$cache" "$root/kernels_cache/deepseek-v3.json"
"$cli" cache stats --cache-dir "$cache"
echo "programs load these kernels with: export JITFP8_CACHE_DIR=$cache"
echo "(its GEMM kernels are planned for 132 SMs, an H100 SXM or H200: elsewhere prewarm with --sms N, see README.md)"
