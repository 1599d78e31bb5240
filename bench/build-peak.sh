#!/usr/bin/env bash
# Builds the wasm SIMD128 peak probe (bench/peak.cpp) into build/peak/peak.wasm for bench/peers*.mjs:
#   bash bench/build-peak.sh
# Same compiler flags as the engine's SIMD build (xsimd sse4.1 lowered to SIMD128); a standalone
# module without imports or JS glue. xsimd is reached through a folder holding one symlink
# (-I/usr/include breaks Emscripten's sysroot; see CMakeLists.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # Emscripten's acorn, when node is not Debian's
out=build/peak
mkdir -p "$out/include"
ln -sfn /usr/include/xsimd "$out/include/xsimd"
if [ ! -f "$out/peak.wasm" ] || [ bench/peak.cpp -nt "$out/peak.wasm" ]; then
  em++ -std=c++17 -O3 -msimd128 -msse4.1 -isystem "$out/include" --no-entry -sSTANDALONE_WASM \
    -sERROR_ON_UNDEFINED_SYMBOLS=1 -o "$out/peak.wasm" bench/peak.cpp
fi
