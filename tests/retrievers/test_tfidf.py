"""TFIDFRetriever without LangChain: its optional dependency (scikit-learn, extra tfidf).

Its ranking against LangChain's is in tests/parity/test_port_trial_set14.py.
"""

from __future__ import annotations

import sys

import pytest

from ragline.core import MissingDependencyError
from ragline.retrievers import TFIDFRetriever


def test_without_scikit_learn_building_or_querying_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("sklearn")
    built = TFIDFRetriever.from_texts(["red apple", "blue sky"], k=1)
    for name in [m for m in sys.modules if m == "sklearn" or m.startswith("sklearn.")]:
        monkeypatch.setitem(sys.modules, name, None)
    message = r"scikit-learn is required .* pip install 'ragline\[tfidf\]'"
    with pytest.raises(MissingDependencyError, match=message):
        TFIDFRetriever.from_texts(["red apple"])
    with pytest.raises(MissingDependencyError, match=message):
        built.invoke("apple")
