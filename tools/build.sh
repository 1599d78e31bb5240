#!/usr/bin/env bash
# Builds the native engine and tests, the wasm modules (web/wasm/) and the Catch2 suite as wasm.
#   tools/build.sh              everything
#   tools/build.sh --wasm-only  just the wasm modules the page needs
#   tools/build.sh --page       everything, then the static site into dist/ (npm run build)
#   tools/build.sh --sanitize   only the native engine and Catch2 suite under ASan+UBSan, in
#                               build/sanitize (tools/test.sh runs it; slow to compile, so separate)
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # Emscripten's acorn, when node is not Debian's

GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
# emcmake's default emulator flag (--experimental-wasm-threads) is rejected by Node 20; and
# 3.1.6's Node loader calls fetch() on file paths unless fetch is off.
EMULATOR="-DCMAKE_CROSSCOMPILING_EMULATOR=$(command -v node);--no-experimental-fetch"

if [ "${1:-}" = "--sanitize" ]; then
  cmake -S . -B build/sanitize "${GEN[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DATTNLAB_SANITIZE=address,undefined >/dev/null
  cmake --build build/sanitize --parallel 2
  exit 0
fi

if [ "${1:-}" != "--wasm-only" ]; then
  cmake -S . -B build/native "${GEN[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build/native --parallel 2
fi
# The Catch2-as-wasm suite is skipped only for --wasm-only; say so explicitly every time, since
# CMake caches the option in build/wasm.
TESTS=ON
[ "${1:-}" = "--wasm-only" ] && TESTS=OFF
emcmake cmake -S . -B build/wasm "${GEN[@]}" "$EMULATOR" -DCMAKE_BUILD_TYPE=Release -DATTNLAB_TESTS=$TESTS >/dev/null
cmake --build build/wasm --parallel 2

if [ "${1:-}" = "--page" ]; then
  npx vite build --logLevel warn                                    # dist/: page, embed, element
  npx vite build --config vite.offline.config.js --logLevel warn    # dist/attnlab-offline.html
fi
