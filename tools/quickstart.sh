#!/usr/bin/env bash
# The main job on a fresh machine: install dependencies, build, and prewarm the shipped
# DeepSeek-V3 manifest for sm_90a into jitfp8-cache/ at the repository root, or $JITFP8_CACHE_DIR
# (no GPU needed), twice: the second run finds every kernel cached.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh"
cli=${BUILD_DIR:-$root/build}/tools/jitfp8
cache=${JITFP8_CACHE_DIR:-$root/jitfp8-cache}
"$cli" info
"$cli" prewarm --arch sm_90a --cache-dir "$cache" "$root/kernels_cache/deepseek-v3.json"
"$cli" prewarm --quiet --arch sm_90a --cache-dir "$cache" "$root/kernels_cache/deepseek-v3.json"
"$cli" cache stats --cache-dir "$cache"
