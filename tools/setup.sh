#!/usr/bin/env bash
# Installs what is missing on a Debian bookworm machine: the toolchain (apt) and the npm packages.
# Safe to run again: it only installs what is not there.
set -euo pipefail
cd "$(dirname "$0")/.."

# clang and libclang-rt-14-dev: the libFuzzer harnesses (tools/fuzz.sh). clang-14 does not pull
# its runtime library (libclang_rt.fuzzer, .asan, .ubsan), which libclang-rt-14-dev holds.
APT_PACKAGES=(g++ make cmake ninja-build emscripten libxsimd-dev catch2 nlohmann-json3-dev wabt
              chromium fonts-liberation clang libclang-rt-14-dev)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "attnlab: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "attnlab: installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
