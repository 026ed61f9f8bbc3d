#!/usr/bin/env bash
# The main job, from scratch: set up the virtualenv, index a real corpus (parts of the
# Python standard library's source, present on any machine with Python) into a FAISS store
# on disk with the offline MiniLM embedding model, and answer a few queries from it.
# Usage: scripts/demo.sh [STORE_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-env.sh all
store=${1:-.cache/demo-store}
lib=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')

echo "==> indexing $lib/{json,http,logging,concurrent} into $store"
.venv/bin/ragline index "$lib/json" "$lib/http" "$lib/logging" "$lib/concurrent" \
    --glob "**/*.py" --store "$store"

queries=(
    "How do I decode a JSON document into Python objects?"
    "rotate log files when they get too large"
    "wait for the first of several futures to complete"
    "send an HTTP request with custom headers"
)
for query in "${queries[@]}"; do
    echo
    echo "==> ragline query \"$query\""
    .venv/bin/ragline query "$query" --store "$store" -k 3 --width 6
done
echo
echo "==> ragline query with MMR (diverse results)"
.venv/bin/ragline query "shut down a pool of worker threads" --store "$store" -k 3 --search-type mmr --width 4
