"""``create_retriever_tool``: a retriever as a tool an agent may call (to search, perhaps
several times, before answering)."""

from __future__ import annotations

from typing import Any

from ragline.core import (
    BasePromptTemplate,
    Document,
    InvalidInputError,
    PromptTemplate,
    Runnable,
    format_document,
)
from ragline.core.runnables.base import adopt_runnable
from ragline.core.tools import ArgsSchema
from ragline.core.tools._function import StructuredTool

__all__ = ["RETRIEVER_INPUT", "create_retriever_tool"]

# What LangChain's RetrieverInput model says, as a schema.
RETRIEVER_INPUT = ArgsSchema(
    name="RetrieverInput",
    properties={"query": {"description": "query to look up in retriever", "type": "string"}},
    required=["query"],
    description="Input to the retriever.",
)


def create_retriever_tool(
    retriever: Runnable[str, list[Document]],
    name: str,
    description: str,
    *,
    document_prompt: BasePromptTemplate | None = None,
    document_separator: str = "\n\n",
    response_format: str = "content",
) -> StructuredTool:
    """Make a tool that searches ``retriever`` and returns the documents as text.

    Args:
        retriever: any retriever (a ``VectorStoreRetriever``, BM25, ensemble ...) or any
            runnable from a query string to documents.
        name: the tool's name.
        description: when to use it (the model reads this).
        document_prompt: how each document is rendered (default ``"{page_content}"``;
            metadata keys may be used, ``"[{source}] {page_content}"``).
        document_separator: what joins the rendered documents.
        response_format: ``"content_and_artifact"``: the tool also returns the documents
            themselves (a ``ToolMessage`` keeps them as its ``artifact``).

    Raises:
        InvalidInputError: ``retriever`` is not a runnable.

    Example:
        >>> from ragline.core import BaseRetriever
        >>> class Fixed(BaseRetriever):
        ...     def _get_relevant_documents(self, query):
        ...         return [Document("foobar"), Document("bazqux")]
        >>> search = create_retriever_tool(Fixed(), "fake_tool", "A fake tool.")
        >>> search.invoke("bar")
        'foobar\\n\\nbazqux'
    """
    adopted = adopt_runnable(retriever)
    if adopted is None:
        raise InvalidInputError(
            f"create_retriever_tool needs a retriever (a Runnable from a query to documents), "
            f"got {type(retriever).__name__}"
        )
    retriever = adopted
    prompt = document_prompt or PromptTemplate.from_template("{page_content}")

    def render(documents: list[Document]) -> Any:
        content = document_separator.join(format_document(d, prompt) for d in documents)
        return (content, documents) if response_format == "content_and_artifact" else content

    def search(query: str) -> Any:
        return render(retriever.invoke(query))

    async def asearch(query: str) -> Any:
        return render(await retriever.ainvoke(query))

    return StructuredTool(
        name=name,
        description=description,
        func=search,
        coroutine=asearch,
        args_schema=RETRIEVER_INPUT,
        response_format=response_format,
    )
