#!/usr/bin/env bash
# npm test: the native Catch2 suite (CTest), the same suite compiled to wasm and run by Node
# (CTest's cross-compiling emulator), then the JS tests of the wasm module and the browser tests
# (Vitest; headless Chromium through playwright-core).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bash tools/build.sh --page

echo; echo "== Catch2, native (CTest)"
ctest --test-dir build/native --output-on-failure --parallel 2 | tail -n 4
echo; echo "== Catch2, WebAssembly under Node (CTest emulator)"
ctest --test-dir build/wasm --output-on-failure --parallel 2 | tail -n 4
echo; echo "== JavaScript API and browser (Vitest)"
npx vitest run --config vitest.config.js
