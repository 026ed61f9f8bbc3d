"""Embedding identity: what decides a model's vectors, recorded beside a store.

A store's vectors can only be searched with vectors from the same model, weights,
precision, normalisation and dimension. The backend that computed them is recorded too
but does not count: fp32 ONNX and torch give the same vectors (cosine >= 0.9999). Nor
does the model's name when both sides name the same weights digest (the packaged MiniLM
asked for as ``"all-MiniLM-L6-v2"`` or by its folder's path). Half-precision inference
of the same weights (``fp16``, ``bf16``: what a GPU runs) gives the fp32 vectors to a
cosine of 0.999 or more, so it is the same identity as ``fp32``: a store built on a GPU
is searched on a CPU. ``int8`` quantises the weights themselves (cosine ~0.98): another
identity. So are the texts a model puts before queries and documents (``query_prompt``,
``document_prompt``, BGE's instructions): an identity holds them only when they are set,
so one with a prompt differs from one without.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragline.core import ConfigurationError

__all__ = ["check_same_vectors", "describe_identity"]

# recorded for information: computing the same vectors another way is fine
_IGNORED = frozenset({"backend"})
# precisions that compute the same vectors, by the one they stand for
_SAME_PRECISION = {"fp16": "fp32", "bf16": "fp32"}
# what describe_identity spells out itself; any other entry (a prompt) is added by name
_DESCRIBED = frozenset(
    {"model", "backend", "precision", "normalized", "dimension", "weights_sha256"}
)


def vector_precision(precision: Any) -> Any:
    """The precision class a precision's vectors belong to (fp16, bf16 -> fp32).

    Example:
        >>> vector_precision("bf16"), vector_precision("int8")
        ('fp32', 'int8')
    """
    return _SAME_PRECISION.get(precision, precision)


def describe_identity(identity: Mapping[str, Any]) -> str:
    """One line for messages: ``model (backend precision, normalized, dimension 384)``,
    then the weights digest and any prompt (``document_prompt 'passage: '``).

    Example:
        >>> describe_identity({"model": "m", "backend": "onnx", "precision": "fp32",
        ...                    "dimension": 3, "query_prompt": "query: "})
        "m (onnx fp32, not normalized, dimension 3, query_prompt 'query: ')"
    """
    parts = [
        f"{identity.get('backend', '?')} {identity.get('precision', '?')}",
        "normalized" if identity.get("normalized") else "not normalized",
        f"dimension {identity.get('dimension', '?')}",
    ]
    digest = identity.get("weights_sha256")
    if digest:
        parts.append(f"weights {str(digest)[:12]}")
    parts.extend(f"{key} {identity[key]!r}" for key in sorted(set(identity) - _DESCRIBED))
    return f"{identity.get('model', '?')} ({', '.join(parts)})"


def check_same_vectors(
    stored: Mapping[str, Any], current: Mapping[str, Any], *, where: str = "the store"
) -> None:
    """Raise unless the two identities give the same vectors (backend may differ).

    Args:
        stored: the identity recorded when the vectors were made.
        current: the identity of the embeddings about to be used with them.
        where: what holds the stored vectors, for the message.

    Raises:
        ConfigurationError: they differ in model, weights, precision (fp16 and bf16
            count as fp32, int8 does not), normalisation, dimension or a prompt (one
            side having a prompt the other has not is a difference); the message names
            both and what differs.

    Example:
        >>> a = {"model": "m", "backend": "torch", "precision": "fp32", "dimension": 3}
        >>> check_same_vectors(a, {**a, "backend": "onnx"})  # same vectors: no error
    """
    ignored = set(_IGNORED)
    if stored.get("weights_sha256") and stored.get("weights_sha256") == current.get(
        "weights_sha256"
    ):
        ignored.add("model")  # the same weights under another name or path
    before, now = _comparable(stored), _comparable(current)
    differing = sorted(
        key
        for key in set(before) | set(now)
        if key not in ignored and before.get(key) != now.get(key)
    )
    if differing:
        raise ConfigurationError(
            f"{where} was embedded with {describe_identity(stored)}, but this run embeds "
            f"with {describe_identity(current)}; they differ in {', '.join(differing)}, so "
            "its vectors cannot be compared: use the embedding the store was built with, "
            "or index into a new store"
        )


def _comparable(identity: Mapping[str, Any]) -> dict[str, Any]:
    compared = dict(identity)
    if "precision" in compared:
        compared["precision"] = vector_precision(compared["precision"])
    return compared
