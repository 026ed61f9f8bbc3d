"""LLMListwiseRerank: a chat model orders the retrieved documents; the first ``top_n`` stay.

The model sees every document once, numbered from 0, with the query, and answers through
structured output (a ``RankDocuments`` object, ``ranked_document_ids``: the numbers from
most to least relevant), as LangChain's compressor asks. The prompt's variables are
LangChain's (``context``: the numbered documents; ``query``); its wording is ragline's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from ragline.core import (
    ChatPromptTemplate,
    Document,
    InvalidInputError,
    OutputParserException,
    Runnable,
    RunnableLambda,
    RunnablePassthrough,
)
from ragline.core.runnables.base import adopt_runnable
from ragline.retrievers._compression import BaseDocumentCompressor, _check_output

__all__ = ["LLMListwiseRerank"]

DEFAULT_RERANK_PROMPT = ChatPromptTemplate.from_messages(
    [
        (
            "system",
            "{context}\n\nOrder the numbered documents above from the most to the least "
            "relevant to the user's question.",
        ),
        ("human", "{query}"),
    ]
)


class RankDocuments(BaseModel):
    """The documents' numbers, from the most to the least relevant to the question."""

    ranked_document_ids: list[int] = Field(
        ..., description="Document numbers, the most relevant to the question first."
    )


def _prompt_input(value: dict[str, Any]) -> dict[str, Any]:
    documents = value["documents"]
    lines = [f"Document {i}:\n{doc.page_content}\n" for i, doc in enumerate(documents)]
    numbers = f"0 to {len(documents) - 1}" if documents else "none"
    lines.append(f"Document numbers: {numbers}")
    return {"query": value["query"], "context": "\n".join(lines)}


def _ranked(value: dict[str, Any]) -> list[Document]:
    documents, ranking = value["documents"], value["ranking"]
    ids = getattr(ranking, "ranked_document_ids", None)
    if ids is None and isinstance(ranking, dict):
        ids = ranking.get("ranked_document_ids")
    if not isinstance(ids, list):
        raise OutputParserException(
            f"LLMListwiseRerank: the model's ranking has no ranked_document_ids: {ranking!r:.200}"
        )
    bad = [i for i in ids if not isinstance(i, int) or not 0 <= i < len(documents)]
    if bad:
        raise OutputParserException(
            f"LLMListwiseRerank: the model ranked document number(s) {bad} of "
            f"{len(documents)} documents (numbered from 0)",
            llm_output=str(ids),
        )
    return [documents[i] for i in ids]


class LLMListwiseRerank(BaseDocumentCompressor):
    """Keep the ``top_n`` documents a chat model ranks as the most relevant, in its order.

    Args:
        reranker: a Runnable from ``{"documents": [...], "query": str}`` to the documents
            in ranked order; :meth:`from_llm` builds it.
        top_n: how many documents to keep (default 3).

    Raises:
        InvalidInputError: ``reranker`` is not a Runnable, or ``top_n`` is not a
            positive int.
        OutputParserException: (when compressing) the model's ranking names a document
            number that does not exist.

    Example:
        >>> from ragline.core import AIMessage, FakeMessagesListChatModel
        >>> class ToolChat(FakeMessagesListChatModel):
        ...     def bind_tools(self, tools, **kwargs):
        ...         return self.bind(tools=tools, **kwargs)
        >>> call = {"name": "RankDocuments", "args": {"ranked_document_ids": [1, 0]}, "id": "1"}
        >>> llm = ToolChat(responses=[AIMessage("", tool_calls=[call])])
        >>> rerank = LLMListwiseRerank.from_llm(llm, top_n=1)
        >>> rerank.compress_documents([Document("stocks"), Document("cats purr")], "cats")
        [Document(metadata={}, page_content='cats purr')]
    """

    def __init__(self, reranker: Runnable[Any, Any], top_n: int = 3) -> None:
        adopted = adopt_runnable(reranker)
        if adopted is None:
            raise InvalidInputError(
                f"LLMListwiseRerank reranker must be a Runnable, got {type(reranker).__name__}"
            )
        reranker = adopted
        if not isinstance(top_n, int) or isinstance(top_n, bool) or top_n < 1:
            raise InvalidInputError(f"LLMListwiseRerank top_n must be an int >= 1, got {top_n!r}")
        self.reranker = reranker
        self.top_n = top_n

    def __repr__(self) -> str:
        return f"LLMListwiseRerank(top_n={self.top_n})"

    @classmethod
    def from_llm(cls, llm: Any, *, prompt: Any = None, **kwargs: Any) -> LLMListwiseRerank:
        """The reranker ``prompt | llm.with_structured_output(RankDocuments)``.

        Args:
            llm: a chat model with ``with_structured_output`` (tool calling).
            prompt: a prompt with the variables ``context`` and ``query`` (default
                ``DEFAULT_RERANK_PROMPT``).
            **kwargs: ``top_n``.

        Raises:
            InvalidInputError: ``llm`` has no ``with_structured_output``.
        """
        structured = getattr(llm, "with_structured_output", None)
        if not callable(structured):
            raise InvalidInputError(
                f"LLMListwiseRerank needs a chat model with with_structured_output, got "
                f"{type(llm).__name__}"
            )
        ranking = (
            RunnableLambda(_prompt_input)
            | (prompt if prompt is not None else DEFAULT_RERANK_PROMPT)
            | structured(RankDocuments)
        )
        reranker = RunnablePassthrough.assign(ranking=ranking) | RunnableLambda(_ranked)
        return cls(reranker=reranker, **kwargs)

    def compress_documents(self, documents: Sequence[Document], query: str) -> list[Document]:
        """The ``top_n`` best documents, in the model's order."""
        ranked = self.reranker.invoke({"documents": list(documents), "query": query})
        return _check_output("LLMListwiseRerank reranker", ranked)[: self.top_n]

    async def acompress_documents(
        self, documents: Sequence[Document], query: str
    ) -> list[Document]:
        """Async ``compress_documents`` (the reranker's ``ainvoke``)."""
        ranked = await self.reranker.ainvoke({"documents": list(documents), "query": query})
        return _check_output("LLMListwiseRerank reranker", ranked)[: self.top_n]
