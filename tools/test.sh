#!/usr/bin/env bash
# npm test: the native Catch2 suite (CTest), the same suite compiled to wasm and run by Node
# (CTest's cross-compiling emulator), the native suite again under AddressSanitizer and
# UndefinedBehaviorSanitizer (build/sanitize), a short libFuzzer run of each harness
# (tools/fuzz.sh), then the JS tests of the wasm module and the browser tests (Vitest; headless
# Chromium through playwright-core). Ends with one line over all of them.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh || exit 1
bash tools/build.sh --page || exit 1
bash tools/build.sh --sanitize || exit 1
mkdir -p build

passed=0; failed=0; status=0
run_ctest() {  # $1 title, $2 build dir
  echo; echo "== $1"
  ctest --test-dir "$2" --output-on-failure --parallel 2 > "$2/ctest.log" 2>&1 || status=1
  grep -E "^\s*[0-9]+/[0-9]+ Test .*(Failed|Exception|Timeout)" "$2/ctest.log" || true
  grep -q "tests failed out of" "$2/ctest.log" && grep -A200 "The following tests FAILED" "$2/ctest.log" | head -50
  sed -n '/tests passed/,$p' "$2/ctest.log" | head -n 3
  local line; line=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$2/ctest.log")
  local f t; f=$(sed -E 's/.* ([0-9]+) tests failed out of ([0-9]+).*/\1/' <<<"$line"); t=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
  passed=$((passed + t - f)); failed=$((failed + f))
}
run_ctest "Catch2, native (CTest)" build/native
run_ctest "Catch2, WebAssembly under Node (CTest emulator)" build/wasm
# Every finding is fatal: UBSan through -fno-sanitize-recover=all, ASan and LeakSanitizer always.
ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:check_initialization_order=1 \
UBSAN_OPTIONS=print_stacktrace=1 \
  run_ctest "Catch2, native under ASan+UBSan" build/sanitize

# libFuzzer, 20 s per harness (clang, ASan+UBSan; tools/fuzz.sh): each harness is one test,
# failed if it crashed or a saved reproducer still fails.
echo; echo "== libFuzzer harnesses, 20 s each (tools/fuzz.sh)"
bash tools/fuzz.sh 20 | tee build/fuzz.log || status=1
if read -r fzp fzf < <(sed -nE 's/^fuzz: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p' build/fuzz.log | tail -1) && [ -n "$fzp" ]; then
  passed=$((passed + fzp)); failed=$((failed + fzf))
else
  failed=$((failed + 1)); status=1
fi

echo; echo "== JavaScript API and browser (Vitest)"
npx vitest run --config vitest.config.js --reporter=default --reporter=json --outputFile.json=build/vitest.json || status=1
if [ -f build/vitest.json ]; then
  read -r vp vf < <(node -e "const r=require('./build/vitest.json');console.log(r.numPassedTests, r.numFailedTests)")
  passed=$((passed + vp)); failed=$((failed + vf))
else
  status=1
fi

echo
echo "attnlab: ${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ] || status=1
exit $status
