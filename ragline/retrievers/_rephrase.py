"""RePhraseQueryRetriever: a model rewrites the user's question into a search query, and
the retriever searches with that (LangChain's class of the same name).

The model's answer is used exactly as it comes back (not stripped), as LangChain's
retriever does. The default prompt is ragline's own wording; like LangChain's it takes
the user's text as ``{question}``.
"""

from __future__ import annotations

from typing import Any

from ragline.core import (
    BaseRetriever,
    Document,
    InvalidInputError,
    PromptTemplate,
    Runnable,
    StrOutputParser,
)
from ragline.core.runnables.base import adopt_runnable

__all__ = ["DEFAULT_QUERY_PROMPT", "RePhraseQueryRetriever"]

DEFAULT_QUERY_PROMPT = PromptTemplate.from_template(
    "Rewrite the user's message below as a short search query for a document index: keep "
    "the subject and the terms that identify it, drop greetings and anything that does "
    "not help find documents. Answer with the query only.\n\n"
    "User's message: {question}"
)


class RePhraseQueryRetriever(BaseRetriever):
    """Search with the query a model writes from the user's question.

    Args:
        retriever: the retriever that searches.
        llm_chain: a Runnable from the question (a str) to the search query (a str);
            :meth:`from_llm` builds ``prompt | llm | StrOutputParser()``.

    Raises:
        InvalidInputError: ``retriever`` or ``llm_chain`` is not a Runnable.

    Example:
        >>> from ragline.core import FakeListLLM, RunnableLambda
        >>> search = RunnableLambda(lambda q: [Document(f"found: {q}")])
        >>> retriever = RePhraseQueryRetriever.from_llm(search, FakeListLLM(responses=["cats"]))
        >>> retriever.invoke("Hello! Tell me about cats, please.")
        [Document(metadata={}, page_content='found: cats')]
    """

    def __init__(
        self,
        *,
        retriever: Runnable[str, list[Document]],
        llm_chain: Runnable[Any, str],
        **fields: Any,
    ) -> None:
        super().__init__(**fields)
        parts = []
        for name, value in (("retriever", retriever), ("llm_chain", llm_chain)):
            adopted = adopt_runnable(value)
            if adopted is None:
                raise InvalidInputError(
                    f"RePhraseQueryRetriever {name} must be a Runnable, got {type(value).__name__}"
                )
            parts.append(adopted)
        self.retriever, self.llm_chain = parts

    @classmethod
    def from_llm(
        cls, retriever: Runnable[str, list[Document]], llm: Any, prompt: Any = DEFAULT_QUERY_PROMPT
    ) -> RePhraseQueryRetriever:
        """Build the retriever with ``prompt | llm | StrOutputParser()`` as its chain
        (``prompt`` takes ``{question}``)."""
        return cls(retriever=retriever, llm_chain=prompt | llm | StrOutputParser())

    def __repr__(self) -> str:
        return f"RePhraseQueryRetriever(retriever={self.retriever!r}, llm_chain={self.llm_chain!r})"

    def _get_relevant_documents(self, query: str) -> list[Document]:
        return self.retriever.invoke(self.llm_chain.invoke(query))

    async def _aget_relevant_documents(self, query: str) -> list[Document]:
        return await self.retriever.ainvoke(await self.llm_chain.ainvoke(query))
