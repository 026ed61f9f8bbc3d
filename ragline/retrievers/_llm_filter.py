"""LLMChainFilter: a model answers YES or NO for each document; the NOs are dropped.

``BooleanOutputParser`` (the parser of those answers) is core's, re-exported here.
"""

from __future__ import annotations

from typing import Any

from ragline.core import Document, InvalidInputError, PromptTemplate
from ragline.core.output_parsers import BooleanOutputParser
from ragline.retrievers._compressors import LLMDocumentCompressor

__all__ = ["DEFAULT_FILTER_PROMPT", "BooleanOutputParser", "LLMChainFilter"]

DEFAULT_FILTER_PROMPT = PromptTemplate.from_template(
    "Does the context below help answer the question? Answer YES or NO, nothing else.\n\n"
    "Question: {question}\n"
    "Context:\n>>>\n{context}\n>>>\n"
    "Answer (YES or NO):"
)


class LLMChainFilter(LLMDocumentCompressor):
    """Keep the documents a model judges relevant to the query (content unchanged).

    All documents go to the model in one ``batch``.

    Args:
        llm_chain: a Runnable from the prompt variables to a bool (or a YES / NO text);
            :meth:`from_llm` builds ``prompt | llm | BooleanOutputParser()`` (default
            prompt ``DEFAULT_FILTER_PROMPT``).
        get_input: builds the prompt variables from ``(query, document)``.

    Raises:
        InvalidInputError: ``llm_chain`` is not a Runnable or ``get_input`` not callable.
        ValueError: (when compressing) an answer that says neither YES nor NO, or both
            (LangChain's error).

    Example:
        >>> from ragline.core import FakeListLLM, FakeListChatModel
        >>> keep = LLMChainFilter.from_llm(FakeListLLM(responses=["YES"]))
        >>> keep.compress_documents([Document("cats purr")], "cats")
        [Document(metadata={}, page_content='cats purr')]
        >>> LLMChainFilter.from_llm(FakeListChatModel(responses=["NO"])).compress_documents(
        ...     [Document("stocks")], "cats")
        []
    """

    default_prompt = DEFAULT_FILTER_PROMPT
    parser = BooleanOutputParser

    def _keep(self, documents: list[Document], outputs: list[Any]) -> list[Document]:
        return [d for d, verdict in zip(documents, outputs, strict=True) if _verdict(verdict)]


def _verdict(output: Any) -> bool:
    if isinstance(output, bool):
        return output
    text = getattr(output, "content", output)  # a chain ending in the model or a str parser
    if not isinstance(text, str):
        raise InvalidInputError(
            f"LLMChainFilter llm_chain must return a bool or text, got {type(output).__name__}"
        )
    return BooleanOutputParser().parse(text)
