"""Run a sentence-transformers model with ONNX Runtime: no torch on the query path.

What runs: the fast Rust tokenizer from the model folder (``tokenizer.json``), an ONNX
export of the transformer (``_onnx_export``, made once and cached), then mean pooling
and normalisation in numpy. This is what sentence-transformers computes for a
``Transformer -> Pooling(mean) [-> Normalize]`` model, so the vectors are the same
(cosine >= 0.9999 on every text of a real corpus; ``tests/embeddings/test_onnx.py``).

The export lives in a cache folder keyed by the weights' sha256::

    $RAGLINE_CACHE_DIR/onnx/<sha256 of the weights>/fp32-v2.onnx   (+ export.json)

``RAGLINE_CACHE_DIR`` defaults to ``$XDG_CACHE_HOME/ragline``, else ``~/.cache/ragline``.
Hashing 90 MB of weights on every start would cost a cold query ~0.1 s, so the digest is
remembered in ``hashes.json`` beside the exports, keyed by the file's path, size and
modification time.

Runs: texts are tokenized once and grouped by exact token count, so no run is ever
padded (no attention mask is needed: the export drops it, which lets ONNX Runtime use
its flash-attention kernel); a run holds at most ``batch_size`` texts and about
:data:`TOKENS_PER_RUN` tokens, small enough for its activations to stay in the CPU's
caches (32 texts of 256 tokens are 50 MB per layer; 4 are 6 MB, and ran 1.2-1.3x faster
per text here, see docs/embeddings.md).

Threads: every run is single-threaded, and a call with many texts runs ``threads`` of
them side by side (default: every core this process may use; a call with one text: one
thread). Independent runs, rather than every core on each matrix product, keep going
when other processes take a core away: a multi-threaded run waits for its slowest
thread at every operator. One session per export is shared by every caller.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ragline.core import ConfigurationError, LoaderError
from ragline.core._optional import require

__all__ = [
    "EXPORT_VERSION",
    "TOKENS_PER_RUN",
    "ModelSpec",
    "OnnxEncoder",
    "cache_root",
    "export_path",
    "read_spec",
    "weights_sha256",
]

EXPORT_VERSION = 2  # bump when the export recipe changes: old files are then ignored
TOKENS_PER_RUN = 1024  # tokens per run: activations stay in cache (measured: docs/embeddings.md)
_TRANSFORMER = "sentence_transformers.models.Transformer"
_POOLING = "sentence_transformers.models.Pooling"
_NORMALIZE = "sentence_transformers.models.Normalize"
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


def cache_root() -> Path:
    """Where ragline keeps derived model files (``RAGLINE_CACHE_DIR`` moves it)."""
    configured = os.environ.get("RAGLINE_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "ragline"


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity mask, not the machine's)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


# ---------------------------------------------------------------- the model folder


@dataclass(frozen=True)
class ModelSpec:
    """What the ONNX path needs to know about a sentence-transformers model folder."""

    path: Path  # the sentence-transformers folder
    transformer_path: Path  # the Hugging Face model inside it (usually the same folder)
    weights: Path
    max_seq_length: int
    dimension: int
    normalize: bool  # the model ends with a Normalize module
    lowercase: bool  # sentence_bert_config's do_lower_case (the tokenizer may lowercase too)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise LoaderError(f"cannot read {path}: {err}") from err


def read_spec(model_path: str | os.PathLike[str]) -> ModelSpec:
    """Read a sentence-transformers folder and check the ONNX path can run it.

    Raises:
        LoaderError: a config file is missing or unreadable.
        ConfigurationError: the model is not ``Transformer -> mean Pooling [-> Normalize]``
            with a ``tokenizer.json`` (use ``backend="torch"`` for it).
    """
    folder = Path(model_path)

    def unsupported(reason: str) -> ConfigurationError:
        return ConfigurationError(
            f"{folder}: the ONNX backend runs sentence-transformers models made of a "
            f"Transformer, mean pooling and optionally Normalize, with a fast tokenizer.json, "
            f"but {reason}; use backend='torch' for it"
        )

    modules_file = folder / "modules.json"
    if not modules_file.is_file():
        raise unsupported("it has no modules.json")
    modules = _read_json(modules_file)
    types = [module.get("type") for module in modules]
    if types not in ([_TRANSFORMER, _POOLING], [_TRANSFORMER, _POOLING, _NORMALIZE]):
        raise unsupported(f"its modules are {types}")
    transformer = folder / modules[0].get("path", "")
    pooling = _read_json(folder / modules[1]["path"] / "config.json")
    modes = sorted(
        key for key, value in pooling.items() if key.startswith("pooling_mode") and value
    )
    if modes != ["pooling_mode_mean_tokens"]:
        raise unsupported(f"its pooling is {modes}")
    if not (transformer / "tokenizer.json").is_file():
        raise unsupported("it has no tokenizer.json")
    weights = find_weights(folder)
    if weights is None:
        raise LoaderError(f"no weights ({' or '.join(_WEIGHT_FILES)}) in {transformer}")
    st_config_file = transformer / "sentence_bert_config.json"
    st_config = _read_json(st_config_file) if st_config_file.is_file() else {}
    config = _read_json(transformer / "config.json")
    max_length = st_config.get("max_seq_length") or config.get("max_position_embeddings", 512)
    return ModelSpec(
        path=folder,
        transformer_path=transformer,
        weights=weights,
        max_seq_length=int(min(max_length, config.get("max_position_embeddings", max_length))),
        dimension=int(pooling["word_embedding_dimension"]),
        normalize=len(types) == 3,
        lowercase=bool(st_config.get("do_lower_case", False)),
    )


def find_weights(model_path: str | os.PathLike[str]) -> Path | None:
    """The weights file of a local sentence-transformers folder (None if there is none)."""
    folder = Path(model_path)
    if not folder.is_dir():
        return None
    transformer = folder
    modules_file = folder / "modules.json"
    if modules_file.is_file():
        try:
            modules = json.loads(modules_file.read_text(encoding="utf-8"))
            transformer = folder / modules[0].get("path", "")
        except (OSError, ValueError, LookupError, AttributeError):
            pass  # not a standard layout: look in the folder itself
    return next(
        (transformer / name for name in _WEIGHT_FILES if (transformer / name).is_file()), None
    )


# ---------------------------------------------------------------- the cache folder

_hash_lock = threading.Lock()


def weights_sha256(weights: Path) -> str:
    """The sha256 hex digest of a weights file, remembered by path, size and mtime."""
    stat = weights.stat()
    key = f"{weights.resolve()}|{stat.st_size}|{stat.st_mtime_ns}"
    index_file = cache_root() / "onnx" / "hashes.json"
    with _hash_lock:
        known: dict[str, str] = {}
        if index_file.is_file():
            try:
                loaded = json.loads(index_file.read_text(encoding="utf-8"))
                known = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                known = {}  # a damaged index is only a missed shortcut
        if isinstance(known.get(key), str):
            return known[key]
        digest = hashlib.sha256()
        with weights.open("rb") as file:
            for block in iter(lambda: file.read(1 << 20), b""):
                digest.update(block)
        known[key] = digest.hexdigest()
        # a read-only cache still works, it only hashes again next time
        with contextlib.suppress(OSError):
            write_atomic(index_file, json.dumps(known, indent=1).encode())
        return known[key]


def export_path(sha256: str, precision: str) -> Path:
    """Where the export of the weights with this digest, at this precision, lives."""
    return cache_root() / "onnx" / sha256 / f"{precision}-v{EXPORT_VERSION}.onnx"


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder + rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# ---------------------------------------------------------------- running the export

_sessions: dict[str, Any] = {}
_sessions_lock = threading.Lock()


def _session(onnx_file: Path) -> Any:
    """The single-threaded session of an export (runs of many threads share it: ONNX
    Runtime's ``run`` may be called concurrently)."""
    key = str(onnx_file)
    with _sessions_lock:
        session = _sessions.get(key)
        if session is None:
            ort = require("onnxruntime", "onnx")
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.intra_op_num_threads = 1
            options.inter_op_num_threads = 1
            options.log_severity_level = 3  # errors only
            session = ort.InferenceSession(
                str(onnx_file), options, providers=["CPUExecutionProvider"]
            )
            _sessions[key] = session
    return session


def equal_length_runs(lengths: np.ndarray, batch_size: int) -> list[np.ndarray]:
    """Indices of texts grouped into runs of equal token count, longest first.

    A run holds at most ``batch_size`` texts and, past one text, at most
    :data:`TOKENS_PER_RUN` tokens. Longest first, so that runs done side by side end
    together (the short ones fill in at the end).

    Example:
        >>> [run.tolist() for run in equal_length_runs(np.array([3, 600, 3, 5]), 8)]
        [[1], [3], [0, 2]]
    """
    order = np.argsort(-lengths, kind="stable")
    runs: list[np.ndarray] = []
    start = 0
    while start < len(order):
        length = int(lengths[order[start]])
        rows = max(1, min(batch_size, TOKENS_PER_RUN // max(length, 1)))
        end = start + 1
        while end < len(order) and end - start < rows and lengths[order[end]] == length:
            end += 1
        runs.append(order[start:end])
        start = end
    return runs


class OnnxEncoder:
    """Texts to sentence vectors with a tokenizer, an ONNX session and numpy pooling.

    Args:
        spec: the model folder, read by :func:`read_spec`.
        onnx_file: the exported transformer (input ``input_ids``, and
            ``attention_mask`` if the export kept it; output the token embeddings).
        threads: runs side by side; ``None``: one for a single text, every core
            otherwise.
    """

    def __init__(self, spec: ModelSpec, onnx_file: Path, *, threads: int | None = None) -> None:
        self.spec = spec
        self.onnx_file = onnx_file
        self.threads = threads
        tokenizers = require("tokenizers", "onnx")
        tokenizer = tokenizers.Tokenizer.from_file(str(spec.transformer_path / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=spec.max_seq_length)
        tokenizer.no_padding()  # runs are made of texts of one length: nothing to pad
        self.tokenizer = tokenizer

    def threads_for(self, count: int) -> int:
        """Threads used to embed ``count`` texts in one call."""
        if self.threads is not None:
            return self.threads
        return 1 if count <= 1 else available_cores()

    def warm_up(self, count: int = 1) -> None:
        """Open the session (shared by calls of any size)."""
        _session(self.onnx_file)

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int,
        normalize: bool,
        progress: Callable[[int], None] | None = None,
    ) -> np.ndarray:
        """Embed ``texts`` into a float32 ``(len(texts), dimension)`` matrix, in input order.

        Texts are tokenized once and run in groups of equal token count
        (:func:`equal_length_runs`), so nothing is padded; ``progress`` is called with
        the number of texts each finished run held.
        """
        vectors = np.empty((len(texts), self.spec.dimension), dtype=np.float32)
        if not texts:
            return vectors
        inputs = [text.lower() for text in texts] if self.spec.lowercase else list(texts)
        encodings = self.tokenizer.encode_batch(inputs, add_special_tokens=True)
        lengths = np.fromiter((len(item.ids) for item in encodings), dtype=np.int64)
        runs = equal_length_runs(lengths, batch_size)
        session = _session(self.onnx_file)
        with_mask = any(item.name == "attention_mask" for item in session.get_inputs())

        def run(rows: np.ndarray) -> np.ndarray:
            input_ids = np.array([encodings[index].ids for index in rows], dtype=np.int64)
            feed = {"input_ids": input_ids}
            if with_mask:  # an export that kept its mask: all ones, nothing is padded
                feed["attention_mask"] = np.ones_like(input_ids)
            (tokens,) = session.run(None, feed)
            return tokens.mean(axis=1)  # type: ignore[no-any-return]

        for rows, pooled in zip(runs, self._map(run, runs, len(texts)), strict=True):
            vectors[rows] = pooled
            if progress is not None:
                progress(len(rows))
        if normalize or self.spec.normalize:
            _normalize_rows(vectors)
        return vectors

    def _map(
        self, run: Callable[[np.ndarray], np.ndarray], runs: list[np.ndarray], count: int
    ) -> Iterator[np.ndarray]:
        """``run`` over ``runs``, results in order: inline, or side by side in threads
        (ONNX Runtime releases the GIL while it computes)."""
        threads = min(self.threads_for(count), len(runs))
        if threads <= 1:
            yield from map(run, runs)
            return
        with ThreadPoolExecutor(threads, thread_name_prefix="ragline-onnx") as pool:
            yield from pool.map(run, runs)


def _normalize_rows(vectors: np.ndarray) -> None:
    """Scale rows to unit length in place (torch's F.normalize: norms floored at 1e-12)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    np.divide(vectors, np.maximum(norms, 1e-12), out=vectors)
