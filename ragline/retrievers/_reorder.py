"""LongContextReorder: put the most relevant documents at both ends of the list.

Models read the start and the end of a long context best, so the documents a retriever
ranked first go to the edges and the least relevant ones to the middle: given ranks
1..n (best first), the result holds the odd ranks from the front and the even ranks
from the back, with rank 1 or 2 at the head (as LangChain's transformer orders them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragline.core import BaseDocumentTransformer, Document

__all__ = ["LongContextReorder"]


class LongContextReorder(BaseDocumentTransformer):
    """Reorder documents (best first) so the best sit at both ends.

    Example:
        >>> ranked = [Document(str(rank)) for rank in range(1, 6)]
        >>> [d.page_content for d in LongContextReorder().transform_documents(ranked)]
        ['1', '3', '5', '4', '2']
    """

    def __repr__(self) -> str:
        return "LongContextReorder()"

    def __str__(self) -> str:  # LangChain's (pydantic's, with no fields): empty
        return ""

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> list[Document]:
        """The same documents (not copies) in the new order; ``kwargs`` are accepted and
        ignored, as by LangChain's."""
        ranked = list(documents)
        # walking from the least relevant: alternately to the front and to the back, so
        # the last ones placed (the most relevant) end up at the two ends
        front: list[Document] = []
        back: list[Document] = []
        for position, document in enumerate(reversed(ranked)):
            (back if position % 2 else front).append(document)
        return front[::-1] + back

    async def atransform_documents(
        self, documents: Sequence[Document], **kwargs: Any
    ) -> list[Document]:
        """Async :meth:`transform_documents` (quick: runs inline)."""
        return self.transform_documents(documents, **kwargs)
