"""SemanticCache: an LLM cache that also answers prompts that *mean* the same.

A prompt is a hit when a cached prompt of the same model (same ``llm_string``) has a
relevance of at least ``score_threshold`` to it in the vector store (relevance is in
[0, 1] on every ragline store: ``(1 + cosine) / 2``). Entries are documents: the prompt's
text, with the model's key and the generations (JSON) in their metadata, under an id
made from the prompt and the model, so storing the same prompt again replaces it. Any
ragline vector store works (in-memory, FAISS, Redis), with any embeddings.

Example:
    >>> from ragline.core import FakeListChatModel
    >>> from ragline.embeddings import HashingEmbeddings
    >>> from ragline.vectorstores import InMemoryVectorStore
    >>> cache = SemanticCache(InMemoryVectorStore(HashingEmbeddings()), score_threshold=0.9)
    >>> model = FakeListChatModel(responses=["Paris.", "Rome."], cache=cache)
    >>> model.invoke("What is the capital of France?").content
    'Paris.'
    >>> model.invoke("what is the capital of france").content  # the same question
    'Paris.'
    >>> model.invoke("Which river flows through Rome?").content
    'Rome.'
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ragline.core import BaseCache, Generation, InvalidInputError
from ragline.core._checks import check_unit_interval
from ragline.core.caches._base import (
    RETURN_VAL_TYPE,
    cache_key,
    check_generations,
    check_key,
    generations_from_json,
    generations_to_json,
)

__all__ = ["SemanticCache"]

LLM_KEY = "llm_string_hash"
GENERATIONS_KEY = "generations"


def _prompt_text(prompt: str) -> str:
    """The words of a prompt: a chat model's prompt (messages as JSON) becomes their text."""
    if not prompt.startswith("[{"):
        return prompt
    try:
        messages = json.loads(prompt)
        return "\n".join(str(m["data"]["content"]) for m in messages)
    except (ValueError, KeyError, TypeError):
        return prompt


def _llm_hash(llm_string: str) -> str:
    return hashlib.sha256(llm_string.encode()).hexdigest()[:32]


class SemanticCache(BaseCache):
    """An LLM cache over a vector store: a hit when a cached prompt is close enough.

    Args:
        vectorstore: any ragline vector store (its embeddings embed the prompts). On
            Redis, declare ``llm_string_hash`` as a tag field of its metadata schema.
        score_threshold: the least relevance in [0, 1] for a hit (0.95: near-identical
            wording; lower values answer looser paraphrases, and wrong answers risk).

    Raises:
        InvalidInputError: ``score_threshold`` outside [0, 1], or a store that cannot
            search with a filter.

    ``clear()`` deletes the entries this object stored (a vector store cannot list them
    in general); clear a store shared by several processes through the store itself.
    """

    def __init__(self, vectorstore: Any, *, score_threshold: float = 0.95) -> None:
        if not hasattr(vectorstore, "similarity_search_with_relevance_scores"):
            raise InvalidInputError(
                f"SemanticCache needs a vector store, got {type(vectorstore).__name__}"
            )
        self.vectorstore = vectorstore
        self.score_threshold = check_unit_interval("score_threshold", score_threshold)
        self._ids: set[str] = set()

    def __repr__(self) -> str:
        return f"SemanticCache({type(self.vectorstore).__name__}, {self.score_threshold})"

    def _search(self, prompt: str, llm_string: str) -> tuple[str, dict[str, Any]]:
        check_key(prompt, llm_string)
        options = {
            "k": 1,
            "filter": {LLM_KEY: _llm_hash(llm_string)},
            "score_threshold": self.score_threshold,
        }
        return _prompt_text(prompt), options

    def _hit(self, found: list[Any]) -> list[Generation] | None:
        if not found:
            return None
        document = found[0][0]
        where = f"semantic cache entry {document.id!r}"
        return generations_from_json(document.metadata[GENERATIONS_KEY], where)

    def _entry(
        self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE
    ) -> tuple[list[str], list[dict[str, Any]], list[str]]:
        text = generations_to_json(check_generations(return_val))
        key = cache_key(prompt, llm_string)
        self._ids.add(key)
        metadata = {LLM_KEY: _llm_hash(llm_string), GENERATIONS_KEY: text}
        return [_prompt_text(prompt)], [metadata], [key]

    def lookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        query, options = self._search(prompt, llm_string)
        return self._hit(self.vectorstore.similarity_search_with_relevance_scores(query, **options))

    async def alookup(self, prompt: str, llm_string: str) -> list[Generation] | None:
        query, options = self._search(prompt, llm_string)
        search = self.vectorstore.asimilarity_search_with_relevance_scores
        return self._hit(await search(query, **options))

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        texts, metadatas, ids = self._entry(prompt, llm_string, return_val)
        self.vectorstore.add_texts(texts, metadatas=metadatas, ids=ids)

    async def aupdate(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        texts, metadatas, ids = self._entry(prompt, llm_string, return_val)
        await self.vectorstore.aadd_texts(texts, metadatas=metadatas, ids=ids)

    def clear(self, **kwargs: Any) -> None:
        """Delete the entries this object stored."""
        if self._ids:
            self.vectorstore.delete(sorted(self._ids))
        self._ids.clear()
