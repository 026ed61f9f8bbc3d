"""LLMChainFilter: a model answers YES or NO for each document; the NOs are dropped."""

from __future__ import annotations

import re
from typing import Any

from ragline.core import BaseOutputParser, Document, InvalidInputError, PromptTemplate
from ragline.retrievers._compressors import LLMDocumentCompressor

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


class LLMChainFilter(LLMDocumentCompressor):
    """Keep the documents a model judges relevant to the query (content unchanged).

    All documents go to the model in one ``batch``.

    Args:
        llm_chain: a Runnable from the prompt variables to a bool (or a YES / NO text);
            :meth:`from_llm` builds ``prompt | llm | BooleanOutputParser()`` (default
            prompt ``DEFAULT_FILTER_PROMPT``).
        get_input: builds the prompt variables from ``(query, document)``.

    Raises:
        InvalidInputError: ``llm_chain`` is not a Runnable or ``get_input`` not callable;
            (when compressing) an answer that is neither YES nor NO.

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
