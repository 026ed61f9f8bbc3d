"""Parity: what a program prints, against LangChain's printed forms.

Found by the port trial (``benchmarks/port_trial.py``): programs print lists of
documents, search results and parsed values, so ``repr`` is observable output. Each
test builds the same value with LangChain's class and ragline's and compares the text.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.documents import Document as LCDocument

from ragline.core import Document

COVERS = {"core.Document"}


@pytest.mark.parametrize(
    "fields",
    [
        {"page_content": "hello"},
        {"page_content": "hello", "metadata": {"source": "a.txt", "page": 2}},
        {"page_content": 'it\'s "quoted"\nsecond line', "metadata": {"k": None}, "id": "d1"},
        {"page_content": "x" * 300, "id": "long"},
        {"page_content": "", "metadata": {"nested": {"a": [1, 2]}}},
    ],
)
def test_repr_of_a_document_and_of_a_list_of_them(fields: dict[str, Any]):
    lc, ours = LCDocument(**fields), Document(**fields)
    assert repr(ours) == repr(lc)
    assert repr([ours, ours]) == repr([lc, lc])
    assert f"{[(ours, 0.5)]}" == f"{[(lc, 0.5)]}"
