"""EmbeddingsClusteringFilter without scikit-learn, and its cases that never reach it
(the results themselves are compared with LangChain's in
tests/parity/test_port_trial_set31.py)."""

from __future__ import annotations

import asyncio
import sys

import pytest

from ragline.core import Document, InvalidInputError, MissingDependencyError
from ragline.embeddings import HashingEmbeddings
from ragline.retrievers import EmbeddingsClusteringFilter

_DOCS = [Document(t) for t in ["cats purr", "cats purr loudly", "stocks fell", "bonds rose"]]


def test_without_scikit_learn_the_call_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sklearn")
    keep = EmbeddingsClusteringFilter(HashingEmbeddings(dimension=32), num_clusters=2)
    for name in [m for m in sys.modules if m == "sklearn" or m.startswith("sklearn.")]:
        monkeypatch.setitem(sys.modules, name, None)
    message = r"scikit-learn is required .* pip install 'ragline\[cluster\]'"
    with pytest.raises(MissingDependencyError, match=message):
        keep.transform_documents(_DOCS)
    with pytest.raises(MissingDependencyError, match=message):
        asyncio.run(keep.atransform_documents(_DOCS))
    # no documents: nothing to cluster, so nothing imported
    assert keep.transform_documents([]) == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"num_clusters": 0}, "num_clusters must be an int of at least 1, got 0"),
        ({"num_closest": True}, "num_closest must be an int of at least 1, got True"),
        ({"random_state": 1.5}, "random_state must be an int or None, got 1.5"),
    ],
)
def test_bad_options_are_refused(options: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        EmbeddingsClusteringFilter(HashingEmbeddings(dimension=32), **options)  # type: ignore[arg-type]


def test_sorted_keeps_the_documents_order() -> None:
    pytest.importorskip("sklearn")
    keep = EmbeddingsClusteringFilter(
        HashingEmbeddings(dimension=32), num_clusters=4, num_closest=1, sorted=True
    )
    # four clusters of four documents: every document is its own centre's nearest
    assert keep.transform_documents(_DOCS) == _DOCS
