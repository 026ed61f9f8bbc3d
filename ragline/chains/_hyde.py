"""HypotheticalDocumentEmbedder (HyDE): embed a query as the passage a model writes for it.

A short question and the passage that answers it lie far apart in many embedding
spaces; a model's made-up answer, true or not, is written like the passages in the
store and lands near them. ``embed_query`` asks ``llm_chain`` for that passage and embeds
it with ``base_embeddings`` (several passages are averaged); ``embed_documents`` embeds
the documents as they are. The class is both ``Embeddings`` (give it to a vector store)
and a legacy ``Chain``, as LangChain's is.

The prompts of :meth:`~HypotheticalDocumentEmbedder.from_llm` are ragline's own wording;
each takes the variable LangChain's prompt of the same key takes (``QUESTION``,
``Claim``, ``PASSAGE`` or ``TOPIC``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ragline.chains._chain import Chain
from ragline.chains._llm_chain import LLMChain
from ragline.core import PromptTemplate, StrOutputParser
from ragline.embeddings import Embeddings

__all__ = ["PROMPT_MAP", "HypotheticalDocumentEmbedder"]


def _prompt(variable: str, text: str) -> PromptTemplate:
    return PromptTemplate(template=text, input_variables=[variable])


PROMPT_MAP: dict[str, PromptTemplate] = {
    "web_search": _prompt(
        "QUESTION",
        "Write a short web passage that answers this question.\nQuestion: {QUESTION}\nPassage:",
    ),
    "sci_fact": _prompt(
        "Claim",
        "Write a passage from a scientific paper that supports or refutes this claim.\n"
        "Claim: {Claim}\nPassage:",
    ),
    "arguana": _prompt(
        "PASSAGE",
        "Write a counter-argument to the following passage.\nPassage: {PASSAGE}\nCounter-argument:",
    ),
    "trec_covid": _prompt(
        "QUESTION",
        "Write a passage from a scientific paper that answers this question.\n"
        "Question: {QUESTION}\nPassage:",
    ),
    "fiqa": _prompt(
        "QUESTION",
        "Write a passage from a financial article that answers this question.\n"
        "Question: {QUESTION}\nPassage:",
    ),
    "dbpedia_entity": _prompt(
        "QUESTION",
        "Write an encyclopedia passage that answers this question.\nQuestion: {QUESTION}\nPassage:",
    ),
    "trec_news": _prompt(
        "TOPIC",
        "Write a news article about this topic.\nTopic: {TOPIC}\nArticle:",
    ),
    "mr_tydi": _prompt(
        "QUESTION",
        "Write a passage that answers this question, in the language of the question.\n"
        "Question: {QUESTION}\nPassage:",
    ),
}


class HypotheticalDocumentEmbedder(Chain, Embeddings):
    """Embeddings that embed a query as the passage ``llm_chain`` writes for it.

    Args:
        base_embeddings: the embeddings of the documents and of the written passages.
        llm_chain: a Runnable from ``{variable: query}`` to the passage (a str), or an
            ``LLMChain``; :meth:`from_llm` builds ``prompt | llm | StrOutputParser()``.

    Example:
        >>> from ragline.core import FakeListLLM
        >>> from ragline.embeddings import DeterministicFakeEmbedding
        >>> base = DeterministicFakeEmbedding(size=4)
        >>> hyde = HypotheticalDocumentEmbedder.from_llm(
        ...     FakeListLLM(responses=["Paris is the capital."]), base, "web_search"
        ... )
        >>> hyde.embed_query("capital of France?") == base.embed_query("Paris is the capital.")
        True
    """

    base_embeddings: Embeddings
    llm_chain: Any

    @property
    def input_keys(self) -> list[str]:
        """The input variables ``llm_chain`` requires."""
        return list(self.llm_chain.get_input_jsonschema()["required"])

    @property
    def output_keys(self) -> list[str]:
        if isinstance(self.llm_chain, LLMChain):
            return self.llm_chain.output_keys
        return ["text"]

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """The documents' embeddings by ``base_embeddings``."""
        return self.base_embeddings.embed_documents(texts)

    def combine_embeddings(self, embeddings: list[list[float]]) -> list[float]:
        """The mean of ``embeddings``, one number per dimension."""
        return list(np.array(embeddings).mean(axis=0))

    def embed_query(self, text: str) -> list[float]:
        """Embed the passage ``llm_chain`` writes for ``text``."""
        written = self.llm_chain.invoke({self.input_keys[0]: text})
        if isinstance(self.llm_chain, LLMChain):
            written = written[self.output_keys[0]]
        return self.combine_embeddings(self.embed_documents([written]))

    def _call(self, inputs: dict[str, Any], run_manager: Any = None) -> dict[str, Any]:
        config = {"callbacks": run_manager.get_child()} if run_manager is not None else None
        result = self.llm_chain.invoke(inputs, config)
        if not isinstance(result, Mapping):
            # an LCEL llm_chain answers with the text alone, which has no output keys:
            # LangChain's chain call fails the same way (embed_query is the way to use it)
            raise ValueError(f"Missing some output keys: {set(self.output_keys)}")
        return dict(result)

    @classmethod
    def from_llm(
        cls,
        llm: Any,
        base_embeddings: Embeddings,
        prompt_key: str | None = None,
        custom_prompt: Any = None,
        **kwargs: Any,
    ) -> HypotheticalDocumentEmbedder:
        """The embedder with ``prompt | llm | StrOutputParser()`` as its chain.

        Args:
            llm: the model that writes the passage.
            base_embeddings: the embeddings to use.
            prompt_key: one of :data:`PROMPT_MAP`'s keys, when ``custom_prompt`` is None.
            custom_prompt: the prompt to use instead.
            **kwargs: further fields of the chain (``callbacks``, ``verbose`` ...).

        Raises:
            ValueError: neither a known ``prompt_key`` nor a ``custom_prompt``.
        """
        if custom_prompt is not None:
            prompt = custom_prompt
        elif prompt_key is not None and prompt_key in PROMPT_MAP:
            prompt = PROMPT_MAP[prompt_key]
        else:
            raise ValueError(
                "Must specify prompt_key if custom_prompt not provided. Should be one of "
                f"{list(PROMPT_MAP)}."
            )
        return cls(
            base_embeddings=base_embeddings, llm_chain=prompt | llm | StrOutputParser(), **kwargs
        )

    @property
    def _chain_type(self) -> str:
        return "hyde_chain"
