"""LLMChainFilter: a model answers YES or NO for each document; the NOs are dropped."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from ragline.core import (
    BaseOutputParser,
    BasePromptTemplate,
    Document,
    InvalidInputError,
    PromptTemplate,
    Runnable,
)
from ragline.retrievers._compression import BaseDocumentCompressor
from ragline.retrievers._compressors import default_get_input

__all__ = ["DEFAULT_FILTER_PROMPT", "BooleanOutputParser", "LLMChainFilter"]

DEFAULT_FILTER_PROMPT = PromptTemplate.from_template(
    "Does the context below help answer the question? Answer YES or NO, nothing else.\n\n"
    "Question: {question}\n"
    "Context:\n>>>\n{context}\n>>>\n"
    "Answer (YES or NO):"
)


class BooleanOutputParser(BaseOutputParser[bool]):
    """Read a YES / NO answer: the word YES gives True, NO gives False (any case).

    Args:
        true_val: the word meaning True.
        false_val: the word meaning False.

    Raises:
        InvalidInputError: (when parsing) the answer holds neither word, or both.

    Example:
        >>> BooleanOutputParser().invoke("Yes."), BooleanOutputParser().invoke(" NO")
        (True, False)
    """

    def __init__(self, true_val: str = "YES", false_val: str = "NO") -> None:
        self.true_val = true_val
        self.false_val = false_val

    def parse(self, text: str) -> bool:
        words = {word.upper() for word in re.findall(r"\w+", text)}
        found_true, found_false = self.true_val.upper() in words, self.false_val.upper() in words
        if found_true == found_false:
            raise InvalidInputError(
                f"expected an answer of {self.true_val} or {self.false_val}, got {text!r:.80}"
            )
        return found_true


class LLMChainFilter(BaseDocumentCompressor):
    """Keep the documents a model judges relevant to the query (content unchanged).

    All documents go to the model in one ``batch``.

    Args:
        llm_chain: a Runnable from the prompt variables to a bool (or a YES / NO text);
            :meth:`from_llm` builds ``prompt | llm | BooleanOutputParser()``.
        get_input: builds the prompt variables from ``(query, document)``.

    Raises:
        InvalidInputError: ``llm_chain`` is not a Runnable or ``get_input`` not callable;
            (when compressing) an answer that is neither YES nor NO.

    Example:
        >>> from ragline.core import FakeListLLM
        >>> keep = LLMChainFilter.from_llm(FakeListLLM(responses=["YES"]))
        >>> keep.compress_documents([Document("cats purr")], "cats")
        [Document(page_content='cats purr')]
    """

    def __init__(self, llm_chain: Runnable[Any, Any],
                 get_input: Callable[[str, Document], Any] = default_get_input) -> None:
        if not isinstance(llm_chain, Runnable):
            raise InvalidInputError(
                f"LLMChainFilter llm_chain must be a Runnable, got {type(llm_chain).__name__}"
            )
        if not callable(get_input):
            raise InvalidInputError(f"LLMChainFilter get_input must be callable, got {type(get_input).__name__}")
        self.llm_chain = llm_chain
        self.get_input = get_input

    @classmethod
    def from_llm(cls, llm: Runnable[Any, Any], prompt: BasePromptTemplate | None = None,
                 get_input: Callable[[str, Document], Any] | None = None) -> LLMChainFilter:
        """Build the filter with ``prompt | llm | BooleanOutputParser()``.

        Args:
            llm: a chat or text model.
            prompt: a prompt with the variables ``question`` and ``context`` (default:
                ``DEFAULT_FILTER_PROMPT``); with a custom ``get_input``, any variables.
            get_input: builds the prompt variables from ``(query, document)``.

        Raises:
            InvalidInputError: ``llm`` is not a Runnable, or the prompt's variables are
                not ``question`` and ``context`` (with the default ``get_input``).

        Example:
            >>> from ragline.core import FakeListChatModel
            >>> LLMChainFilter.from_llm(FakeListChatModel(responses=["NO"])).compress_documents(
            ...     [Document("stocks")], "cats")
            []
        """
        prompt = DEFAULT_FILTER_PROMPT if prompt is None else prompt
        if not isinstance(prompt, BasePromptTemplate):
            raise InvalidInputError(f"LLMChainFilter prompt must be a prompt template, got {type(prompt).__name__}")
        if get_input is None and sorted(prompt.input_variables) != ["context", "question"]:
            raise InvalidInputError(
                "LLMChainFilter prompt must have the variables 'question' and 'context', "
                f"got {prompt.input_variables}"
            )
        if not isinstance(llm, Runnable):
            raise InvalidInputError(f"LLMChainFilter llm must be a Runnable, got {type(llm).__name__}")
        return cls(prompt | llm | BooleanOutputParser(), get_input or default_get_input)

    def __repr__(self) -> str:
        return "LLMChainFilter()"

    def compress_documents(self, documents: Sequence[Document], query: str) -> list[Document]:
        documents = list(documents)
        if not documents:
            return []
        verdicts = self.llm_chain.batch([self.get_input(query, d) for d in documents])
        return [d for d, verdict in zip(documents, verdicts, strict=True) if _verdict(verdict)]

    async def acompress_documents(self, documents: Sequence[Document], query: str) -> list[Document]:
        documents = list(documents)
        if not documents:
            return []
        verdicts = await self.llm_chain.abatch([self.get_input(query, d) for d in documents])
        return [d for d, verdict in zip(documents, verdicts, strict=True) if _verdict(verdict)]


def _verdict(output: Any) -> bool:
    if isinstance(output, bool):
        return output
    text = getattr(output, "content", output)  # a chain ending in the model or a str parser
    if not isinstance(text, str):
        raise InvalidInputError(f"LLMChainFilter llm_chain must return a bool or text, got {type(output).__name__}")
    return BooleanOutputParser().parse(text)
