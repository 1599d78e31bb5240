#!/usr/bin/env bash
# npm start: install what is missing, build the engine and the page, serve it and print its URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bash tools/build.sh --page
PORT="${PORT:-5173}"
echo
echo "attnlab is being served at http://localhost:${PORT}/  (Ctrl+C stops it)"
exec npx vite preview --port "$PORT" --strictPort --logLevel warn
