"""MergerRetriever: the results of several retrievers, interleaved (LangChain's "lord of
the retrievers").

Each retriever runs on the query in turn (a child run tagged ``retriever_1``,
``retriever_2`` ... as in LangChain); the result takes the first document of each, then
the second of each, and so on; a shorter list simply ends. Nothing is removed: a
document two retrievers found comes twice (``EnsembleRetriever`` fuses and removes
duplicates instead).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from ragline.core import BaseRetriever, Document, InvalidInputError, Runnable
from ragline.core.config import get_current_config
from ragline.core.runnables.base import adopt_runnable
from ragline.core.runnables.runs import part_config

__all__ = ["MergerRetriever"]


class MergerRetriever(BaseRetriever):
    """Interleave the documents of several retrievers.

    Args:
        retrievers: the retrievers (any Runnable from a query to a list of Documents).

    Raises:
        InvalidInputError: ``retrievers`` is not a list of Runnables.

    Example:
        >>> from ragline.core import RunnableLambda
        >>> a = RunnableLambda(lambda q: [Document("a1"), Document("a2")])
        >>> b = RunnableLambda(lambda q: [Document("b1")])
        >>> [d.page_content for d in MergerRetriever(retrievers=[a, b]).invoke("q")]
        ['a1', 'b1', 'a2']
    """

    def __init__(self, *, retrievers: Sequence[Runnable[str, list[Document]]], **fields: Any):
        super().__init__(**fields)
        adopted = (
            [] if isinstance(retrievers, (str, bytes)) else [adopt_runnable(r) for r in retrievers]
        )
        if isinstance(retrievers, (str, bytes)) or any(r is None for r in adopted):
            raise InvalidInputError(
                f"MergerRetriever retrievers must be a list of retrievers, got {retrievers!r:.80}"
            )
        self.retrievers = [part for part in adopted if part is not None]  # all, checked

    def __repr__(self) -> str:
        return f"MergerRetriever(retrievers={self.retrievers!r})"

    def _configs(self) -> list[Any]:
        # each retriever's own run is tagged retriever_<n> (not the runs inside it), as
        # LangChain's
        config = get_current_config()
        parts = [part_config(config, f"retriever_{i}") for i in range(1, len(self.retrievers) + 1)]
        for part in parts:
            if part is not None and part is not config:
                part["tags"] = []  # the call's tags come first, as LangChain's config-free call
        return parts

    def _get_relevant_documents(self, query: str) -> list[Document]:
        found = [
            retriever.invoke(query, config)  # type: ignore[arg-type]
            for retriever, config in zip(self.retrievers, self._configs(), strict=True)
        ]
        return _interleave(found)

    async def _aget_relevant_documents(self, query: str) -> list[Document]:
        found = await asyncio.gather(
            *(
                retriever.ainvoke(query, config)  # type: ignore[arg-type]
                for retriever, config in zip(self.retrievers, self._configs(), strict=True)
            )
        )
        return _interleave(list(found))


def _interleave(lists: list[list[Document]]) -> list[Document]:
    merged: list[Document] = []
    for position in range(max((len(docs) for docs in lists), default=0)):
        merged.extend(docs[position] for docs in lists if position < len(docs))
    return merged
