#!/usr/bin/env bash
# Create the project's virtualenv (.venv, or $RAGLINE_VENV) and install ragline into it.
# Usage: scripts/setup-env.sh [EXTRAS]     e.g. scripts/setup-env.sh dev   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
extras=${1:-all}
venv=${RAGLINE_VENV:-.venv}

if [ ! -x "$venv/bin/python" ]; then
    echo "==> creating virtualenv $venv"
    python3 -m venv "$venv"
fi
pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check)

# The CPU build of torch first: sentence-transformers would otherwise pull a CUDA build
# of several GB.
if ! "$venv/bin/python" -c 'import torch' 2>/dev/null; then
    echo "==> installing torch (CPU build)"
    "${pip[@]}" "torch==2.13.0"
fi
echo "==> installing ragline[$extras]"
"${pip[@]}" -e ".[$extras]"
