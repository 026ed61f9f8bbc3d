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

# The CPU build of torch first: from PyPI, "torch" resolves to a CUDA build (a 527 MB
# wheel plus several GB of NVIDIA libraries) that sentence-transformers would pull in.
# PyTorch's own CPU wheel index has the CPU build; where that index cannot be reached
# (a machine that sees only PyPI) a short timeout and no retries make us fall back to
# the default index within seconds (there, a CPU wheel must come from the pip config).
torch_cpu_index=${RAGLINE_TORCH_INDEX:-https://download.pytorch.org/whl/cpu}
if ! "$venv/bin/python" -c 'import torch' 2>/dev/null; then
    echo "==> installing torch (CPU build, from PyTorch's CPU wheel index)"
    if ! "${pip[@]}" --index-url "$torch_cpu_index" --timeout 5 --retries 0 "torch==2.13.0"; then
        echo "==> PyTorch's CPU index is unreachable; installing torch from the default index"
        "${pip[@]}" "torch==2.13.0"
    fi
fi
echo "==> installing ragline[$extras]"
# An editable install in "compat" mode is one line in a .pth file; setuptools' default
# for this layout is an import hook whose own imports cost every Python process (every
# `ragline` command) about 20 ms at start-up.
"${pip[@]}" -e ".[$extras]" --config-settings editable_mode=compat
