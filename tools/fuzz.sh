#!/usr/bin/env bash
# libFuzzer harnesses of the checked API (tests/fuzz/fuzz_*.cpp): builds them with clang under
# ASan+UBSan into build/fuzz, replays the saved reproducers (tests/fuzz/regressions/<harness>/),
# fuzzes each harness for N seconds and prints one table: executions, exec/s and crashes per
# harness. Exits non-zero if any harness crashed or a reproducer still fails.
#
#   bash tools/fuzz.sh [seconds=30] [harness…]   short run (tools/test.sh runs 20 s each)
#   bash tools/fuzz.sh 3600                      the long run: an hour per harness
#   FUZZ_KEEP_GOING=1 bash tools/fuzz.sh 3600    fork mode: keep fuzzing past a crash and count
#                                                every crashing input (-ignore_crashes=1)
#
# Corpora: each harness starts from its seeds (tests/fuzz/corpus/<harness>/, written by
# tests/fuzz/make_corpus.py) plus what earlier runs found, kept in build/fuzz/corpus/<harness>/;
# the repository's corpus is never written to (rm -rf build/fuzz/corpus to start over).
# Crashing inputs go to build/fuzz/artifacts/<harness>/. To keep one as a regression:
#   build/fuzz/fuzz_<harness> -minimize_crash=1 -max_total_time=60 \
#     -exact_artifact_path=tests/fuzz/regressions/<harness>/<name> build/fuzz/artifacts/<harness>/crash-…
#   build/fuzz/fuzz_<harness> tests/fuzz/regressions/<harness>/<name>     (replays it, with the stack)
# Limits per input: -timeout=10 s and -rss_limit_mb=2048; sizes are capped inside the harnesses.
set -uo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH=${1:-30}
shift || true
HARNESSES=("$@")
[ ${#HARNESSES[@]} -eq 0 ] && HARNESSES=(softmax attention attention_backward sampling train_step)
if ! [[ "$SECONDS_EACH" =~ ^[0-9]+$ ]] || [ "$SECONDS_EACH" -lt 1 ]; then
  echo "usage: bash tools/fuzz.sh [seconds=30] [harness…]" >&2
  exit 2
fi

CXX_FUZZ=$(command -v clang++ || command -v clang++-14 || true)
if [ -z "$CXX_FUZZ" ] || ! "$CXX_FUZZ" -print-file-name=libclang_rt.fuzzer-x86_64.a | grep -q /; then
  echo "fuzz: clang++ with libFuzzer not found: run tools/setup.sh (clang, libclang-rt-14-dev)" >&2
  exit 1
fi

# Build (the lock is shared by every build of this checkout; 2 cores).
GEN=()
command -v ninja >/dev/null && GEN=(-G Ninja)
if ! flock /tmp/attnlab-build.lock bash -c '
    cmake -S . -B build/fuzz "${@:2}" -DCMAKE_CXX_COMPILER="$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DATTNLAB_FUZZ=ON -DATTNLAB_TESTS=OFF >/dev/null &&
    cmake --build build/fuzz --parallel 2' _ "$CXX_FUZZ" "${GEN[@]}"; then
  echo "fuzz: build failed"
  echo "fuzz: 0 passed, ${#HARNESSES[@]} failed"
  exit 1
fi

# Every sanitizer finding is fatal and symbolized: llvm-symbolizer (llvm-14, which emscripten
# pulls in, installs it only as llvm-symbolizer-14), else addr2line.
for s in llvm-symbolizer llvm-symbolizer-14; do
  if command -v "$s" >/dev/null; then export ASAN_SYMBOLIZER_PATH=${ASAN_SYMBOLIZER_PATH:-$(command -v "$s")}; break; fi
done
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allow_addr2line=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:allow_addr2line=1}
LIMITS=(-timeout=10 -rss_limit_mb=2048 -max_len=4096)
KEEP=()
[ -n "${FUZZ_KEEP_GOING:-}" ] && KEEP=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)

rows=(); passed=0; failed=0
for h in "${HARNESSES[@]}"; do
  bin=build/fuzz/fuzz_$h
  if [ ! -x "$bin" ]; then
    echo "fuzz: no harness $h (tests/fuzz/fuzz_$h.cpp)"
    rows+=("$(printf '%-20s %12s %9s %8s  %s' "$h" - - - 'not built')"); failed=$((failed + 1)); continue
  fi
  corpus=build/fuzz/corpus/$h artifacts=build/fuzz/artifacts/$h log=build/fuzz/$h.log
  mkdir -p "$corpus" "$artifacts"
  cp -n tests/fuzz/corpus/"$h"/* "$corpus"/ 2>/dev/null || true
  count_artifacts() { ls "$artifacts" | grep -cE '^(crash|leak|timeout|oom)-'; }
  before=$(count_artifacts)

  # 1. The saved reproducers, each run once: a fixed bug must stay fixed.
  regress_failed=0
  for r in tests/fuzz/regressions/"$h"/*; do
    [ -f "$r" ] || continue
    if ! "$bin" "${LIMITS[@]}" "$r" > "$log.regression" 2>&1; then
      regress_failed=$((regress_failed + 1))
      echo "fuzz: $h: reproducer $r still fails:"
      grep -E "FUZZ FINDING|ERROR: |runtime error|SUMMARY" "$log.regression" | head -4 | sed 's/^/  /'
    fi
  done

  # 2. Fuzz for SECONDS_EACH seconds.
  echo "fuzz: $h for ${SECONDS_EACH} s"
  start=$(date +%s)
  "$bin" "${LIMITS[@]}" "${KEEP[@]}" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus" > "$log" 2>&1
  rc=$?
  elapsed=$(( $(date +%s) - start )); [ "$elapsed" -lt 1 ] && elapsed=1
  execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  stat_execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)
  execs=${stat_execs:-${execs:-0}}
  crashes=$(( $(count_artifacts) - before ))
  [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1   # a failure that wrote no artifact
  note=""
  if [ "$crashes" -gt 0 ]; then
    note=$(grep -m1 -hoE "FUZZ FINDING.*|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer): [^ ]+( [^ ]+)?|runtime error: .*" "$log" | cut -c1-100)
    echo "fuzz: $h crashed (log: $log, inputs: $artifacts/)"
    grep -E "FUZZ FINDING|ERROR: |runtime error|SUMMARY|Test unit written" "$log" | head -6 | sed 's/^/  /'
  fi
  [ "$regress_failed" -gt 0 ] && note="${regress_failed} reproducer(s) fail${note:+; }$note"
  rows+=("$(printf '%-20s %12s %9s %8s  %s' "$h" "$execs" "$((execs / elapsed))" "$crashes" "$note")")
  if [ "$crashes" -eq 0 ] && [ "$regress_failed" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done

echo
printf '%-20s %12s %9s %8s  %s\n' harness executions exec/s crashes note
printf '%s\n' "${rows[@]}"
echo "fuzz: ${passed} passed, ${failed} failed (${SECONDS_EACH} s each)"
[ "$failed" -eq 0 ]
